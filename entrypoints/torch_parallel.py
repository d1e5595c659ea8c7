"""Everything that differs between DDP, FSDP and XLA data parallelism, behind one small API.

The training loop calls wrap(), grad_sync(), step() and the state-dict helpers and never asks
which mode it runs in; the checkpoint code uses the same helpers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

import smenv
import torch_dist
import torch_models

PARALLEL_MODES = ("ddp", "fsdp")
SHARDING_MODES = ("full", "hybrid")


@dataclass
class Parallel:
    """The model as the loop sees it: the wrapped module and the (maybe compiled) forward."""

    model: nn.Module  # DDP / FSDP-sharded / plain; state dicts come from here
    forward: Callable[[torch.Tensor], torch.Tensor]
    mode: str  # "ddp", "fsdp", "xla" or "single"
    ctx: torch_dist.DistContext


def wrap(
    model: nn.Module, ctx: torch_dist.DistContext, parallel: str, sharding: str, compile: bool
) -> Parallel:
    """Move the model to its device and wrap it for the chosen data parallelism."""
    if ctx.kind == "xla":
        if parallel == "fsdp":
            raise smenv.UsageError("--parallel fsdp is not supported on Neuron; use ddp")
        # xm.reduce_gradients all-reduces across replicas, so no DDP wrapper on XLA.
        wrapped, mode = model.to(ctx.device), "xla"
    elif parallel == "fsdp":
        wrapped, mode = _shard(model, ctx, sharding), "fsdp"
    elif ctx.world_size > 1:
        wrapped, mode = _ddp(model.to(ctx.device), ctx), "ddp"
    else:
        wrapped, mode = model.to(ctx.device), "single"
    forward = torch.compile(wrapped) if compile else wrapped
    return Parallel(model=wrapped, forward=forward, mode=mode, ctx=ctx)


def _ddp(model: nn.Module, ctx: torch_dist.DistContext) -> nn.Module:
    from torch.nn.parallel import DistributedDataParallel

    device_ids = [ctx.device.index] if ctx.device.type == "cuda" else None
    return DistributedDataParallel(model, device_ids=device_ids)


def _shard(model: nn.Module, ctx: torch_dist.DistContext, sharding: str) -> nn.Module:
    """FSDP2: shard each transformer block, then the root (embeddings and head)."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    model.to(ctx.device)
    if sharding == "hybrid":
        shard = torch_dist.hybrid_shard_degree(ctx)
        # Replicate across groups, shard within one: all-gathers stay inside a host's fast links.
        mesh = init_device_mesh(
            ctx.device.type, (ctx.world_size // shard, shard), mesh_dim_names=("replicate", "shard")
        )
    else:
        mesh = init_device_mesh(ctx.device.type, (ctx.world_size,))
    for unit in torch_models.shard_units(model):
        fully_shard(unit, mesh=mesh)
    fully_shard(model, mesh=mesh)
    return model


@contextlib.contextmanager
def grad_sync(par: Parallel, enabled: bool) -> Iterator[None]:
    """Skip the gradient all-reduce on all but the last micro-batch of an accumulation."""
    if par.mode == "ddp" and not enabled:
        with par.model.no_sync():  # type: ignore[operator]
            yield
        return
    if par.mode == "fsdp":
        par.model.set_requires_gradient_sync(enabled)  # type: ignore[operator]
    yield


def autocast(ctx: torch_dist.DistContext, precision: str) -> contextlib.AbstractContextManager[Any]:
    if precision != "bf16" or ctx.device.type not in ("cuda", "cpu"):
        return contextlib.nullcontext()
    return torch.autocast(device_type=ctx.device.type, dtype=torch.bfloat16)


def step(par: Parallel, optimizer: torch.optim.Optimizer, max_grad_norm: float) -> None:
    """Reduce (XLA), clip and apply the gradients."""
    xm = par.ctx.xm
    if par.mode == "xla" and xm is not None:
        # xm.optimizer_step() is reduce_gradients() + step(); split here so clipping sees the
        # all-reduced gradients, as DDP's clipping does.
        xm.reduce_gradients(optimizer)
    if max_grad_norm > 0:
        torch.nn.utils.clip_grad_norm_(par.model.parameters(), max_grad_norm)
    optimizer.step()
    if xm is not None:
        xm.mark_step()  # cut the lazy graph here so each step compiles to the same program


def unwrapped(model: nn.Module) -> nn.Module:
    inner = getattr(model, "module", model)  # DDP keeps the real model in .module
    assert isinstance(inner, nn.Module)
    return inner


def local_state(par: Parallel, optimizer: torch.optim.Optimizer) -> dict[str, Any]:
    """Model and optimizer state for a rank-0 checkpoint (DDP, XLA, single process)."""
    return {
        "model": unwrapped(par.model).state_dict(),
        "optimizer": optimizer.state_dict(),
    }


def load_local_state(par: Parallel, optimizer: torch.optim.Optimizer, state: dict) -> None:
    unwrapped(par.model).load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])


def sharded_state(par: Parallel, optimizer: torch.optim.Optimizer) -> dict[str, Any]:
    """Model and optimizer shards for torch.distributed.checkpoint (FSDP)."""
    from torch.distributed.checkpoint.state_dict import get_state_dict

    model_state, optim_state = get_state_dict(par.model, optimizer)
    return {"model": model_state, "optimizer": optim_state}


def load_sharded_state(par: Parallel, optimizer: torch.optim.Optimizer, state: dict) -> None:
    from torch.distributed.checkpoint.state_dict import set_state_dict

    set_state_dict(
        par.model,
        optimizer,
        model_state_dict=state["model"],
        optim_state_dict=state["optimizer"],
    )


def full_cpu_state_dict(par: Parallel) -> dict[str, torch.Tensor]:
    """The whole model on the CPU for model.pt; collective under FSDP, complete on rank 0."""
    if par.mode == "fsdp":
        from torch.distributed.checkpoint.state_dict import (
            StateDictOptions,
            get_model_state_dict,
        )

        options = StateDictOptions(full_state_dict=True, cpu_offload=True)
        return dict(get_model_state_dict(par.model, options=options))  # type: ignore[arg-type]
    return {k: v.detach().cpu() for k, v in unwrapped(par.model).state_dict().items()}

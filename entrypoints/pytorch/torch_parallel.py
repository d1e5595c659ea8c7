"""Everything that differs between layouts (DDP, FSDP/HSDP, ZeRO-1, TP, PP, XLA) behind one API.

The training loop calls wrap(), grad_sync(), step() and the state-dict helpers and never asks
which mode it runs in; the checkpoint code uses the same helpers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

import smenv
import torch_config
import torch_dist
import torch_mesh
import torch_models
import torch_pipeline
import torch_zero1

MESH_ORDER = ("pp", "dp_replicate", "dp_shard", "tp")  # tp innermost: a host's fastest links


@dataclass
class Parallel:
    """The model as the loop sees it: the wrapped module, the forward and the device mesh."""

    model: nn.Module  # DDP / FSDP-sharded / plain / a pipeline rank's parts; state dicts from here
    forward: Callable[[torch.Tensor], torch.Tensor]
    mode: str  # "ddp", "fsdp", "xla" or "single": the data parallelism
    ctx: torch_dist.DistContext
    layout: torch_mesh.Layout = field(default_factory=torch_mesh.Layout)
    mesh: Any = None  # DeviceMesh named by MESH_ORDER, when the layout needs one
    pipeline: torch_pipeline.Pipeline | None = None
    dp_group: Any = None  # gradients are reduced here by hand (DDP or ZeRO-1 beside TP or PP)
    zero1: bool = False  # AdamW's state sharded over the data-parallel ranks
    bf16_weights: bool = False  # ZeRO-1 beside TP/PP under bf16: the weights are bf16 themselves
    loss_parallel: bool = False  # the logits are a DTensor split by vocabulary over TP
    engine: Any = None  # mode "deepspeed": the DeepSpeed engine (model is the engine too)
    engine_optimizer: Any = None  # ... and the optimizer deepspeed.initialize built

    @property
    def uses_dcp(self) -> bool:
        """Checkpoints as torch.distributed.checkpoint shards (anything with DTensors or stages)."""
        return self.mode == "fsdp" or not self.layout.is_data_parallel_only

    def local_rank_in(self, dim: str) -> int:
        return 0 if self.mesh is None else int(self.mesh[dim].get_local_rank())

    @property
    def dp_rank(self) -> int:
        if self.mesh is None:
            return self.ctx.rank
        return self.local_rank_in("dp_replicate") * self.layout.dp_shard + self.local_rank_in(
            "dp_shard"
        )


def parallelize(
    model: nn.Module,
    ctx: torch_dist.DistContext,
    cfg: torch_config.TrainConfig,
    layout: torch_mesh.Layout,
) -> Parallel:
    """Compose the parallelisms in one order, torchtitan's: the device mesh, the pipeline split
    (each rank keeps its stages), TP on each stage's blocks (sequence-parallel boundaries are per
    stage, so the split comes first), activation checkpointing (inside the model), compile per
    block, then FSDP/HSDP or DDP over the data-parallel dims. One process and XLA need no mesh and
    return early; DataParallel and DeepSpeed are other strategies (torch_strategy)."""
    if ctx.kind == "xla":
        if cfg.parallel == "fsdp" or not layout.is_data_parallel_only:
            raise smenv.UsageError("on Neuron only --parallel ddp runs; drop FSDP, TP and PP")
        # xm.reduce_gradients all-reduces across replicas, so no DDP wrapper on XLA.
        wrapped = _compiled(model.to(ctx.device), cfg.compile)
        return Parallel(wrapped, wrapped, "xla", ctx, layout)
    if cfg.parallel == "ddp" and layout.is_data_parallel_only:
        return _plain_ddp(model, ctx, cfg, layout)
    mesh = build_mesh(ctx, layout)
    zero1 = shards_optimizer(cfg, layout)
    bf16_weights = weights_in_bf16(cfg, layout)
    model.to(ctx.device, torch.bfloat16 if bf16_weights else None)
    pipe = (
        torch_pipeline.split(model, cfg, int(mesh["pp"].get_local_rank()))
        if cfg.pipelined
        else None
    )
    holder: nn.Module = pipe.holder if pipe else model
    if layout.tp > 1:
        parts: list[nn.Module] = list(pipe.parts) if pipe else [holder]
        apply_tensor_parallel(
            holder, mesh["tp"], parts if cfg.sequence_parallel else None, cfg.loss_parallel
        )
    _compile_blocks(holder, cfg.compile)
    par = Parallel(
        holder,
        holder,
        cfg.parallel,
        ctx,
        layout,
        mesh,
        pipe,
        zero1=zero1,
        bf16_weights=bf16_weights,
        loss_parallel=cfg.loss_parallel,
    )
    if cfg.parallel == "fsdp":
        _fully_shard(holder, pipe, _dp_mesh(mesh, layout), cfg)
    elif layout.dp > 1:
        par.dp_group = mesh["dp_replicate"].get_group()
    if pipe is not None:
        torch_pipeline.build_schedule(pipe, cfg, mesh["pp"].get_group(), ctx.device, loss_fn)
    return par


def shards_optimizer(cfg: torch_config.TrainConfig, layout: torch_mesh.Layout) -> bool:
    """--zero1 over more than one data-parallel rank (with one there is nothing to shard)."""
    return cfg.zero1 and layout.dp > 1


def weights_in_bf16(cfg: torch_config.TrainConfig, layout: torch_mesh.Layout) -> bool:
    """ZeRO-1 beside TP or PP under bf16 trains bf16 weights; the fp32 master of each rank's
    slice is the optimizer's (torch_zero1), as in Megatron's distributed optimizer."""
    return shards_optimizer(cfg, layout) and cfg.precision == "bf16"


def _plain_ddp(
    model: nn.Module,
    ctx: torch_dist.DistContext,
    cfg: torch_config.TrainConfig,
    layout: torch_mesh.Layout,
) -> Parallel:
    model = _compiled(model.to(ctx.device), cfg.compile)
    if ctx.world_size == 1:
        return Parallel(model, model, "single", ctx, layout)
    wrapped = _ddp(model, ctx)
    settle_buckets(wrapped, ctx, cfg)
    return Parallel(wrapped, wrapped, "ddp", ctx, layout, zero1=cfg.zero1)


def data_parallel(
    model: nn.Module,
    ctx: torch_dist.DistContext,
    cfg: torch_config.TrainConfig,
    layout: torch_mesh.Layout,
) -> Parallel:
    """``--parallel dp``: DataParallel over one host's GPUs, in one process (no mesh)."""
    import torch_dp

    wrapped, note = torch_dp.wrap(_compiled(model, cfg.compile), ctx)
    print(note, flush=True)  # one process: it is the main one
    if wrapped is model:
        return Parallel(model, model, "single", ctx, layout)
    return Parallel(wrapped, wrapped, "dp", ctx, layout)


def loss_fn(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits.float().flatten(0, 1), targets.flatten())


def build_mesh(ctx: torch_dist.DistContext, layout: torch_mesh.Layout) -> Any:
    from torch.distributed.device_mesh import init_device_mesh

    shape = tuple(getattr(layout, dim) for dim in MESH_ORDER)
    return init_device_mesh(ctx.device.type, shape, mesh_dim_names=MESH_ORDER)


def _dp_mesh(mesh: Any, layout: torch_mesh.Layout) -> Any:
    # Replicate across groups, shard within one (HSDP): all-gathers stay inside a host's links.
    return mesh["dp_replicate", "dp_shard"] if layout.dp_replicate > 1 else mesh["dp_shard"]


def apply_tensor_parallel(
    model: nn.Module,
    tp_mesh: Any,
    sequence_parallel: list[nn.Module] | None = None,
    loss_parallel: bool = False,
) -> None:
    """Megatron-style TP per block: q, k, v and the MLP's first layer split column-wise (by
    heads), the projections row-wise, so each block needs one all-reduce forward and backward.

    With ``sequence_parallel`` (the model's parts: the whole model, or each pipeline stage) the
    norms and dropout run on this rank's slice of the sequence, as torchtitan does: each
    all-reduce becomes a reduce-scatter into sequence shards plus an all-gather before the next
    attention or MLP, and the activations between them are 1/tp the size. A part enters sequence
    shards at its first block and leaves them (all-gathered) after its last, so embeddings, final
    norm, head and pipeline stage boundaries see whole sequences. The ranks of a TP group share a
    random stream, so dropout masks repeat across sequence shards (as they repeat across heads).

    The token embedding is split by vocabulary (row-wise, as torchtitan's plan does): each rank
    looks up the tokens its rows hold and an all-reduce sums the partial rows, exact since one
    rank's row is the token's; a rank keeps 1/tp of the largest matrix of a large-vocabulary
    model (Llama 3's 128,256 words: a billion parameters at 70B's width).

    With ``loss_parallel`` the head is split column-wise too, by vocabulary, and hands the loss
    its logits as a DTensor sharded on the vocabulary (torchtitan's loss_parallel): each rank
    holds 1/tp of the logits and of their gradients, and cross_entropy runs on the shards under
    torch's ``loss_parallel()`` (torch_step.compute).
    """
    from torch.distributed.tensor import Replicate, Shard
    from torch.distributed.tensor.parallel import (
        ColwiseParallel,
        PrepareModuleInput,
        PrepareModuleOutput,
        RowwiseParallel,
        SequenceParallel,
        parallelize_module,
    )

    plan: dict[str, Any] = {
        "attn.q": ColwiseParallel(),
        "attn.k": ColwiseParallel(),
        "attn.v": ColwiseParallel(),
        "attn.proj": RowwiseParallel(),
        "mlp.0": ColwiseParallel(),
        "mlp.2": RowwiseParallel(),
    }
    if sequence_parallel is not None:
        gather = PrepareModuleInput(
            input_layouts=(Shard(1),), desired_input_layouts=(Replicate(),), use_local_output=True
        )
        plan.update(
            {
                "ln1": SequenceParallel(),
                "attn": gather,
                "attn.proj": RowwiseParallel(output_layouts=Shard(1)),
                "ln2": SequenceParallel(),
                "mlp": gather,
                "mlp.2": RowwiseParallel(output_layouts=Shard(1)),
            }
        )
    for block in torch_models.shard_units(model):
        parallelize_module(block, tp_mesh, plan)  # type: ignore[arg-type]
    embedding = getattr(model, "tok_emb", None)
    if embedding is not None:  # the first stage's, or the whole model's: split by vocabulary
        parallelize_module(embedding, tp_mesh, RowwiseParallel(input_layouts=Replicate()))
        # DTensor's embedding backward hands back the whole table's gradient (Replicate):
        # keep this rank's rows, as the weight is kept (no communication: a local slice)
        embedding.weight.register_post_accumulate_grad_hook(_grad_placed_as_weight)
    head = getattr(model, "head", None)
    if loss_parallel and head is not None:  # a pipeline's last stage, or the whole model
        parallelize_module(
            head, tp_mesh, ColwiseParallel(output_layouts=Shard(-1), use_local_output=False)
        )
    for part in sequence_parallel or []:
        blocks = torch_models.shard_units(part)
        scatter = PrepareModuleInput(
            input_layouts=(Replicate(),), desired_input_layouts=(Shard(1),), use_local_output=True
        )
        gather_out = PrepareModuleOutput(
            output_layouts=(Shard(1),), desired_output_layouts=(Replicate(),), use_local_output=True
        )
        parallelize_module(blocks[0], tp_mesh, scatter)  # type: ignore[arg-type]
        parallelize_module(blocks[-1], tp_mesh, gather_out)  # type: ignore[arg-type]


def _grad_placed_as_weight(weight: Any) -> None:
    from torch.distributed.tensor import DTensor

    grad = weight.grad
    if isinstance(grad, DTensor) and grad.placements != weight.placements:
        # a copy of this rank's rows: the slice alone would keep the whole table's storage alive
        rows = grad.redistribute(weight.device_mesh, weight.placements).to_local().clone()
        weight.grad = DTensor.from_local(rows, weight.device_mesh, weight.placements)


def _compiled(model: nn.Module, compile: bool) -> nn.Module:
    if compile:
        model.compile()
    return model


def _compile_blocks(model: nn.Module, compile: bool) -> None:
    # Per block, as torchtitan does: FSDP's hooks stay between the compiled regions.
    units = torch_models.shard_units(model) or [model]
    for unit in units:
        _compiled(unit, compile)


def _ddp(model: nn.Module, ctx: torch_dist.DistContext) -> nn.Module:
    from torch.nn.parallel import DistributedDataParallel

    device_ids = [ctx.device.index] if ctx.device.type == "cuda" else None
    # Gradients as views into DDP's all-reduce buckets: one fp32 copy of the gradients, not two
    # (the buckets and .grad), 4 bytes per parameter less at peak; the all-reduce is the same.
    return DistributedDataParallel(model, device_ids=device_ids, gradient_as_bucket_view=True)


def settle_buckets(
    ddp: nn.Module, ctx: torch_dist.DistContext, cfg: torch_config.TrainConfig
) -> None:
    """Give DDP its final gradient buckets before the first step, in every run alike.

    DDP rebuckets its gradients once, after the first backward, in the order they became ready.
    Until then it reduces in its initial buckets, so a run resumed at step N would reduce step
    N+1 in a layout the uninterrupted run left behind at step 1. On more than two ranks the ring
    all-reduce sums an element in an order set by its offset in the bucket, so that step would
    differ by an ulp and resume would not be bit-identical. One throwaway forward and backward
    (gradients dropped, random streams untouched) makes every run rebucket from the same graph
    before step 1; it costs one step's compute at start-up.
    """
    tokens = torch.zeros((cfg.batch_size, cfg.seq_len), dtype=torch.long, device=ctx.device)
    devices = [ctx.device] if ctx.device.type == "cuda" else []
    rng = torch.random.fork_rng(devices=devices, device_type=ctx.device.type)
    with rng, autocast(ctx, cfg.precision or "fp32"):
        ddp(tokens).float().sum().backward()
    ddp.zero_grad(set_to_none=True)


def _fully_shard(
    model: nn.Module,
    pipe: torch_pipeline.Pipeline | None,
    mesh: Any,
    cfg: torch_config.TrainConfig,
) -> None:
    """FSDP2: shard each transformer block, then each root (the model, or each pipeline stage)."""
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    policy = MixedPrecisionPolicy()
    if cfg.precision == "bf16":
        # bf16 parameters for compute and all-gathers (half the bytes), fp32 gradient reduction.
        policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for unit in torch_models.shard_units(model):
        fully_shard(unit, mesh=mesh, mp_policy=policy)
    for root in pipe.parts if pipe else [model]:
        fully_shard(root, mesh=mesh, mp_policy=policy)


@contextlib.contextmanager
def grad_sync(par: Parallel, enabled: bool) -> Iterator[None]:
    """Skip the gradient all-reduce on all but the last micro-batch of an accumulation."""
    if par.mode == "ddp" and not enabled:
        with par.model.no_sync():  # type: ignore[operator]
            yield
        return
    if par.mode == "fsdp" and par.pipeline is None:
        par.model.set_requires_gradient_sync(enabled)  # type: ignore[operator]
    yield


def autocast(ctx: torch_dist.DistContext, precision: str) -> contextlib.AbstractContextManager[Any]:
    if precision != "bf16" or ctx.device.type not in ("cuda", "cpu"):
        return contextlib.nullcontext()
    return torch.autocast(device_type=ctx.device.type, dtype=torch.bfloat16)


def make_optimizer(par: Parallel, cfg: torch_config.TrainConfig) -> torch.optim.Optimizer:
    """AdamW over this rank's parameters; with --zero1 each rank keeps only its share of its
    state: beside TP or PP, torch_zero1's reduce-scatter, step and all-gather; under plain DDP,
    ZeroRedundancyOptimizer (DDP all-reduces, it updates its shard and broadcasts the weights)."""
    params = list(par.model.parameters())
    if par.zero1 and par.dp_group is not None:
        tp = par.mesh["tp"].get_group() if par.layout.tp > 1 else None
        pp = par.mesh["pp"].get_group() if par.pipeline is not None else None
        return torch_zero1.ShardedAdamW(
            params, par.dp_group, tp, pp, lr=cfg.lr, weight_decay=cfg.weight_decay
        )
    if par.zero1:
        from torch.distributed.optim import ZeroRedundancyOptimizer

        return ZeroRedundancyOptimizer(
            params, optimizer_class=torch.optim.AdamW, lr=cfg.lr, weight_decay=cfg.weight_decay
        )
    return torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay)


def state_elements(optimizer: Any) -> int:
    """Elements of optimizer state this rank holds (AdamW: two per parameter it steps, three
    with an fp32 master of bf16 weights; ZeRO-1: about 1/dp of that), in metrics.json to show
    what sharding saved."""
    inner = getattr(optimizer, "optim", optimizer)  # ZeroRedundancyOptimizer's local AdamW
    moments = sum(
        torch_dist.local_tensor(value).numel()
        for state in getattr(inner, "state", {}).values()
        for value in state.values()
        if isinstance(value, torch.Tensor) and value.dim() > 0
    )
    if isinstance(optimizer, torch_zero1.ShardedAdamW) and optimizer.has_master:
        moments += sum(master.numel() for master in optimizer.masters)  # bf16 weights' fp32
    return moments


def step(par: Parallel, optimizer: torch.optim.Optimizer, max_grad_norm: float) -> None:
    """Reduce (XLA, or DDP beside TP/PP), clip and apply the gradients."""
    xm = par.ctx.xm
    if par.mode == "xla" and xm is not None:
        # xm.optimizer_step() is reduce_gradients() + step(); split here so clipping sees the
        # all-reduced gradients, as DDP's clipping does.
        xm.reduce_gradients(optimizer)
    if isinstance(optimizer, torch_zero1.ShardedAdamW):
        optimizer.reduce_gradients()
        if max_grad_norm > 0:
            optimizer.clip_(max_grad_norm)
        optimizer.step()  # and all-gathers the updated weights
        return
    if par.dp_group is not None:
        _average_gradients(par)
    if max_grad_norm > 0:
        clip_gradients(par, max_grad_norm)
    optimizer.step()
    if xm is not None:
        xm.mark_step()  # cut the lazy graph here so each step compiles to the same program


def _average_gradients(par: Parallel) -> None:
    size = dist.get_world_size(par.dp_group)
    for param in par.model.parameters():
        if param.grad is not None:
            grad = torch_dist.local_tensor(param.grad)
            dist.all_reduce(grad, group=par.dp_group)
            grad.div_(size)


def clip_gradients(par: Parallel, max_norm: float) -> torch.Tensor:
    """clip_grad_norm_ over the whole model: the gradients on each mesh (TP leaves norms and the
    positions off its mesh) normed apart and combined, pipeline stages' norms included."""
    from torch.distributed.tensor import DTensor

    params = [p for p in par.model.parameters() if p.grad is not None]
    groups: dict[Any, list[torch.Tensor]] = {}
    for param in params:
        grad = param.grad
        assert grad is not None
        groups.setdefault(grad.device_mesh if isinstance(grad, DTensor) else None, []).append(grad)
    squares = torch.zeros((), dtype=torch.float32, device=par.ctx.device)
    for grads in groups.values():  # one norm per mesh: TP+FSDP blocks, FSDP-only positions
        norm = torch.nn.utils.get_total_norm(grads)
        norm = norm.full_tensor() if isinstance(norm, DTensor) else norm
        squares = squares + norm.float() ** 2
    if par.pipeline is not None:
        dist.all_reduce(squares, group=par.mesh["pp"].get_group())
    total = squares.sqrt()
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)  # as clip_grads_with_norm_ does
    locals_ = [torch_dist.local_tensor(p.grad) for p in params if p.grad is not None]
    torch._foreach_mul_(locals_, coef)
    return total


def unwrapped(model: nn.Module) -> nn.Module:
    inner = getattr(model, "module", model)  # DDP keeps the real model in .module
    assert isinstance(inner, nn.Module)
    return inner


def local_state(par: Parallel, optimizer: torch.optim.Optimizer) -> dict[str, Any] | None:
    """Model and optimizer state for a rank-0 checkpoint (DDP, ZeRO-1, XLA, single process);
    every rank calls (ZeRO-1 gathers its shards to rank 0), rank 0 gets it, others None."""
    if par.zero1:
        optimizer.consolidate_state_dict(to=0)  # type: ignore[attr-defined]
    if not par.ctx.is_main:
        return None
    return {
        "model": unwrapped(par.model).state_dict(),
        "optimizer": optimizer.state_dict(),
    }


def load_local_state(par: Parallel, optimizer: torch.optim.Optimizer, state: dict) -> None:
    unwrapped(par.model).load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])


def _dcp_options() -> Any:
    from torch.distributed.checkpoint.state_dict import StateDictOptions

    # Flattened optimizer state (one key per parameter and setting) has the same keys whatever
    # the layout, so a checkpoint written by pipeline stages loads into one process and back.
    return StateDictOptions(flatten_optimizer_state_dict=True)


def sharded_state(par: Parallel, optimizer: torch.optim.Optimizer) -> dict[str, Any]:
    """Model and optimizer state for torch.distributed.checkpoint, named as in the whole model."""
    from torch.distributed.checkpoint.state_dict import get_state_dict

    if isinstance(optimizer, torch_zero1.ShardedAdamW):
        optimizer = optimizer.standin()  # whole AdamW state under the model's names
    elif par.zero1:
        raise smenv.UsageError("a sharded checkpoint cannot resume under --zero1; drop --zero1")
    model_state, optim_state = get_state_dict(
        unwrapped(par.model), optimizer, options=_dcp_options()
    )
    return {"model": model_state, "optimizer": optim_state}


def load_sharded_state(par: Parallel, optimizer: torch.optim.Optimizer, state: dict) -> None:
    from torch.distributed.checkpoint.state_dict import (
        get_state_dict,
        set_model_state_dict,
        set_state_dict,
    )

    model = unwrapped(par.model)
    if isinstance(optimizer, torch_zero1.ShardedAdamW):
        # Into a standin's own fp32 tensors, found by key (get_state_dict hands out references):
        # set_state_dict's AdamW.load_state_dict would cast the state to the weights' bf16.
        set_model_state_dict(model, state["model"], options=_dcp_options())
        plain = optimizer.standin()
        _, slots = get_state_dict(model, plain, options=_dcp_options())
        for key, loaded in state["optimizer"].items():
            slot = slots.get(key)
            if isinstance(slot, torch.Tensor):
                slot.copy_(loaded)
        optimizer.absorb(plain)
        return
    set_state_dict(
        model,
        optimizer,
        model_state_dict=state["model"],
        optim_state_dict=state["optimizer"],
        options=_dcp_options(),
    )


def full_cpu_state_dict(par: Parallel) -> dict[str, torch.Tensor]:
    """The whole model on the CPU for model.pt; collective when sharded, complete on rank 0."""
    if not par.uses_dcp:
        return {k: v.detach().cpu() for k, v in unwrapped(par.model).state_dict().items()}
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

    if par.pipeline is None:
        options = StateDictOptions(full_state_dict=True, cpu_offload=True)
        return dict(get_model_state_dict(par.model, options=options))  # type: ignore[arg-type]
    # Each stage's full tensors (gathered across its dp and tp ranks), then every stage's to
    # rank 0 from the first rank of each stage.
    full = get_model_state_dict(par.model, options=StateDictOptions(full_state_dict=True))
    mine = {k: v.detach().cpu() for k, v in full.items() if isinstance(v, torch.Tensor)}
    lead = par.dp_rank == 0 and par.local_rank_in("tp") == 0
    parts: list[Any] = [None] * par.ctx.world_size if par.ctx.is_main else []
    dist.gather_object(mine if lead else {}, parts if par.ctx.is_main else None, dst=0)
    return {k: v for part in parts for k, v in (part or {}).items()}

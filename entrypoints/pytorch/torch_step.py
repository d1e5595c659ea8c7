"""One optimizer step of the mesh modes (DDP, FSDP/HSDP, ZeRO-1, TP, PP, DataParallel, XLA).

The mode-specific parts (gradient sync, reduction, clipping) are torch_parallel's; this module
only runs the micro-batches through them, so the same step serves every layout.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch

import torch_config
import torch_datafeed
import torch_dist
import torch_parallel
import torch_pipeline


@contextlib.contextmanager
def compute(par: torch_parallel.Parallel, cfg: torch_config.TrainConfig) -> Iterator[None]:
    """Autocast (unless the weights are bf16 already: FSDP2's MixedPrecisionPolicy casts them,
    ZeRO-1 beside TP/PP keeps them so) and activation offload."""
    with contextlib.ExitStack() as stack:
        if par.mode != "fsdp" and not par.bf16_weights:
            stack.enter_context(torch_parallel.autocast(par.ctx, cfg.precision or "fp32"))
        if par.loss_parallel:  # cross_entropy on vocabulary shards, forward and backward
            from torch.distributed.tensor.parallel import loss_parallel

            stack.enter_context(loss_parallel())
        if cfg.activation_offload:
            pin = par.ctx.device.type == "cuda"
            stack.enter_context(torch.autograd.graph.save_on_cpu(pin_memory=pin))
        yield


def train_step(
    step: int,
    par: torch_parallel.Parallel,
    optimizer: torch.optim.Optimizer,
    batches: torch_datafeed.BatchSource,
    cfg: torch_config.TrainConfig,
) -> tuple[torch.Tensor, float]:
    """One optimizer step; the mean loss (not synced to host) and its weight (0 on ranks that
    hold no loss: pipeline stages before the last)."""
    optimizer.zero_grad(set_to_none=True)
    if par.pipeline is not None:
        inputs, targets = (t.to(par.ctx.device) for t in batches.get(step, 0))
        with compute(par, cfg):
            loss = torch_pipeline.run_step(par.pipeline, inputs, targets)
        torch_parallel.step(par, optimizer, cfg.max_grad_norm)
        zero = torch.zeros((), device=par.ctx.device)
        return (zero, 0.0) if loss is None else (loss, 1.0)
    total = torch.zeros((), device=par.ctx.device)
    for micro in range(cfg.grad_accum):
        inputs, targets = (t.to(par.ctx.device) for t in batches.get(step, micro))
        with torch_parallel.grad_sync(par, micro == cfg.grad_accum - 1), compute(par, cfg):
            loss = torch_parallel.loss_fn(par.forward(inputs), targets)
            (loss / cfg.grad_accum).backward()
        total += torch_dist.local_tensor(loss.detach()) / cfg.grad_accum
    torch_parallel.step(par, optimizer, cfg.max_grad_norm)
    return total, 1.0

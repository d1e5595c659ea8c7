"""``--parallel dp``: torch.nn.DataParallel, one process driving every visible GPU of the host.

DataParallel is the simplest multi-GPU mode and the slowest: each step the main GPU scatters the
batch, replicates the module onto every GPU, gathers the outputs back and reduces the gradients
onto itself, all from one Python process whose threads contend for the GIL. DDP runs one process
per GPU, keeps a replica on each and all-reduces gradients in buckets while backward still runs,
so it is faster on one host and the only choice across hosts. On a CPU (or one GPU) there is
nothing to split and the run is the plain single-process one.
"""

from __future__ import annotations

import torch
from torch import nn

import torch_dist

WHY_DDP = (
    "DataParallel is slower than DDP (--parallel ddp under torchrun): one process scatters each "
    "batch, replicates the model onto every GPU each step, gathers outputs and reduces gradients "
    "on GPU 0 (the main-GPU bottleneck), and its threads share one GIL; DDP keeps a process and "
    "a replica per GPU and overlaps the gradient all-reduce with backward"
)


def wrap(model: nn.Module, ctx: torch_dist.DistContext) -> tuple[nn.Module, str]:
    """The model on the device, wrapped over every visible GPU when there is more than one;
    and the note saying what ran."""
    model = model.to(ctx.device)
    gpus = torch.cuda.device_count() if ctx.device.type == "cuda" else 0
    if gpus < 2:
        where = "one GPU" if gpus == 1 else "a CPU"
        return (
            model,
            f"parallel dp on {where}: nothing to split, a plain single-process run; {WHY_DDP}",
        )
    wrapped = nn.DataParallel(model, device_ids=list(range(gpus)), output_device=ctx.device.index)
    return wrapped, f"parallel dp: DataParallel over {gpus} GPUs; {WHY_DDP}"

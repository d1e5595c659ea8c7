"""How the PyTorch entry point runs its training loop in each parallelism family, chosen once.

``choose`` (called once, in train_pytorch.main) returns a Strategy: how to wrap the model, which
optimizer it steps, one train step, the checkpointer and the whole model for model.pt. The loop
calls these in one order and never asks which mode it runs:

    mesh → TP → PP → FSDP/DDP   strategy.wrap: torch_parallel.parallelize (or DataParallel, or
                                DeepSpeed's engine)
    optimizer                   strategy.make_optimizer
    checkpointing               strategy.checkpointer (crash-safe, torch_ckpt's scheme)
    train steps                 strategy.train_step
    model.pt                    strategy.full_state

The parameter server (--parallel ps) runs its own process roles over RPC (torch_ps), not this
loop; its metric lines and outputs come from torch_outputs, as the loop's do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

import torch_ckpt
import torch_config
import torch_datafeed
import torch_deepspeed
import torch_deepspeed_ckpt
import torch_dist
import torch_mesh
import torch_parallel
import torch_step

Wrap = Callable[
    [nn.Module, torch_dist.DistContext, torch_config.TrainConfig, torch_mesh.Layout],
    torch_parallel.Parallel,
]
Step = Callable[
    [
        int,
        torch_parallel.Parallel,
        torch.optim.Optimizer,
        torch_datafeed.BatchSource,
        torch_config.TrainConfig,
    ],
    tuple[torch.Tensor, float],
]


@dataclass(frozen=True)
class Strategy:
    """What differs between the families of modes, as the loop uses it."""

    name: str
    wrap: Wrap
    make_optimizer: Callable[[torch_parallel.Parallel, torch_config.TrainConfig], Any]
    train_step: Step
    checkpointer: type[torch_ckpt.Checkpointer]
    full_state: Callable[[torch_parallel.Parallel], dict[str, torch.Tensor]]
    always_needs_group: bool  # even on a mesh of one data-parallel dim


# DDP, FSDP/HSDP, ZeRO-1, TP, PP and XLA: one mesh, composed by parallelize.
MESH = Strategy(
    "mesh",
    torch_parallel.parallelize,
    torch_parallel.make_optimizer,
    torch_step.train_step,
    torch_ckpt.Checkpointer,
    torch_parallel.full_cpu_state_dict,
    always_needs_group=False,
)
# torch.nn.DataParallel: one process over one host's GPUs, stepped and saved as plain DDP is.
DATA_PARALLEL = Strategy(
    "dp",
    torch_parallel.data_parallel,
    torch_parallel.make_optimizer,
    torch_step.train_step,
    torch_ckpt.Checkpointer,
    torch_parallel.full_cpu_state_dict,
    always_needs_group=False,
)
# DeepSpeed ZeRO 1-3: its engine wraps, steps and checkpoints the model.
DEEPSPEED = Strategy(
    "deepspeed",
    torch_deepspeed.initialize,
    torch_deepspeed.optimizer,
    torch_deepspeed.train_step,
    torch_deepspeed_ckpt.Checkpointer,
    torch_deepspeed.full_state_dict,
    always_needs_group=True,
)


def choose(cfg: torch_config.TrainConfig) -> Strategy:
    if torch_deepspeed.enabled(cfg):
        return DEEPSPEED
    return DATA_PARALLEL if cfg.parallel == "dp" else MESH


def needs_group(
    strategy: Strategy, cfg: torch_config.TrainConfig, layout: torch_mesh.Layout
) -> bool:
    """Whether the run needs a process group (plain DDP of one process does not)."""
    meshed = cfg.parallel == "fsdp" or not layout.is_data_parallel_only
    return strategy.always_needs_group or meshed

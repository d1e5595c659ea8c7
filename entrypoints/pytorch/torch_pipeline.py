"""Pipeline parallelism for the built-in GPT: cut it into stages and run a schedule over them.

Stage ``s`` of ``S`` holds a contiguous run of blocks; the first also holds the embeddings, the
last the final norm and head, where the loss is computed. A rank holds ``--stages_per_rank``
stages, looped (rank r: stages r, r + pp, ...), as interleaved 1F1B expects. Each stage is a GPT
view sharing modules with the rank's ``holder`` (the union of its stages), whose state-dict names
are the whole model's, so checkpoints reshard across pipeline layouts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

import torch_config
import torch_dist
import torch_models


@dataclass
class Pipeline:
    """This rank's stages and the schedule that drives them."""

    holder: torch_models.GPT  # every part this rank holds, under the whole model's names
    parts: list[torch_models.GPT]  # one per stage, in stage order
    stage_ids: list[int]
    n_stages: int
    schedule: Any = None  # a torch.distributed.pipelining schedule, set by build_schedule

    @property
    def has_first(self) -> bool:
        return 0 in self.stage_ids

    @property
    def has_last(self) -> bool:
        return self.n_stages - 1 in self.stage_ids


def block_ranges(n_layer: int, n_stages: int) -> list[list[int]]:
    """Contiguous blocks per stage, as even as possible (earlier stages take the remainder)."""
    base, extra = divmod(n_layer, n_stages)
    ranges, start = [], 0
    for stage in range(n_stages):
        size = base + (1 if stage < extra else 0)
        ranges.append(list(range(start, start + size)))
        start += size
    return ranges


def split(model: nn.Module, cfg: torch_config.TrainConfig, pp_rank: int) -> Pipeline:
    """This rank's stages of ``model`` (a GPT), sharing its modules."""
    assert isinstance(model, torch_models.GPT)
    pp, per_rank = cfg.pipeline_parallel_degree, cfg.stages_per_rank
    n_stages = pp * per_rank
    ranges = block_ranges(cfg.n_layer, n_stages)
    stage_ids = [pp_rank + i * pp for i in range(per_rank)]
    parts = [model.part(ranges[s], s == 0, s == n_stages - 1) for s in stage_ids]
    mine = sorted(b for s in stage_ids for b in ranges[s])
    holder = model.part(mine, 0 in stage_ids, n_stages - 1 in stage_ids)
    return Pipeline(holder=holder, parts=parts, stage_ids=stage_ids, n_stages=n_stages)


def build_schedule(
    pipe: Pipeline,
    cfg: torch_config.TrainConfig,
    group: Any,
    device: torch.device,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
) -> None:
    """Wrap each part in a PipelineStage and attach the chosen schedule to ``pipe``."""
    from torch.distributed.pipelining import (
        PipelineStage,
        Schedule1F1B,
        ScheduleGPipe,
        ScheduleInterleaved1F1B,
    )

    stages: list[Any] = [
        PipelineStage(part, sid, pipe.n_stages, device, group=group)
        for part, sid in zip(pipe.parts, pipe.stage_ids, strict=True)
    ]
    micro = cfg.n_microbatches
    if cfg.pipeline_schedule == "interleaved_1f1b":
        pipe.schedule = ScheduleInterleaved1F1B(stages, micro, loss_fn=loss_fn)
    else:
        single = ScheduleGPipe if cfg.pipeline_schedule == "gpipe" else Schedule1F1B
        pipe.schedule = single(stages[0], micro, loss_fn=loss_fn)


def run_step(pipe: Pipeline, inputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor | None:
    """Forward and backward of one batch through the pipeline (micro-batched by the schedule);
    the mean loss on the rank holding the last stage, None elsewhere."""
    losses: list[torch.Tensor] = []
    args = (inputs,) if pipe.has_first else ()
    if pipe.has_last:
        pipe.schedule.step(*args, target=targets, losses=losses)
        # a loss computed on vocabulary shards (loss_parallel) is a replicated DTensor
        return torch.stack([torch_dist.local_tensor(loss.detach()) for loss in losses]).mean()
    pipe.schedule.step(*args)
    return None

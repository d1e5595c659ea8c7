"""The device-mesh rule: how a PyTorch job's ranks split into dp_replicate × dp_shard × pp × tp.

The one definition, for the job (torch_config.resolve_layout) and for `sagelaunch validate` and
`plan` (cli/sagelaunch/plan/mesh.py imports it as ``sagelaunch.entrypoints.pytorch.torch_mesh``).
That is why it imports the standard library only and no sibling module: the CLI loads it without
torch and without the entry points on sys.path.

The tensor- and pipeline-parallel degrees must divide the world size; the rest is data
parallelism, replicated under DDP and sharded otherwise, in ``dp_replicate`` HSDP groups (one per
host under ``sharding hybrid``, where a host's ranks form a shard group).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

MESH_DIMS = ("dp_replicate", "dp_shard", "pp", "tp")


@dataclass(frozen=True)
class Layout:
    """The device mesh's dims; their product is the world size."""

    dp_replicate: int = 1
    dp_shard: int = 1
    pp: int = 1
    tp: int = 1

    @property
    def dp(self) -> int:
        return self.dp_replicate * self.dp_shard

    @property
    def world_size(self) -> int:
        return self.dp * self.pp * self.tp

    @property
    def is_data_parallel_only(self) -> bool:
        return self.pp == 1 and self.tp == 1

    def describe(self) -> str:
        return " × ".join(f"{name} {getattr(self, name)}" for name in MESH_DIMS)


@dataclass(frozen=True)
class MeshRequest:
    """The hyperparameters the mesh depends on, decoded (names and defaults as the job's)."""

    parallel: str = "ddp"
    sharding: str = "full"
    dp_replicate: int = 0  # 0: 1, or one replica per host under sharding hybrid
    tensor_parallel_degree: int = 1
    pipeline_parallel_degree: int = 1


@dataclass(frozen=True)
class Spelling:
    """How a message names a setting: as the job's option or as the launch config's key."""

    option: Callable[[str], str]
    setting: Callable[[str, str], str]
    world: str  # what the world size is, for a reader who did not choose it directly


JOB = Spelling(lambda key: f"--{key}", lambda key, value: f"--{key} {value}", "")
CONFIG = Spelling(
    lambda key: key,
    lambda key, value: f"{key}: {value}",
    " (instance_count × devices per instance)",
)


def resolve(
    request: MeshRequest, world_size: int, hybrid_shard: int, spelling: Spelling = JOB
) -> Layout | list[str]:
    """The mesh of ``world_size`` ranks, or every problem as a message naming the setting and a
    fix. ``hybrid_shard`` is the shard-group size ``sharding hybrid`` means (one host's ranks)."""
    errors = _request_errors(request, world_size, spelling)
    tp, pp = request.tensor_parallel_degree, request.pipeline_parallel_degree
    if tp < 1 or pp < 1 or request.dp_replicate < 0:
        return errors
    if world_size % (tp * pp):
        opt = spelling.option
        return [
            *errors,
            f"{opt('tensor_parallel_degree')} {tp} × {opt('pipeline_parallel_degree')} {pp} = "
            f"{tp * pp} does not divide the world size {world_size}{spelling.world}; pick "
            "degrees whose product divides it",
        ]
    dp = world_size // (tp * pp)
    replicate = _replicas(request, dp, hybrid_shard, errors, spelling)
    return errors or Layout(replicate, dp // replicate, pp, tp)


def _request_errors(request: MeshRequest, world_size: int, spelling: Spelling) -> list[str]:
    opt, setting = spelling.option, spelling.setting
    errors = [
        f"{opt(name)} must be at least 1, got {value}"
        for name, value in (
            ("tensor_parallel_degree", request.tensor_parallel_degree),
            ("pipeline_parallel_degree", request.pipeline_parallel_degree),
        )
        if value < 1
    ]
    if request.dp_replicate < 0:
        errors.append(f"{opt('dp_replicate')} must not be negative")
    if request.dp_replicate and request.parallel != "fsdp":
        errors.append(
            f"{opt('dp_replicate')} sets HSDP replica groups; add {setting('parallel', 'fsdp')}"
        )
    if request.parallel == "dp" and world_size > 1:
        errors.append(
            f"{setting('parallel', 'dp')} (DataParallel) runs in one process on one host, not "
            f"{world_size} processes; use {setting('parallel', 'ddp')}"
        )
    return errors


def _replicas(
    request: MeshRequest, dp: int, hybrid_shard: int, errors: list[str], spelling: Spelling
) -> int:
    if request.parallel == "ddp":
        return dp  # DDP replicates over every data-parallel rank
    replicate = request.dp_replicate
    if not replicate and request.sharding == "hybrid":
        if dp % hybrid_shard:
            errors.append(
                f"{spelling.setting('sharding', 'hybrid')} needs {dp} data-parallel ranks "
                f"divisible by {hybrid_shard} (one host); set {spelling.option('dp_replicate')} "
                "instead"
            )
            return 1
        replicate = max(dp // hybrid_shard, 1)
    replicate = replicate or 1
    if dp % replicate:
        errors.append(
            f"{spelling.option('dp_replicate')} {replicate} does not divide the {dp} "
            f"data-parallel ranks; use a divisor of {dp}"
        )
        return 1
    return replicate

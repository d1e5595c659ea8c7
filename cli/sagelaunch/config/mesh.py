"""The device mesh a PyTorch job's hyperparameters ask for: dp_replicate × dp_shard × pp × tp.

The same rules entrypoints/torch_config.py applies inside the job, checked before submitting:
the tensor- and pipeline-parallel degrees must divide the world size (instance_count × devices
per instance), the rest is data parallelism (replicated under DDP; sharded under FSDP, with
``dp_replicate`` HSDP groups). Standard library only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

DEGREE_KEYS = ("tensor_parallel_degree", "pipeline_parallel_degree", "dp_replicate")


@dataclass(frozen=True)
class Mesh:
    """Mesh dims; their product is the world size."""

    dp_replicate: int
    dp_shard: int
    pp: int
    tp: int

    def describe(self) -> str:
        return f"{self.dp_replicate} × {self.dp_shard} × {self.pp} × {self.tp}"


def sets_degrees(hyperparameters: Mapping[str, object]) -> bool:
    """True when the hyperparameters name any mesh degree (plan shows the mesh only then)."""
    return any(key in hyperparameters for key in DEGREE_KEYS)


def _value(raw: object) -> object:
    # Hyperparameters may arrive as SageMaker strings ("2", "\"fsdp\"").
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def _degree(hps: Mapping[str, object], key: str, default: int, errors: list[str]) -> int:
    value = _value(hps.get(key, default))
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < 0
        or (value == 0 and key != "dp_replicate")
    ):
        errors.append(f"hyperparameter {key} must be a positive integer, got {value!r}")
        return 1
    return value


def mesh_dims(hyperparameters: Mapping[str, object], world_size: int) -> Mesh | list[str]:
    """The mesh for ``world_size`` ranks, or every problem as a message naming the
    hyperparameters and a fix."""
    errors: list[str] = []
    tp = _degree(hyperparameters, "tensor_parallel_degree", 1, errors)
    pp = _degree(hyperparameters, "pipeline_parallel_degree", 1, errors)
    replicate = _degree(hyperparameters, "dp_replicate", 0, errors)
    fsdp = _value(hyperparameters.get("parallel", "ddp")) == "fsdp"
    if errors:
        return errors
    if world_size % (tp * pp):
        return [
            f"tensor_parallel_degree {tp} × pipeline_parallel_degree {pp} = {tp * pp} does not "
            f"divide the world size {world_size} (instance_count × devices per instance); "
            "pick degrees whose product divides it"
        ]
    dp = world_size // (tp * pp)
    if replicate and not fsdp:
        return ["dp_replicate sets HSDP replica groups; add parallel: fsdp"]
    replicate = dp if not fsdp else (replicate or 1)
    if dp % replicate:
        return [f"dp_replicate {replicate} does not divide the {dp} data-parallel ranks"]
    return Mesh(replicate, dp // replicate, pp, tp)

"""The device mesh a PyTorch job's hyperparameters ask for: dp_replicate × dp_shard × pp × tp.

The rule itself is the entry point's (entrypoints/pytorch/torch_mesh.py, shipped with sagelaunch
and standard library only, so importing it costs no torch): checked here before submitting, with
the hyperparameters decoded from the config and the world size instance_count × devices per
instance. This module only decodes; the job and `validate` cannot disagree on a layout.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

from sagelaunch.entrypoints.pytorch.torch_mesh import CONFIG, Layout, MeshRequest, resolve
from sagelaunch.hyperparameters import decode, integer

DEGREE_KEYS = ("tensor_parallel_degree", "pipeline_parallel_degree", "dp_replicate")
# What else shapes the mesh: checked whenever given, though only degrees make plan show a mesh.
MESH_KEYS = (*DEGREE_KEYS, "parallel", "sharding")


@dataclass(frozen=True)
class Mesh(Layout):
    """The entry point's layout, as the CLI shows it (describe: the four dims alone)."""

    def describe(self) -> str:
        return f"{self.dp_replicate} × {self.dp_shard} × {self.pp} × {self.tp}"


def sets_degrees(hyperparameters: Mapping[str, object]) -> bool:
    """True when the hyperparameters name any mesh degree (plan shows the mesh only then)."""
    return any(key in hyperparameters for key in DEGREE_KEYS)


def shapes_mesh(hyperparameters: Mapping[str, object]) -> bool:
    """True when the hyperparameters set anything the mesh rule reads."""
    return any(key in hyperparameters for key in MESH_KEYS)


def _degree(hps: Mapping[str, object], key: str, default: int, errors: list[str]) -> int:
    value = integer(hps.get(key, default))
    if value is None:
        errors.append(f"hyperparameter {key} must be a positive integer, got {decode(hps[key])!r}")
        return default
    return value


def mesh_request(hyperparameters: Mapping[str, object], errors: list[str]) -> MeshRequest:
    """The mesh's hyperparameters decoded, defaults as the entry point's; ``errors`` gets every
    value that is not an integer where one is needed."""
    return MeshRequest(
        parallel=str(decode(hyperparameters.get("parallel", MeshRequest.parallel))),
        sharding=str(decode(hyperparameters.get("sharding", MeshRequest.sharding))),
        dp_replicate=_degree(hyperparameters, "dp_replicate", MeshRequest.dp_replicate, errors),
        tensor_parallel_degree=_degree(
            hyperparameters, "tensor_parallel_degree", MeshRequest.tensor_parallel_degree, errors
        ),
        pipeline_parallel_degree=_degree(
            hyperparameters,
            "pipeline_parallel_degree",
            MeshRequest.pipeline_parallel_degree,
            errors,
        ),
    )


def mesh_dims(
    hyperparameters: Mapping[str, object], world_size: int, devices_per_host: int = 1
) -> Mesh | list[str]:
    """The mesh for ``world_size`` ranks (``devices_per_host`` per host: the shard group of
    ``sharding: hybrid``), or every problem as a message naming the hyperparameters and a fix."""
    errors: list[str] = []
    request = mesh_request(hyperparameters, errors)
    if errors:
        return errors
    found = resolve(request, world_size, devices_per_host, CONFIG)
    return found if isinstance(found, list) else Mesh(**asdict(found))

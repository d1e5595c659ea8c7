"""Cluster topology: hosts × processes per host = world size, as the container's launcher sees."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from sagelaunch.config import facts, mesh
from sagelaunch.config.model import LaunchConfig
from sagelaunch.strategies import registry
from sagelaunch.strategies.base import TORCHRUN, XGBOOST, Placement


@dataclass(frozen=True)
class Topology:
    hosts: int
    processes_per_host: int
    launcher: str  # python | torchrun | mpirun | xgboost
    mesh: dict[str, int] | None = None  # dp_replicate, dp_shard, pp, tp when degrees are set
    groups: list[dict[str, object]] | None = None  # heterogeneous: config.group_plan

    @property
    def world_size(self) -> int:
        return self.hosts * self.processes_per_host

    def as_json(self) -> dict[str, object]:
        data = {**asdict(self), "world_size": self.world_size}
        for key in ("mesh", "groups"):
            if data[key] is None:
                del data[key]
        return data


def device_mesh(
    config: LaunchConfig, world_size: int, devices_per_host: int
) -> mesh.Mesh | list[str] | None:
    """The PyTorch entry point's mesh for these hyperparameters, or its problems; None when the
    hyperparameters set no tensor/pipeline/replicate degree."""
    if config.framework != "pytorch" or not mesh.sets_degrees(config.hyperparameters):
        return None
    return mesh.mesh_dims(config.hyperparameters, world_size, devices_per_host)


def topology(config: LaunchConfig) -> Topology:
    """What SageMaker will start: the strategy's placement (the toolkit's rule is one process per
    GPU or Neuron core for torchrun and SMDDP, processes_per_host for MPI, one process otherwise).
    With instance groups, hosts and world size are the training group's; ``groups`` lists every
    group."""
    found = _topology(config)
    if not config.compute.groups:
        return found
    from sagelaunch.config.group_plan import group_topology

    groups = group_topology(config, found.launcher, found.processes_per_host)
    return replace(found, groups=groups)


def placement(config: LaunchConfig) -> Placement:
    """The launcher and processes per host of the training hosts: plan.topology's, and what
    `sagelaunch local` asks before the plan exists (its torchrun agents start early)."""
    if config.framework == "xgboost":
        return Placement(XGBOOST, 1)
    per_host = facts.accelerators_per_host(config.compute.instance_type)
    return registry.of(config).placement(config, per_host)


def _topology(config: LaunchConfig) -> Topology:
    hosts = config.compute.instance_count
    placed = placement(config)
    if placed.launcher != TORCHRUN:
        return Topology(hosts, placed.processes_per_host, placed.launcher)
    per_host = facts.accelerators_per_host(config.compute.instance_type)
    dims = device_mesh(config, hosts * placed.processes_per_host, per_host)
    shown = asdict(dims) if isinstance(dims, mesh.Mesh) else None
    return Topology(hosts, placed.processes_per_host, TORCHRUN, shown)

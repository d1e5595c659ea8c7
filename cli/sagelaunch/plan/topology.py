"""Cluster topology: hosts × processes per host = world size, as the container's launcher sees."""

from __future__ import annotations

from dataclasses import asdict

from sagelaunch.catalog import facts
from sagelaunch.config.model import LaunchConfig
from sagelaunch.plan import mesh
from sagelaunch.plan_model import Topology
from sagelaunch.strategies import registry
from sagelaunch.strategies.base import TORCHRUN, XGBOOST, Placement


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
    from sagelaunch.plan.group_plan import group_topology

    groups = group_topology(config, found.launcher, found.processes_per_host)
    return found.model_copy(update={"groups": groups})


def placement(config: LaunchConfig) -> Placement:
    """The launcher and processes per host of the training hosts: plan.topology's, and what
    `sagelaunch local` asks before the plan exists (its torchrun agents start early)."""
    if config.framework == "xgboost":
        return Placement(XGBOOST, 1)
    per_host = facts.accelerators_per_host(config.compute.instance_type)
    return registry.of(config).placement(config, per_host)


def _unknown_per_host(config: LaunchConfig, per_host: int) -> str | None:
    """Why the processes per host cannot be told: an accelerated type the catalog lacks, whose
    count the launcher took from the catalog's default rather than from the config."""
    instance_type = config.compute.instance_type
    if facts.instance(instance_type) is not None or facts.instance_kind(instance_type) == "cpu":
        return None
    if config.framework == "xgboost" or per_host != facts.accelerators_per_host(instance_type):
        return None
    return (
        f"{instance_type} is not in sagelaunch's catalog, so its accelerators per host are "
        "unknown; the container starts one process per accelerator"
    )


def _topology(config: LaunchConfig) -> Topology:
    hosts = config.compute.instance_count
    placed = placement(config)
    found = Topology(
        hosts=hosts,
        processes_per_host=placed.processes_per_host,
        launcher=placed.launcher,
        world_size=hosts * placed.processes_per_host,
        unknown=_unknown_per_host(config, placed.processes_per_host),
    )
    if placed.launcher != TORCHRUN:
        return found
    per_host = facts.accelerators_per_host(config.compute.instance_type)
    dims = device_mesh(config, found.world_size, per_host)
    return found.model_copy(update={"mesh": asdict(dims) if isinstance(dims, mesh.Mesh) else None})

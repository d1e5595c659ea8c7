"""Heterogeneous clusters on one machine: every instance group's hosts, each with the
``resourceconfig.json`` SageMaker writes for instance groups and only the channels its group
receives.

SageMaker numbers a heterogeneous job's hosts algo-1..algo-N across all groups and writes, on
every host, ``current_group_name``/``current_instance_type`` (that host's group) and
``instance_groups`` (every group with its hosts). Here the groups' hosts are numbered in the
order the config lists the groups. The launcher spans only the training group's hosts (the
container starts torchrun/mpirun only where ``current_instance_group`` is a distribution group);
the other groups run the entry point as one plain process per host.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sagelaunch.config.instance_groups import HOMOGENEOUS
from sagelaunch.config.model import LaunchConfig
from sagelaunch.local import ports
from sagelaunch.local.tree import NETWORK_INTERFACE
from sagelaunch.plan.group_plan import groups_of

DEFAULT_HOSTS_PER_GROUP = 2


@dataclass(frozen=True)
class LocalHost:
    name: str
    group: str
    instance_type: str
    trains: bool


def local_hosts(config: LaunchConfig, cap: int | None) -> list[LocalHost]:
    """Every group's emulated hosts: min(instance_count, cap) per group (cap default 2)."""
    per_group = cap or DEFAULT_HOSTS_PER_GROUP
    hosts: list[LocalHost] = []
    for group in groups_of(config):
        for _ in range(min(group.instance_count, per_group)):
            name = f"algo-{len(hosts) + 1}"
            hosts.append(LocalHost(name, group.name, group.instance_type, group.trains))
    return hosts


def resource_config(host: LocalHost, hosts: list[LocalHost]) -> dict[str, Any]:
    """resourceconfig.json as SageMaker writes it for a job with instance groups."""
    order = list(dict.fromkeys(h.group for h in hosts))
    return {
        "current_host": host.name,
        "current_instance_type": host.instance_type,
        "current_group_name": host.group,
        "hosts": [h.name for h in hosts],
        "instance_groups": [
            {
                "instance_group_name": group,
                "instance_type": next(h.instance_type for h in hosts if h.group == group),
                "hosts": [h.name for h in hosts if h.group == group],
            }
            for group in order
        ],
        "network_interface_name": NETWORK_INTERFACE,
    }


def receivers(request: dict[str, Any], hosts: list[LocalHost]) -> dict[str, list[int]]:
    """Channel -> indices of the hosts that receive it (S3DataSource.InstanceGroupNames);
    channels without groups go to every host."""
    found: dict[str, list[int]] = {}
    for channel in request.get("InputDataConfig", []):
        named = channel["DataSource"].get("S3DataSource", {}).get("InstanceGroupNames")
        if named:
            found[channel["ChannelName"]] = [i for i, h in enumerate(hosts) if h.group in named]
    return found


def host_channels(
    channels: dict[str, Any], receiving: dict[str, list[int]], index: int
) -> dict[str, Any]:
    """inputdataconfig.json of host ``index``: the channels its group receives."""
    return {
        name: entry
        for name, entry in channels.items()
        if name not in receiving or index in receiving[name]
    }


def training_position(hosts: list[LocalHost], index: int) -> tuple[int, int] | None:
    """(node rank, node count) of host ``index`` in the launcher's world, None off it."""
    training = [i for i, h in enumerate(hosts) if h.trains]
    return (training.index(index), len(training)) if index in training else None


def feed_env(hosts: list[LocalHost]) -> dict[str, str]:
    """Where the PyTorch entry point's data hosts listen (entrypoints/torch_datafeed.py): on
    SageMaker each host has its own address and the default port; here every host is this
    machine, so each data host gets a free port of its own."""
    feeders = [h for h in hosts if not h.trains]
    if not feeders:
        return {}
    return {
        "SAGELAUNCH_DATAFEED_ADDR": "127.0.0.1",
        "SAGELAUNCH_DATAFEED_PORTS": ",".join(str(ports.free_port()) for _ in feeders),
    }


def describe(hosts: list[LocalHost], launcher: str) -> list[str]:
    """One line per instance group for the run's header (none for a homogeneous cluster)."""
    names = list(dict.fromkeys(h.group for h in hosts))
    if names == [HOMOGENEOUS]:
        return []
    lines = []
    for name in names:
        members = [h for h in hosts if h.group == name]
        role = launcher if members[0].trains else "python (plain process)"
        lines.append(f"  group {name}: {', '.join(h.name for h in members)} · {role}")
    return lines

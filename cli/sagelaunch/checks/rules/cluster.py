"""The cluster's network: how a multi-host job's accelerators reach each other (EC2's data, in
the instance catalog)."""

from __future__ import annotations

from collections.abc import Iterator

from sagelaunch.catalog import facts
from sagelaunch.checks.rules.registry import rule, warning
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.errors import Problem
from sagelaunch.strategies import registry


@rule
def efa_between_hosts(loaded: LoadedConfig) -> Iterator[Problem]:
    """Advice: a distributed job across hosts of a type without EFA runs its collectives (NCCL,
    the Neuron runtime) over TCP on the instance's network; the job runs, slower. EFA support is
    EC2's (DescribeInstanceTypes' EfaSupported), as the catalog records it."""
    config = loaded.config
    compute = config.compute
    known = facts.instance(compute.instance_type)
    strategy = registry.of(config)
    if compute.instance_count < 2 or known is None or strategy.sdk_distribution(config) is None:
        return  # one host, or one plain process per host
    if known["kind"] == "cpu" or known.get("efa"):
        return
    network = known.get("network_gbps")
    speed = f"{network} Gbps" if network is not None else "a network EC2 does not rate"
    alternatives = _with_efa(compute.instance_type, known)
    hint = f"; with EFA: {', '.join(alternatives)}" if alternatives else ""
    yield warning(
        loaded,
        ("compute", "instance_type"),
        f"{compute.instance_type} has no EFA (the instance catalog: {_source(known)}): "
        f"{strategy.name} across "
        f"{compute.instance_count} hosts exchanges gradients over TCP at {speed}{hint}",
    )


def _source(known: dict) -> str:
    source = str(known.get("source", ""))
    return "EC2's instance data" if source == "ec2" else source.split(" ")[0]


def _with_efa(instance_type: str, known: dict) -> list[str]:
    """The types of the same family and accelerator that have EFA, smallest first."""
    family = instance_type.removeprefix("ml.").split(".")[0]
    catalog = facts.catalog()["instances"]
    found = [
        (entry["vcpus"], name)
        for name, entry in catalog.items()
        if name.removeprefix("ml.").split(".")[0] == family
        and entry.get("efa")
        and entry.get("accelerator") == known.get("accelerator")
    ]
    return [name for _, name in sorted(found)[:3]]

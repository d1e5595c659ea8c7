"""What `plan` shows for a heterogeneous cluster: each group's hosts, accelerators, price and
role (the group that runs the launcher trains; the others run the entry point as one plain
process per host), and the cost summed over the groups."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sagelaunch.catalog import facts, prices
from sagelaunch.config.instance_groups import HOMOGENEOUS
from sagelaunch.config.model import LaunchConfig
from sagelaunch.plan_model import Cost


def group_topology(config: LaunchConfig, launcher: str, per_host: int) -> list[dict[str, Any]]:
    """One entry per group; ``launcher``/``per_host`` are the training group's."""
    return [
        {
            "name": group.name,
            "instance_type": group.instance_type,
            "hosts": group.instance_count,
            "accelerators_per_host": facts.accelerators_per_host(group.instance_type)
            if facts.instance_kind(group.instance_type) != "cpu"
            else 0,
            "hourly_usd": prices.hourly_price(group.instance_type, config.region),
            "trains": group.trains,
            "launcher": launcher if group.trains else "python",
            "processes_per_host": per_host if group.trains else 1,
        }
        for group in groups_of(config)
    ]


def group_cost(config: LaunchConfig, cost: Cost, region: str | None = None) -> Cost:
    """``cost`` for the whole cluster: hourly_usd is the sum over groups of price × hosts, so
    max_usd = hourly_usd × max_run; unknown when any group's price is unknown. Each group says
    where its price comes from; the cluster's date is its oldest price's."""
    groups = groups_of(config)
    region = region or config.region or prices.default_region()
    found = {g.instance_type: prices.price(g.instance_type, region) for g in groups}
    hourly_of = {t: (p.usd_per_hour if p else None) for t, p in found.items()}
    unknown = sorted(t for t, p in hourly_of.items() if p is None)
    hourly = (
        None
        if unknown
        else sum((hourly_of[g.instance_type] or 0.0) * g.instance_count for g in groups)
    )
    known = [p for p in found.values() if p is not None]
    sources = list(dict.fromkeys(p.describe() for p in known))
    summed: dict[str, Any] = {
        "instance_type": " + ".join(f"{g.instance_count}×{g.instance_type}" for g in groups),
        "instance_count": sum(g.instance_count for g in groups),
        "hourly_usd": round(hourly, 3) if hourly is not None else None,
        "max_usd": round(hourly * config.compute.max_run / 3600, 2) if hourly else None,
        "prices_as_of": min(p.as_of for p in known) if known and not unknown else "unknown",
        "price_source": (sources[0] if len(sources) == 1 else "per group (groups[].price_source)")
        if sources and not unknown
        else None,
        "groups": [
            {
                "name": g.name,
                "instance_type": g.instance_type,
                "instance_count": g.instance_count,
                "hourly_usd": hourly_of[g.instance_type],
                **_source(found[g.instance_type]),
            }
            for g in groups
        ],
    }
    if unknown:
        reasons = prices.unknown_reasons(unknown, region)
        summed["note"] = f"{reasons} (hourly_usd is the whole cluster's: the sum over groups)"
    elif not cost.spot:
        summed["note"] = "hourly_usd is the whole cluster's: the sum over groups"
    return cost.model_copy(update=summed)


def _source(price: prices.Price | None) -> dict[str, str]:
    """A group's price_source, when it has a price (an unknown one's reason is the note)."""
    return {"price_source": price.describe()} if price else {}


@dataclass(frozen=True)
class GroupView:
    """One instance group as the plan and the local runner see it."""

    name: str
    instance_type: str
    instance_count: int
    trains: bool  # runs the distributed launcher (or, with no launcher, the training process)


def groups_of(config: LaunchConfig) -> list[GroupView]:
    """Every group of the job: the configured ones, or the one homogeneous group."""
    compute = config.compute
    if not compute.groups:
        return [GroupView(HOMOGENEOUS, compute.instance_type, compute.instance_count, True)]
    training = training_group_names(config)
    return [
        GroupView(g.name, g.instance_type, g.instance_count, g.name in training)
        for g in compute.groups
    ]


def training_group_names(config: LaunchConfig) -> list[str]:
    """The groups that run the launcher: distribution.groups, else (one group, or a strategy
    without a launcher) every group, as the SDK and the container decide."""
    compute = config.compute
    if not compute.groups:
        return [HOMOGENEOUS]
    named = getattr(config.distribution, "groups", None)
    if named:
        return list(named)
    return [g.name for g in compute.groups]

"""Cost estimate from the dated price table: never a made-up number."""

from __future__ import annotations

from typing import Any

from sagelaunch.catalog import facts
from sagelaunch.config.model import LaunchConfig
from sagelaunch.plan_model import Cost


def estimate(config: LaunchConfig) -> Cost:
    """``max_usd = hourly × instance_count × max_run``; unknown prices stay null, with a note."""
    compute = config.compute
    prices = facts.load("prices")
    hourly = facts.hourly_price(compute.instance_type)
    cost = Cost(
        instance_type=compute.instance_type,
        instance_count=compute.instance_count,
        hourly_usd=hourly,
        max_usd=None
        if hourly is None
        else round(hourly * compute.instance_count * compute.max_run / 3600, 2),
        spot=compute.spot is not None,
        prices_as_of=prices["as_of"],
        price_region=prices["region"],
        note=_note(config, hourly),
        max_wait_s=compute.spot.max_wait if compute.spot else None,
    )
    if config.compute.groups:
        from sagelaunch.config.group_plan import group_cost

        return group_cost(config, cost)
    return cost


def _note(config: LaunchConfig, hourly: float | None) -> str | None:
    if config.compute.spot:
        return (
            "spot: billed for the seconds actually used at the spot rate (up to ~90% less); "
            "max_usd is the on-demand ceiling for max_run"
        )
    if hourly is None:
        return f"no price known for {config.compute.instance_type}; see the AWS pricing page"
    return None


def job_cost(job: dict[str, Any]) -> dict[str, object] | None:
    """What an ended job cost: its billable seconds × instances × the dated hourly price.

    Managed spot bills ``BillableTimeInSeconds`` (the seconds spot actually charged) at the
    on-demand rate; the saving is what ``TrainingTimeInSeconds`` would have cost beyond it.
    None while nothing is billed yet; ``usd`` null when a type's price is unknown."""
    billable = job.get("BillableTimeInSeconds")
    if billable is None:
        return None
    prices = facts.load("prices")
    hourly = _hourly_of_cluster(job.get("ResourceConfig", {}))
    trained = job.get("TrainingTimeInSeconds") or billable
    cost: dict[str, object] = {
        "billable_seconds": billable,
        "training_seconds": trained,
        "usd": None if hourly is None else round(hourly * billable / 3600, 2),
        "spot_savings_usd": None,
        "prices_as_of": prices["as_of"],
        "price_region": prices["region"],
    }
    if hourly is not None and job.get("EnableManagedSpotTraining"):
        cost["spot_savings_usd"] = round(hourly * max(trained - billable, 0) / 3600, 2)
    return cost


def _hourly_of_cluster(resources: dict[str, Any]) -> float | None:
    """The cluster's price per hour (all its instances), or None when a type's price is unknown."""
    total = 0.0
    for group in resources.get("InstanceGroups") or [resources]:
        hourly = facts.hourly_price(group.get("InstanceType", ""))
        if hourly is None:
            return None
        total += hourly * int(group.get("InstanceCount", 1))
    return total


def total_usd(costs: list[dict[str, object] | None]) -> float | None:
    """The sum of jobs' costs (a sweep, a failover chain); None when one of them is unknown."""
    amounts = [cost.get("usd") if cost else 0.0 for cost in costs]
    if any(amount is None for amount in amounts):
        return None
    return round(sum(float(amount) for amount in amounts), 2)  # type: ignore[arg-type, misc]

"""Cost estimate from the price of the config's type in its region (catalog/prices.py: a fresh
Price List API answer, else the shipped snapshot): never a made-up number. The plan says where
the price comes from and how old it is (`price_source`), or that it is unknown and why (`note`)."""

from __future__ import annotations

from typing import Any

from sagelaunch.catalog import prices
from sagelaunch.config.model import LaunchConfig
from sagelaunch.plan_model import Cost

SPOT_NOTE = (
    "spot: billed for the seconds actually used at the spot rate (up to ~90% less); "
    "max_usd is the on-demand ceiling for max_run"
)


def estimate(config: LaunchConfig, region: str | None = None) -> Cost:
    """``max_usd = hourly × instance_count × max_run``; unknown prices stay null, with a note
    that says why."""
    compute = config.compute
    region = region or config.region or prices.default_region()
    found = prices.price(compute.instance_type, region) if compute.instance_type else None
    hourly = found.usd_per_hour if found else None
    cost = Cost(
        instance_type=compute.instance_type,
        instance_count=compute.instance_count,
        hourly_usd=hourly,
        max_usd=None
        if hourly is None
        else round(hourly * compute.instance_count * compute.max_run / 3600, 2),
        spot=compute.spot is not None,
        prices_as_of=found.as_of if found else "unknown",
        price_region=region,
        price_source=found.describe() if found else None,
        note=_note(config, hourly, region),
        max_wait_s=compute.spot.max_wait if compute.spot else None,
    )
    if config.compute.groups:
        from sagelaunch.plan.group_plan import group_cost

        return group_cost(config, cost, region)
    return cost


def _note(config: LaunchConfig, hourly: float | None, region: str) -> str | None:
    """Why the price is unknown (first: without it the spot ceiling means nothing), else what a
    spot job's figure means."""
    if hourly is None and config.compute.instance_type:
        return prices.unknown_reason(config.compute.instance_type, region)
    if config.compute.spot:
        return SPOT_NOTE
    return None


def job_cost(job: dict[str, Any]) -> dict[str, object] | None:
    """What an ended job cost: its billable seconds × instances × the dated hourly price.

    Managed spot bills ``BillableTimeInSeconds`` (the seconds spot actually charged) at the
    on-demand rate; the saving is what ``TrainingTimeInSeconds`` would have cost beyond it.
    None while nothing is billed yet; ``usd`` null when a type's price is unknown, and ``note``
    says why."""
    billable = job.get("BillableTimeInSeconds")
    if billable is None:
        return None
    region = _region_of(job)
    hourly, dates, sources = _hourly_of_cluster(job.get("ResourceConfig", {}), region)
    trained = job.get("TrainingTimeInSeconds") or billable
    cost: dict[str, object] = {
        "billable_seconds": billable,
        "training_seconds": trained,
        "usd": None if hourly is None else round(hourly * billable / 3600, 2),
        "spot_savings_usd": None,
        "prices_as_of": min(dates) if dates else "unknown",
        "price_region": region,
        "price_source": "; ".join(sources) if sources else None,
    }
    if hourly is None:
        cost["note"] = prices.unknown_reasons(
            _unpriced(job.get("ResourceConfig", {}), region), region
        )
    if hourly is not None and job.get("EnableManagedSpotTraining"):
        cost["spot_savings_usd"] = round(hourly * max(trained - billable, 0) / 3600, 2)
    return cost


def _region_of(job: dict[str, Any]) -> str:
    """The job's region, from its ARN (arn:aws:sagemaker:REGION:ACCOUNT:training-job/NAME)."""
    parts = str(job.get("TrainingJobArn", "")).split(":")
    return parts[3] if len(parts) > 3 and parts[3] else prices.default_region()


def _hourly_of_cluster(
    resources: dict[str, Any], region: str
) -> tuple[float | None, list[str], list[str]]:
    """The cluster's price per hour (all its instances), the prices' dates and sources; None
    (and no dates) when a type's price is unknown."""
    total, dates, sources = 0.0, [], []
    for group in resources.get("InstanceGroups") or [resources]:
        found = prices.price(group.get("InstanceType", ""), region)
        if found is None:
            return None, [], []
        total += found.usd_per_hour * int(group.get("InstanceCount", 1))
        dates.append(found.as_of)
        if found.describe() not in sources:
            sources.append(found.describe())
    return total, dates, sources


def _unpriced(resources: dict[str, Any], region: str) -> list[str]:
    groups = resources.get("InstanceGroups") or [resources]
    types = [str(group.get("InstanceType", "")) for group in groups]
    return [t for t in types if prices.price(t, region) is None]


def total_usd(costs: list[dict[str, object] | None]) -> float | None:
    """The sum of jobs' costs (a sweep, a failover chain); None when one of them is unknown."""
    amounts = [cost.get("usd") if cost else 0.0 for cost in costs]
    if any(amount is None for amount in amounts):
        return None
    return round(sum(float(amount) for amount in amounts), 2)  # type: ignore[arg-type, misc]

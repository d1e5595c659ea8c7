"""Cost estimate from the price of the config's type in its region (catalog/prices.py: a fresh
Price List API answer, else the shipped snapshot): never a made-up number. The plan says where
the price comes from and how old it is (`price_source`), or that it is unknown and why (`note`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sagelaunch import resource_config
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


def job_cost(
    job: dict[str, Any], plans: Mapping[str, dict[str, Any]] | None = None
) -> dict[str, object] | None:
    """What an ended job cost: its billable seconds × instances × the dated hourly price, or,
    for a job on a training plan, its share of the plan's upfront fee (``plans``: the plans it
    ran on, ARN -> DescribeTrainingPlan's answer).

    Managed spot bills ``BillableTimeInSeconds`` (the seconds spot actually charged) at the
    on-demand rate; the saving is what ``TrainingTimeInSeconds`` would have cost beyond it.
    A job started from instance preferences is priced as the type the service selected
    (SelectedInstanceType/Count). None while nothing is billed yet; ``usd`` null when a type's
    price (or the plan) is unknown, and ``note`` says why."""
    billable = job.get("BillableTimeInSeconds")
    if billable is None:
        return None
    resources = job.get("ResourceConfig", {})
    region = _region_of(job)
    cost: dict[str, object] = {
        "billable_seconds": billable,
        "training_seconds": job.get("TrainingTimeInSeconds") or billable,
        "usd": None,
        "spot_savings_usd": None,
        "prices_as_of": "unknown",
        "price_region": region,
        "price_source": None,
        "billed_as": "on demand",
    }
    on_plans = resource_config.running_plans(resources)
    if on_plans:
        return cost | _plan_share(resources, billable, on_plans, plans or {})
    return cost | _on_demand(job, billable, region)


def _on_demand(job: dict[str, Any], billable: int, region: str) -> dict[str, object]:
    """The on-demand figures: billable seconds × the cluster's dated hourly price."""
    groups = _groups(job.get("ResourceConfig", {}))
    hourly, dates, sources = _hourly_of_cluster(groups, region)
    if hourly is None:
        return {"note": prices.unknown_reasons(_unpriced(groups, region), region)}
    figures: dict[str, object] = {
        "usd": round(hourly * billable / 3600, 2),
        "prices_as_of": min(dates),
        "price_source": "; ".join(sources),
    }
    if job.get("EnableManagedSpotTraining"):
        trained = int(job.get("TrainingTimeInSeconds") or billable)
        figures["spot_savings_usd"] = round(hourly * max(trained - billable, 0) / 3600, 2)
    return figures


def _plan_share(
    resources: dict[str, Any],
    billable: int,
    arns: list[str],
    plans: Mapping[str, dict[str, Any]],
) -> dict[str, object]:
    """A plan's job is paid for by the plan's upfront fee: its share is the job's
    instance-seconds over the plan's (its instances × its duration)."""
    names = ", ".join(arn.rsplit("/", 1)[-1] for arn in arns)
    figures: dict[str, object] = {"billed_as": "training plan", "training_plan": arns[0]}
    if len(arns) > 1:
        figures["training_plan"] = None
        return figures | {
            "note": f"ran on one of the training plans {names} (the job's description does not "
            "say which): its share of that plan's upfront fee is unknown"
        }
    plan = plans.get(arns[0])
    if plan is None:
        return figures | {
            "note": f"ran on training plan {names}, which could not be described: its share of "
            "the plan's upfront fee is unknown"
        }
    used = billable * resource_config.running(resources)[1]
    held = _plan_instance_seconds(plan)
    fee, currency = _fee(plan)
    if not held or fee is None:
        return figures | {"note": f"training plan {names} reports no duration or fee"}
    share = used / held
    source = (
        f"training plan {names}: {used:,} of its {held:,} instance-seconds "
        f"({share:.2%}) of its upfront fee of {fee:,.2f} {currency}"
    )
    figures |= {"plan_share": round(share, 6), "price_source": source}
    if currency != "USD":
        return figures | {"note": f"the plan's fee is in {currency}, not USD"}
    return figures | {"usd": round(share * fee, 2)}


def _plan_instance_seconds(plan: dict[str, Any]) -> int:
    """The plan's instances × its duration (0 when it reports neither)."""
    duration = (
        int(plan.get("DurationHours") or 0) * 3600 + int(plan.get("DurationMinutes") or 0) * 60
    )
    return int(plan.get("TotalInstanceCount") or 0) * duration


def _fee(plan: dict[str, Any]) -> tuple[float | None, str]:
    """The plan's upfront fee (a decimal string in the API) and its currency."""
    try:
        amount = float(plan["UpfrontFee"])
    except (KeyError, TypeError, ValueError):
        amount = None
    return amount, str(plan.get("CurrencyCode") or "USD")


def _region_of(job: dict[str, Any]) -> str:
    """The job's region, from its ARN (arn:aws:sagemaker:REGION:ACCOUNT:training-job/NAME)."""
    parts = str(job.get("TrainingJobArn", "")).split(":")
    return parts[3] if len(parts) > 3 and parts[3] else prices.default_region()


def _groups(resources: dict[str, Any]) -> list[dict[str, Any]]:
    """The instances that ran, as groups: the instance groups, else the one type that ran (the
    service's selection, for a job started from preferences)."""
    if resources.get("InstanceGroups"):
        return list(resources["InstanceGroups"])
    kind, count = resource_config.running(resources)
    return [{"InstanceType": kind or "", "InstanceCount": count}]


def _hourly_of_cluster(
    groups: list[dict[str, Any]], region: str
) -> tuple[float | None, list[str], list[str]]:
    """The cluster's price per hour (all its instances), the prices' dates and sources; None
    (and no dates) when a type's price is unknown."""
    total, dates, sources = 0.0, [], []
    for group in groups:
        found = prices.price(group.get("InstanceType", ""), region)
        if found is None:
            return None, [], []
        total += found.usd_per_hour * int(group.get("InstanceCount", 1))
        dates.append(found.as_of)
        if found.describe() not in sources:
            sources.append(found.describe())
    return total, dates, sources


def _unpriced(groups: list[dict[str, Any]], region: str) -> list[str]:
    types = [str(group.get("InstanceType", "")) for group in groups]
    return [t for t in types if prices.price(t, region) is None]


def total_usd(costs: list[dict[str, object] | None]) -> float | None:
    """The sum of jobs' costs (a sweep, a failover chain); None when one of them is unknown."""
    amounts = [cost.get("usd") if cost else 0.0 for cost in costs]
    if any(amount is None for amount in amounts):
        return None
    return round(sum(float(amount) for amount in amounts), 2)  # type: ignore[arg-type, misc]

"""Cost estimate from the dated price table: never a made-up number."""

from __future__ import annotations

from sagelaunch.config import facts
from sagelaunch.config.model import LaunchConfig


def estimate(config: LaunchConfig) -> dict[str, object]:
    """``max_usd = hourly × instance_count × max_run``; unknown prices stay null, with a note."""
    compute = config.compute
    prices = facts.load("prices")
    hourly = facts.hourly_price(compute.instance_type)
    cost: dict[str, object] = {
        "instance_type": compute.instance_type,
        "instance_count": compute.instance_count,
        "hourly_usd": hourly,
        "max_usd": None,
        "spot": compute.spot is not None,
        "prices_as_of": prices["as_of"],
        "price_region": prices["region"],
    }
    if hourly is None:
        cost["note"] = f"no price known for {compute.instance_type}; see the AWS pricing page"
    else:
        cost["max_usd"] = round(hourly * compute.instance_count * compute.max_run / 3600, 2)
    if compute.spot:
        cost["max_wait_s"] = compute.spot.max_wait
        cost["note"] = (
            "spot: billed for the seconds actually used at the spot rate (up to ~90% less); "
            "max_usd is the on-demand ceiling for max_run"
        )
    if config.compute.groups:
        from sagelaunch.config.group_plan import group_cost

        return group_cost(config, cost)
    return cost

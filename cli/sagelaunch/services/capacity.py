"""`sagelaunch capacity`: SageMaker training plans (reserved capacity) searched for a config's
instances, bought, listed, described and extended.

A plan costs its upfront fee the moment it is bought, so nothing is bought unconfirmed: without
--yes the command says what it would spend and stops. The fee of an offering is only ever told
by a search (there is no "describe offering"), so each search keeps what it found under the
cache folder, and `reserve` reads the fee it refuses with from there. Reserving is idempotent by
plan name: a plan already of that name (a rerun, or a second run at the same moment that lost
the race) is reported, not bought again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sagelaunch import caches
from sagelaunch.errors import AwsError, ConfigError, UsageError

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients

TRAINING_JOB = "training-job"
OFFERINGS_CACHE = "training-plan-offerings"


@dataclass(frozen=True)
class Window:
    """What a search asks besides the instances: a duration (hours) and when it may run."""

    duration_hours: int | None = None
    start_after: datetime | None = None
    end_before: datetime | None = None

    def criteria(self) -> dict[str, Any]:
        """The window as SearchTrainingPlanOfferings names it (absent: not asked)."""
        asked = {
            "DurationHours": self.duration_hours,
            "StartTimeAfter": self.start_after,
            "EndTimeBefore": self.end_before,
        }
        return {key: value for key, value in asked.items() if value is not None}

    def __str__(self) -> str:
        parts = [f"{self.duration_hours} h" if self.duration_hours else "any duration"]
        if self.start_after:
            parts.append(f"starting after {_iso(self.start_after)}")
        if self.end_before:
            parts.append(f"ending before {_iso(self.end_before)}")
        return ", ".join(parts)


class NoOffering(AwsError):
    """SageMaker offers no training plan for what was asked (exit 3: AWS's answer)."""


def search(
    handed_in: object, config: Path, overrides: list[str] | None, region: str | None, window: Window
) -> list[dict[str, Any]]:
    """The training-job offerings for the config's compute.instance_type × instance_count."""
    from sagelaunch.aws import training_plans
    from sagelaunch.config.loader import load

    loaded = load(config, overrides)
    compute = loaded.config.compute
    sagemaker = _sagemaker(handed_in, region or loaded.config.region)
    offered = training_plans.offered_instance_types(sagemaker)
    if compute.instance_type not in offered:
        raise ConfigError(
            [
                loaded.problem(
                    ("compute", "instance_type"),
                    f"training plans offer no {compute.instance_type}; they offer "
                    f"{', '.join(offered)}",
                )
            ]
        )
    asked = f"{compute.instance_count} × {compute.instance_type}"
    found = training_plans.search_offerings(
        sagemaker,
        InstanceType=compute.instance_type,
        InstanceCount=compute.instance_count,
        TargetResources=[TRAINING_JOB],
        **window.criteria(),
    )
    if not found:
        raise NoOffering(
            f"no training-plan offering for {asked} ({window})",
            hint="try another --duration, a wider --start-after/--end-before window, fewer "
            "instances (--set compute.instance_count=N) or another --region",
        )
    rows = [offering_row(offering) for offering in found]
    _remember(rows)
    return rows


def reserve(
    handed_in: object, region: str | None, offering_id: str, name: str, confirmed: bool
) -> dict[str, Any]:
    """The plan ``name`` bought from ``offering_id`` ("created": true), or the plan of that
    name there already is ("created": false). Unconfirmed: refused, with the fee."""
    from sagelaunch.aws import training_plans

    sagemaker = _sagemaker(handed_in, region)
    existing = _described_or_none(sagemaker, name)
    if existing is not None:
        return {"created": False, **plan_row(existing)}
    if not confirmed:
        raise UsageError(
            f"reserving buys training plan {name!r} from offering {offering_id}: "
            f"{_cost_of(offering_id)}, charged at once and not refunded",
            hint=f"to buy it: sagelaunch capacity reserve {offering_id} --name {name} --yes",
        )
    try:
        training_plans.create(sagemaker, name, offering_id)
    except training_plans.PlanNameTaken:  # bought a moment ago, by a run at the same time
        return {"created": False, **plan_row(training_plans.describe(sagemaker, name))}
    return {"created": True, **plan_row(training_plans.describe(sagemaker, name))}


def plans(handed_in: object, region: str | None) -> list[dict[str, Any]]:
    """Every training plan of the account in the region."""
    from sagelaunch.aws import training_plans

    return [plan_row(plan) for plan in training_plans.list_plans(_sagemaker(handed_in, region))]


def describe(handed_in: object, region: str | None, name_or_arn: str) -> dict[str, Any]:
    """One plan, with its reserved capacity and its extensions so far."""
    from sagelaunch.aws import training_plans

    sagemaker = _sagemaker(handed_in, region)
    plan = training_plans.describe(sagemaker, name_or_arn)
    history = training_plans.extension_history(sagemaker, plan["TrainingPlanArn"])
    return {
        **plan_row(plan),
        "reserved_capacity": [_capacity_row(c) for c in plan.get("ReservedCapacitySummaries", [])],
        "extensions": [extension_row(e) for e in history],
    }


def extension_offerings(handed_in: object, region: str | None, name: str) -> list[dict[str, Any]]:
    """The offerings that would extend plan ``name``."""
    return _extension_offerings(_sagemaker(handed_in, region), name)


def _extension_offerings(sagemaker: Any, name: str) -> list[dict[str, Any]]:
    from sagelaunch.aws import training_plans

    plan = training_plans.describe(sagemaker, name)
    found = training_plans.extension_offerings(sagemaker, plan["TrainingPlanArn"])
    if not found:
        raise NoOffering(
            f"no offering extends training plan {plan['TrainingPlanName']!r} "
            f"(ends {_iso(plan.get('EndTime'))})",
            hint="extensions follow the plan's end in its availability zone; search again later, "
            "or reserve a new plan: sagelaunch capacity search CONFIG",
        )
    return [extension_row(offering) for offering in found]


def extend(
    handed_in: object, region: str | None, name: str, offering_id: str, confirmed: bool
) -> dict[str, Any]:
    """Plan ``name`` extended by ``offering_id`` (one of its extension offerings): the plan as
    it is now and the extensions made. Unconfirmed: refused, with the fee."""
    from sagelaunch.aws import training_plans

    sagemaker = _sagemaker(handed_in, region)
    offered = {row["offering_id"]: row for row in _extension_offerings(sagemaker, name)}
    if offering_id not in offered:
        raise NoOffering(
            f"{offering_id} is not an offering that extends training plan {name!r}; "
            f"those that do: {', '.join(offered)}",
            hint=f"`sagelaunch capacity extend {name}` lists them with their fees",
        )
    if not confirmed:
        raise UsageError(
            f"extending training plan {name!r} by offering {offering_id} buys "
            f"{offered[offering_id]['duration_hours']} h more: {_fee(offered[offering_id])}, "
            "charged at once and not refunded",
            hint=f"to buy it: sagelaunch capacity extend {name} --offering {offering_id} --yes",
        )
    made = training_plans.extend(sagemaker, offering_id)
    return {
        **plan_row(training_plans.describe(sagemaker, name)),
        "extended_by": [extension_row(e) for e in made],
    }


# -- rows: the stable keys of --output json ----------------------------------------------------


def offering_row(offering: dict[str, Any]) -> dict[str, Any]:
    """One offering: its id, instances, window, duration, fee and availability zone."""
    capacity = (offering.get("ReservedCapacityOfferings") or [{}])[0]
    row = {
        "offering_id": offering["TrainingPlanOfferingId"],
        "instance_type": capacity.get("InstanceType"),
        "instance_count": capacity.get("InstanceCount"),
        "start": _iso(capacity.get("StartTime")),
        "end": _iso(capacity.get("EndTime")),
        "duration_hours": offering.get("DurationHours"),
        "upfront_fee": offering.get("UpfrontFee"),
        "currency": offering.get("CurrencyCode"),
        "availability_zone": capacity.get("AvailabilityZone"),
        "target_resources": list(offering.get("TargetResources", [])),
    }
    if capacity.get("UltraServerType"):
        row["ultraserver"] = {
            "type": capacity["UltraServerType"],
            "count": capacity.get("UltraServerCount"),
        }
    return row


def plan_row(plan: dict[str, Any]) -> dict[str, Any]:
    """One plan (DescribeTrainingPlan's answer or ListTrainingPlans' summary)."""
    capacity = plan.get("ReservedCapacitySummaries") or [{}]
    return {
        "name": plan["TrainingPlanName"],
        "arn": plan["TrainingPlanArn"],
        "status": plan["Status"],
        "instance_type": capacity[0].get("InstanceType"),
        "instance_count": plan.get("TotalInstanceCount"),
        "available_instances": plan.get("AvailableInstanceCount"),
        "in_use_instances": plan.get("InUseInstanceCount"),
        "start": _iso(plan.get("StartTime")),
        "end": _iso(plan.get("EndTime")),
        "duration_hours": plan.get("DurationHours"),
        "upfront_fee": plan.get("UpfrontFee"),
        "currency": plan.get("CurrencyCode"),
        "availability_zone": capacity[0].get("AvailabilityZone"),
        "target_resources": list(plan.get("TargetResources", [])),
    }


def extension_row(extension: dict[str, Any]) -> dict[str, Any]:
    """An extension offering, or an extension made (which adds when and its status)."""
    row = {
        "offering_id": extension["TrainingPlanExtensionOfferingId"],
        "start": _iso(extension.get("StartDate")),
        "end": _iso(extension.get("EndDate")),
        "duration_hours": extension.get("DurationHours"),
        "upfront_fee": extension.get("UpfrontFee"),
        "currency": extension.get("CurrencyCode"),
        "availability_zone": extension.get("AvailabilityZone"),
    }
    if "Status" in extension:
        row.update(
            status=extension["Status"],
            payment_status=extension.get("PaymentStatus"),
            extended_at=_iso(extension.get("ExtendedAt")),
        )
    return row


def _capacity_row(capacity: dict[str, Any]) -> dict[str, Any]:
    return {
        "arn": capacity.get("ReservedCapacityArn"),
        "instance_type": capacity.get("InstanceType"),
        "instance_count": capacity.get("TotalInstanceCount"),
        "status": capacity.get("Status"),
        "availability_zone": capacity.get("AvailabilityZone"),
        "start": _iso(capacity.get("StartTime")),
        "end": _iso(capacity.get("EndTime")),
    }


# -- the searched offerings, kept for reserve's fee ----------------------------------------------


def _remember(rows: list[dict[str, Any]]) -> None:
    """Each offering found, by id: what `reserve` tells the fee from. Best effort: a cache
    that cannot be written only leaves the fee untold."""
    from sagelaunch import atomic

    folder = caches.folder(OFFERINGS_CACHE)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for row in rows:
            atomic.write_text(folder / f"{_file_name(row['offering_id'])}.json", json.dumps(row))
    except OSError:
        pass


def _cost_of(offering_id: str) -> str:
    """The offering's fee and instances as the last search found them, else how to see them."""
    try:
        row = json.loads(
            (caches.folder(OFFERINGS_CACHE) / f"{_file_name(offering_id)}.json").read_text()
        )
    except (OSError, ValueError):
        return "its upfront fee (`sagelaunch capacity search CONFIG` shows it)"
    return (
        f"{_fee(row)} for {row['instance_count']} × {row['instance_type']}, "
        f"{row['start']} to {row['end']}"
    )


def _fee(row: dict[str, Any]) -> str:
    return f"upfront fee {row['upfront_fee']} {row['currency']}"


def _file_name(offering_id: str) -> str:
    """An offering id as a file name (ids are AWS's: never trusted as a path)."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in offering_id).lstrip(".")


# -- helpers -----------------------------------------------------------------------------------


def _sagemaker(handed_in: object, region: str | None) -> Any:
    from sagelaunch.services.clients import connect

    clients: Clients = connect(handed_in, region)
    return clients.sagemaker


def _described_or_none(sagemaker: Any, name: str) -> dict[str, Any] | None:
    from sagelaunch.aws import training_plans

    try:
        return training_plans.describe(sagemaker, name)
    except training_plans.PlanNotFound:
        return None


def _iso(value: Any) -> str | None:
    """A timestamp as ISO 8601 in UTC (botocore parses them as aware datetimes)."""
    if not isinstance(value, datetime):
        return None if value is None else str(value)
    return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")

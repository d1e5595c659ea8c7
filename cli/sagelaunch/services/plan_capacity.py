"""Whether the training plans a job names can run it: pure checks of each plan's
DescribeTrainingPlan answer against the planned CreateTrainingJob request.

The plans are read from the request, not the config: ResourceConfig.TrainingPlanArn
(`compute.training_plan`) and each InstancePreferences[].TrainingPlanArns, so a saved plan is
checked as a config is. What CreateTrainingJob would refuse, or a job could never start on, is
a refusal: a plan that is not Scheduled or Active (the service's own condition for a training
job's plan), one for another instance type, with fewer instances than the job asks, for HyperPod
clusters rather than training jobs (TargetResources), or in another region. What would stop the
job is a warning: the plan ending before the job's max_run (SageMaker starts terminating a
reserved capacity's instances 30 minutes before its end), or instances held by other jobs on the
plan (the job waits for them). A Scheduled plan gets a note saying when it starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Literal

from sagelaunch import resource_config
from sagelaunch.services.capacity import TRAINING_JOB

USABLE = ("Scheduled", "Active")  # "The training plan must be in the Scheduled or Active status"
# "When there are 30 minutes remaining in your Reserved Capacity, SageMaker training plans
# begin the process of terminating any running instances within that Reserved Capacity."
TERMINATION_LEAD = timedelta(minutes=30)

Severity = Literal["refuse", "warn", "note"]


@dataclass(frozen=True)
class PlanUse:
    """One training plan as the request uses it: for the job (``preference`` None) or for one
    instance preference (its 1-based number), with the instances it would run."""

    arn: str
    instance_type: str | None  # None: instance groups (each group names its own)
    instance_count: int
    preference: int | None = None

    @property
    def name(self) -> str:
        """The plan's name, the last segment of its ARN (arn:...:training-plan/NAME)."""
        return self.arn.rsplit("/", 1)[-1]

    @property
    def key(self) -> str:
        """Where the config names the plan."""
        return self.config_key("training_plan" if self.preference is None else "training_plans")

    def config_key(self, name: str) -> str:
        """The config key ``name`` of the job (compute.NAME) or of its preference."""
        if self.preference is None:
            return f"compute.{name}"
        return f"compute.instance_preferences[{self.preference - 1}].{name}"

    @property
    def asks(self) -> str:
        """What runs on the plan: "4 × ml.p5.48xlarge (preference 2)"."""
        which = f" (preference {self.preference})" if self.preference else ""
        return f"{self.instance_count} × {self.instance_type}{which}"


@dataclass(frozen=True)
class Finding:
    """What one check found about one plan use."""

    use: PlanUse
    severity: Severity
    message: str
    hint: str | None = None

    def __str__(self) -> str:
        return f"training plan {self.use.name!r} ({self.use.key}): {self.message}"


def plan_uses(request: dict[str, Any]) -> list[PlanUse]:
    """Every plan the request runs on, with the instances each would hold."""
    resources = request.get("ResourceConfig", {})
    uses: list[PlanUse] = []
    if resources.get("TrainingPlanArn"):
        kind, count = resource_config.planned(resources)
        uses.append(PlanUse(str(resources["TrainingPlanArn"]), kind, count))
    for number, preference in enumerate(resources.get("InstancePreferences") or [], 1):
        kind, count = preference["InstanceType"], int(preference.get("InstanceCount", 1))
        for arn in preference.get("TrainingPlanArns") or []:
            uses.append(PlanUse(str(arn), kind, count, number))
    return uses


def arn_region(arn: str) -> str | None:
    """The region an ARN names (arn:aws:sagemaker:REGION:ACCOUNT:training-plan/NAME)."""
    parts = arn.split(":")
    return parts[3] if len(parts) > 5 and parts[3] else None


def region_finding(use: PlanUse, region: str) -> Finding | None:
    """A plan of another region: the job's region cannot see it (told from the ARN, before any
    call)."""
    plan_region = arn_region(use.arn)
    if plan_region is None or plan_region == region:
        return None
    return Finding(
        use,
        "refuse",
        f"the plan is in {plan_region}, the job in {region}",
        hint=f"submit in {plan_region} (--region {plan_region}, or region: {plan_region}), or "
        f"reserve a plan in {region} (`sagelaunch capacity search CONFIG --region {region}`)",
    )


def not_found(use: PlanUse, region: str) -> Finding:
    """DescribeTrainingPlan found no plan of that name: CreateTrainingJob would refuse it."""
    return Finding(
        use,
        "refuse",
        f"no such training plan in this account in {region}",
        hint="`sagelaunch capacity list` lists the account's plans; check the ARN",
    )


def findings(
    use: PlanUse, plan: dict[str, Any], max_run_s: int | None, now: datetime
) -> list[Finding]:
    """Everything the described ``plan`` says about running ``use`` on it."""
    found = [
        _status(use, plan),
        _target(use, plan),
        _instance_type(use, plan),
        _count(use, plan),
        _in_use(use, plan),
        _ends_first(use, plan, max_run_s, now),
        _starts_later(use, plan, now),
    ]
    return [finding for finding in found if finding is not None]


def _status(use: PlanUse, plan: dict[str, Any]) -> Finding | None:
    status = plan.get("Status")
    if status in USABLE:
        return None
    message = plan.get("StatusMessage")
    return Finding(
        use,
        "refuse",
        f"it is {status} (window {window(plan)}"
        + (f"; {message}" if message else "")
        + "): a training job runs only on a Scheduled or Active plan",
        hint=f"reserve another plan (`sagelaunch capacity search CONFIG`, then `capacity "
        f"reserve`), or drop it from {use.key}",
    )


def _target(use: PlanUse, plan: dict[str, Any]) -> Finding | None:
    targets = list(plan.get("TargetResources") or [])
    if not targets or TRAINING_JOB in targets:
        return None
    return Finding(
        use,
        "refuse",
        f"it reserves capacity for {', '.join(targets)} (TargetResources), not training jobs",
        hint="a HyperPod plan runs cluster instance groups only: reserve a plan for "
        "training-job (`sagelaunch capacity search CONFIG`)",
    )


def _instance_type(use: PlanUse, plan: dict[str, Any]) -> Finding | None:
    held = reserved(plan)
    if use.instance_type is None or not held or use.instance_type in held:
        return None
    return Finding(
        use,
        "refuse",
        f"it reserves {holding(plan)}, not the job's {use.instance_type}",
        hint=f"run on {' or '.join(sorted(held))} ({use.config_key('instance_type')}), or "
        f"use a plan for {use.instance_type}",
    )


def _count(use: PlanUse, plan: dict[str, Any]) -> Finding | None:
    """Fewer instances of the job's type than it asks, in the plan's largest block of them."""
    most = reserved(plan).get(use.instance_type or "")
    if most is None or most >= use.instance_count:
        return None
    return Finding(
        use,
        "refuse",
        f"it holds {most} × {use.instance_type} ({availability(plan)}); the job asks "
        f"{use.instance_count}",
        hint=f"ask for at most {most} instances ({use.config_key('instance_count')}), or "
        f"reserve a plan of {use.instance_count} (`sagelaunch capacity search CONFIG`)",
    )


def _in_use(use: PlanUse, plan: dict[str, Any]) -> Finding | None:
    """Enough instances in the plan, but other jobs hold some: the job waits for them."""
    available = plan.get("AvailableInstanceCount")
    most = reserved(plan).get(use.instance_type or "")
    fits_plan = most is None or most >= use.instance_count
    if available is None or available >= use.instance_count or not fits_plan:
        return None
    return Finding(
        use,
        "warn",
        f"{availability(plan)}; the job asks {use.instance_count}, so it waits for other jobs "
        "on the plan to release instances (SageMaker ends a job pending for capacity after "
        "2 days)",
    )


def _ends_first(
    use: PlanUse, plan: dict[str, Any], max_run_s: int | None, now: datetime
) -> Finding | None:
    """The job, started when it can (now, or the plan's start), would run past the plan."""
    end, start = plan.get("EndTime"), plan.get("StartTime")
    if max_run_s is None or not isinstance(end, datetime) or plan.get("Status") not in USABLE:
        return None
    begins = max(now, start) if isinstance(start, datetime) else now
    finishes = begins + timedelta(seconds=max_run_s)
    if finishes <= end - TERMINATION_LEAD:
        return None
    return Finding(
        use,
        "warn",
        f"it ends {_when(end)}, and a job started {_when(begins)} may run until "
        f"{_when(finishes)} (max_run {_hours(max_run_s)}): SageMaker terminates the plan's "
        "instances from 30 minutes before its end, stopping the job",
        hint="checkpoint to S3 (compute.checkpoint), shorten max_run, or extend the plan "
        f"(`sagelaunch capacity extend {use.name}`)",
    )


def _starts_later(use: PlanUse, plan: dict[str, Any], now: datetime) -> Finding | None:
    start = plan.get("StartTime")
    if plan.get("Status") != "Scheduled" or not isinstance(start, datetime):
        return None
    return Finding(
        use,
        "note",
        f"it is Scheduled: it starts {_when(start)} (in {_hours((start - now).total_seconds())}"
        "), and the job waits for it (compute.max_pending does not count that wait)",
    )


def reserved(plan: dict[str, Any]) -> dict[str, int]:
    """Each instance type the plan reserves, with its largest block's instance count (a job
    runs within one reserved capacity)."""
    held: dict[str, int] = {}
    for capacity in plan.get("ReservedCapacitySummaries") or []:
        kind, count = capacity.get("InstanceType"), int(capacity.get("TotalInstanceCount") or 0)
        if kind:
            held[kind] = max(held.get(kind, 0), count)
    return held


def holding(plan: dict[str, Any]) -> str:
    """ "4 × ml.p5.48xlarge" (each reserved type)."""
    return ", ".join(f"{count} × {kind}" for kind, count in reserved(plan).items()) or "nothing"


def window(plan: dict[str, Any]) -> str:
    """ "2026-12-01 00:00 → 2026-12-08 00:00 UTC" (either end may be unknown)."""
    start, end = plan.get("StartTime"), plan.get("EndTime")
    shown = [_minute(t) if isinstance(t, datetime) else "?" for t in (start, end)]
    return f"{shown[0]} → {shown[1]} UTC"


def fee(plan: dict[str, Any]) -> str:
    """ "1,000.00 USD" as the plan states it (UpfrontFee is a string)."""
    amount, currency = plan.get("UpfrontFee"), plan.get("CurrencyCode") or ""
    if amount is None:
        return "unknown"
    try:
        return f"{float(amount):,.2f} {currency}".strip()
    except ValueError:
        return f"{amount} {currency}".strip()


def availability(plan: dict[str, Any]) -> str:
    """ "4 available, 0 in use" (what the plan reports)."""
    available, in_use = plan.get("AvailableInstanceCount"), plan.get("InUseInstanceCount")
    figures = [f"{available} available" if available is not None else None]
    figures.append(f"{in_use} in use" if in_use is not None else None)
    return ", ".join(f for f in figures if f) or "availability not reported"


def _minute(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M")


def _when(moment: datetime) -> str:
    return f"{_minute(moment)} UTC"


def _hours(seconds: float) -> str:
    hours = seconds / 3600
    return f"{hours:,.0f} h" if hours >= 10 else f"{hours:,.1f} h"

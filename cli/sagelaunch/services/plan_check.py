"""Training-plan pre-flight: before anything is uploaded, each training plan the job names is
described (DescribeTrainingPlan) and judged by services.plan_capacity; `plan` does the same
when AWS credentials are configured, and shows each plan's window and upfront fee.

Like the quota pre-flight (services.quota_check) it advises when it cannot answer: no
credentials, AWS unreachable, throttled or denied is one note and the job goes on
(CreateTrainingJob has the last word). A plan that is described, or not found, and cannot run
the job refuses it, with the plan's figures. A plan of another region is refused from its ARN,
before any call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from sagelaunch.errors import AwsError, SagelaunchError
from sagelaunch.services import plan_capacity
from sagelaunch.services.plan_capacity import Finding, PlanUse

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients

NOT_CHECKED = "training plans not checked: "
NO_CREDENTIALS = (
    f"{NOT_CHECKED}no AWS credentials configured (with credentials, plan describes each "
    "training plan the job names, as submit does before uploading)"
)


@dataclass
class PlanReport:
    """What the pre-flight found: each plan described (ARN -> DescribeTrainingPlan's answer),
    and the findings; ``checked`` False (with ``note``) when the plans could not be read."""

    checked: bool
    uses: list[PlanUse] = field(default_factory=list)  # none: the job names no plan
    plans: dict[str, dict[str, Any]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    note: str | None = None

    @property
    def refusals(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "refuse"]

    @property
    def advice(self) -> list[Finding]:
        """The warnings and notes: what would stop or delay the job, not refuse it."""
        return [f for f in self.findings if f.severity != "refuse"]

    def as_json(self) -> dict[str, object]:
        """`plan --output json`'s "training_plans"."""
        return {
            "checked": self.checked,
            "note": self.note,
            "plans": [_plan_json(plan) for plan in self.plans.values()],
            "findings": [
                {
                    "plan": f.use.arn,
                    "key": f.use.key,
                    "severity": f.severity,
                    "message": f.message,
                    "hint": f.hint,
                }
                for f in self.findings
            ],
        }


def check(aws: Clients, request: dict[str, Any], now: datetime | None = None) -> PlanReport:
    """Each plan the request names, described once and judged against what it would run."""
    uses = plan_capacity.plan_uses(request)
    if not uses:
        return PlanReport(checked=True)
    elsewhere = [f for use in uses if (f := plan_capacity.region_finding(use, aws.region))]
    here = [use for use in uses if use.arn not in {f.use.arn for f in elsewhere}]
    try:
        described = _described(aws, [use.arn for use in here])
    except AwsError as exc:
        note = NOT_CHECKED + exc.message
        return PlanReport(checked=False, uses=uses, findings=elsewhere, note=note)
    max_run = request.get("StoppingCondition", {}).get("MaxRuntimeInSeconds")
    moment = now or datetime.now(timezone.utc)
    found = elsewhere + [
        finding for use in here for finding in _judged(use, described, aws.region, max_run, moment)
    ]
    plans = {arn: plan for arn, plan in described.items() if plan is not None}
    return PlanReport(checked=True, uses=uses, plans=plans, findings=found)


def require_usable(aws: Clients, request: dict[str, Any]) -> PlanReport:
    """The report, after raising (exit 3, before any upload) when a plan cannot run the job."""
    report = check(aws, request)
    refusal = refusal_of(report)
    if refusal is not None:
        raise refusal
    return report


def check_if_possible(region: str, request: dict[str, Any]) -> PlanReport:
    """`plan`'s look: checked when credentials are configured, else a note (only when the job
    names a plan: `plan` stays offline otherwise)."""
    from sagelaunch.services.quota_check import credentials_configured

    uses = plan_capacity.plan_uses(request)
    if not uses:
        return PlanReport(checked=True)
    if not credentials_configured():
        return PlanReport(checked=False, uses=uses, note=NO_CREDENTIALS)
    from sagelaunch.aws.session import clients

    try:
        return check(clients(region, max_attempts=2), request)
    except SagelaunchError as exc:
        return PlanReport(checked=False, uses=uses, note=NOT_CHECKED + exc.message)


def refusal_of(report: PlanReport) -> AwsError | None:
    """The error naming each plan that cannot run the job, with its figures and the fixes."""
    if not report.refusals:
        return None
    lines = "\n".join(f"  {finding}" for finding in report.refusals)
    hints = dict.fromkeys(f.hint for f in report.refusals if f.hint)
    return AwsError(
        f"the job's training plan cannot run it (nothing uploaded):\n{lines}",
        hint="; ".join(hints) or None,
    )


def unchecked_warning(report: PlanReport, going_on: str) -> str | None:
    """The one warning line of a pre-flight that could not read the plans, else None."""
    if report.checked or not report.note:
        return None
    return f"{report.note}; {going_on} without the training-plan checks"


def _described(aws: Clients, arns: list[str]) -> dict[str, dict[str, Any] | None]:
    """DescribeTrainingPlan of each ARN once (None: no such plan); AwsError when AWS could not
    answer."""
    from sagelaunch.aws import training_plans

    found: dict[str, dict[str, Any] | None] = {}
    for arn in dict.fromkeys(arns):
        try:
            found[arn] = training_plans.describe(aws.advisory("sagemaker"), arn)
        except training_plans.PlanNotFound:
            found[arn] = None
    return found


def _judged(
    use: PlanUse,
    described: dict[str, dict[str, Any] | None],
    region: str,
    max_run: int | None,
    now: datetime,
) -> list[Finding]:
    plan = described[use.arn]
    if plan is None:
        return [plan_capacity.not_found(use, region)]
    return plan_capacity.findings(use, plan, max_run, now)


def _plan_json(plan: dict[str, Any]) -> dict[str, object]:
    """A described plan's figures `plan --output json` shows (times as ISO 8601)."""
    times = {k: plan[k].isoformat() for k in ("StartTime", "EndTime") if k in plan}
    return {
        "arn": plan.get("TrainingPlanArn"),
        "name": plan.get("TrainingPlanName"),
        "status": plan.get("Status"),
        "start": times.get("StartTime"),
        "end": times.get("EndTime"),
        "upfront_fee": plan.get("UpfrontFee"),
        "currency": plan.get("CurrencyCode"),
        "instances": plan_capacity.reserved(plan),
        "available_instances": plan.get("AvailableInstanceCount"),
        "in_use_instances": plan.get("InUseInstanceCount"),
        "target_resources": plan.get("TargetResources"),
    }

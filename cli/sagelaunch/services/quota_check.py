"""Quota pre-flight for submit: refuse, before anything is uploaded, a job the account's
SageMaker quotas cannot hold now (the create would fail with ResourceLimitExceeded)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sagelaunch.errors import QuotaExceeded

if TYPE_CHECKING:
    from sagelaunch.aws.quotas import QuotaUse
    from sagelaunch.aws.session import Clients


@dataclass
class QuotaReport:
    """What the pre-flight found; ``checked`` is False when Service Quotas could not be read."""

    checked: bool
    uses: list[QuotaUse] = field(default_factory=list)

    @property
    def short(self) -> list[QuotaUse]:
        return [use for use in self.uses if not use.fits]


def check(aws: Clients, request: dict[str, Any]) -> QuotaReport:
    """The quotas ``request`` draws on, against the account's running training jobs."""
    from sagelaunch.aws import quotas

    applied = quotas.applied_quotas(aws.client("service-quotas"), quotas.quota_names(request))
    if applied is None:
        return QuotaReport(checked=False)
    if not applied:
        return QuotaReport(checked=True)
    used = quotas.instances_in_use(aws.sagemaker)
    return QuotaReport(checked=True, uses=quotas.quota_uses(request, applied, used))


def require_room(aws: Clients, request: dict[str, Any]) -> QuotaReport:
    """Raise QuotaExceeded (exit 3) naming each quota the job would exceed."""
    report = check(aws, request)
    if report.short:
        raise QuotaExceeded(
            "not enough quota for this job: " + "; ".join(str(use) for use in report.short),
            hint=_increase_hint(report.short[0].name),
        )
    return report


def _increase_hint(name: str) -> str:
    return (
        f"request an increase of '{name}' in the Service Quotas console (AWS services > "
        "Amazon SageMaker), or with `aws service-quotas request-service-quota-increase "
        "--service-code sagemaker --quota-code CODE --desired-value N` (CODE: `aws "
        "service-quotas list-service-quotas --service-code sagemaker --query "
        f"\"Quotas[?QuotaName=='{name}'].QuotaCode\"`); or wait for running jobs to end, "
        "or use another instance type or region"
    )

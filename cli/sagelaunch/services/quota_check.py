"""Quota pre-flight for submit: refuse, before anything is uploaded, a job the account's
SageMaker quotas cannot hold now (the create would fail with ResourceLimitExceeded)."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sagelaunch.errors import AwsError, QuotaExceeded, SagelaunchError

if TYPE_CHECKING:
    from sagelaunch.aws.quotas import QuotaUse
    from sagelaunch.aws.session import Clients


@dataclass
class QuotaReport:
    """What the pre-flight found; ``checked`` is False when Service Quotas could not be read."""

    checked: bool
    uses: list[QuotaUse] = field(default_factory=list)

    note: str | None = None  # why nothing was checked (plan without credentials, ...)

    @property
    def short(self) -> list[QuotaUse]:
        return [use for use in self.uses if not use.fits]

    @property
    def never_fits(self) -> bool:
        """A quota is below what the job asks on its own: no running job's end will make room."""
        return any(use.asks > use.quota for use in self.uses)

    def as_json(self) -> dict[str, object]:
        """`plan --output json`'s "quota"."""
        return {
            "checked": self.checked,
            "note": self.note,
            "quotas": [{**asdict(use), "fits": use.fits} for use in self.uses],
        }


# Where botocore finds credentials without asking the network (instance roles need IMDS).
CREDENTIAL_VARIABLES = (
    "AWS_ACCESS_KEY_ID",
    "AWS_PROFILE",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
)


def credentials_configured() -> bool:
    """Whether this machine has AWS credentials configured (environment, or the shared files),
    told without importing botocore: `plan` stays offline and quick when there are none."""
    if any(os.environ.get(name) for name in CREDENTIAL_VARIABLES):
        return True
    files = (
        os.environ.get("AWS_SHARED_CREDENTIALS_FILE") or "~/.aws/credentials",
        os.environ.get("AWS_CONFIG_FILE") or "~/.aws/config",
    )
    return any(Path(name).expanduser().is_file() for name in files)


def check_if_possible(region: str, request: dict[str, Any]) -> QuotaReport:
    """`plan`'s pre-flight: checked when credentials are configured, else a note saying why
    not; an AWS error (offline, denied, expired) is a note too, since plan works offline."""
    if not credentials_configured():
        return QuotaReport(checked=False, note=NO_CREDENTIALS)
    from sagelaunch.aws.session import clients

    try:
        return check(clients(region, max_attempts=2), request)
    except SagelaunchError as exc:
        return QuotaReport(checked=False, note=f"quotas not checked: {exc.message}")


UNREAD = "quotas not checked: Service Quotas could not be read: "
NO_CREDENTIALS = (
    "quotas not checked: no AWS credentials configured (plan works offline; with credentials "
    "it also checks the account's SageMaker quotas, as submit does)"
)


def check(aws: Clients, request: dict[str, Any]) -> QuotaReport:
    """The quotas ``request`` draws on, against the account's running training jobs.

    The pre-flight advises; CreateTrainingJob has the last word on quotas. So when Service
    Quotas cannot be read (unreachable, 5xx, not served, denied, throttled) nothing is checked
    and the note says what failed; its client gives up in about two seconds
    (`Clients.advisory`), not after the main clients' retries. Only a quota read and found
    short refuses (`refusal_of`)."""
    from sagelaunch.aws import quotas

    try:
        applied = quotas.applied_quotas(aws.advisory("service-quotas"), quotas.quota_names(request))
    except quotas.NotServed as exc:
        return QuotaReport(checked=False, note=f"quotas not checked: {exc.message}")
    except AwsError as exc:
        return QuotaReport(checked=False, note=f"{UNREAD}{exc.message}")
    if not applied:
        return QuotaReport(checked=True)
    used = quotas.instances_in_use(aws.sagemaker)
    return QuotaReport(checked=True, uses=quotas.quota_uses(request, applied, used))


def require_room(aws: Clients, request: dict[str, Any]) -> QuotaReport:
    """Raise QuotaExceeded (exit 3) naming each quota the job would exceed; a report that
    checked nothing (``note``) passes."""
    report = check(aws, request)
    refusal = refusal_of(report)
    if refusal is not None:
        raise refusal
    return report


def refusal_of(report: QuotaReport) -> QuotaExceeded | None:
    """The error naming each quota the job would exceed, or None when it fits."""
    if not report.short:
        return None
    return QuotaExceeded(
        "not enough quota for this job: " + "; ".join(str(use) for use in report.short),
        hint=_increase_hint(report.short[0].name),
    )


def _increase_hint(name: str) -> str:
    return (
        f"request an increase of '{name}' in the Service Quotas console (AWS services > "
        "Amazon SageMaker), or with `aws service-quotas request-service-quota-increase "
        "--service-code sagemaker --quota-code CODE --desired-value N` (CODE: `aws "
        "service-quotas list-service-quotas --service-code sagemaker --query "
        f"\"Quotas[?QuotaName=='{name}'].QuotaCode\"`); or wait for running jobs to end, "
        "or use another instance type or region"
    )


def unchecked_warning(report: QuotaReport, going_on: str) -> str | None:
    """The one warning line of a pre-flight that checked nothing: what failed, and that
    ``going_on`` (e.g. "the job is created") without the quota check; None when it checked."""
    if report.checked or not report.note:
        return None
    return (
        f"{report.note}; {going_on} without the quota check "
        "(CreateTrainingJob still enforces the quotas)"
    )

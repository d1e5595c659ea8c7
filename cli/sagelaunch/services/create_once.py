"""Sending a job to SageMaker once: the code uploaded when missing, the training (or tuning) job
created, or attached to when a job of that name already runs this very request.

The order of the calls, and why a first submit costs no more than the SDK's `fit()`, is
services/submit.py's docstring; the training-job backend (services/backends/training_job.py)
sends through `send`, `tune` through `create_once`, a sweep's trials check an existing job with
`require_same_job`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sagelaunch.errors import AttachRefused
from sagelaunch.links import console_url
from sagelaunch.plan_model import Upload
from sagelaunch.services import attach
from sagelaunch.services.follow import TRAINING, TUNING, Kind
from sagelaunch.statuses import JobStatus

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients
    from sagelaunch.bundle import BundleData

# Sends the bundle: (clients, s3 uri, its file or bytes). The command passes one that draws a
# progress bar.
Uploader = Callable[["Clients", str, "BundleData"], None]
# Tells the user one line of advice (the command prints it on stderr as a warning).
Warn = Callable[[str], None]


@dataclass
class Submission:
    """`submit --output json` (stable keys)."""

    job_name: str
    arn: str
    status: str  # InProgress for a job just created; described when attached; final with --wait
    uploaded: bool  # bytes were sent to S3 (False: the bundle was there, or nothing to upload)
    bundle_sha256: str | None
    console_url: str
    attached: bool  # the job already existed, running this very request


def send(
    aws: Clients,
    request: dict[str, Any],
    upload: Upload | None,
    data: BundleData | None,
    may_exist: bool,
    uploader: Uploader | None = None,
    check_quota: bool = False,
    warn: Warn | None = None,
) -> Submission:
    """Upload and create, or attach (the order is explained in the module docstring). A
    pre-flight that could not read the quotas or the training plans is one ``warn`` line, and
    the job goes on."""

    def preflight() -> None:
        say = warn or _unsaid
        plan_preflight(aws, request, say)
        if check_quota:
            quota_preflight(aws, request, say)

    sent = create_once(aws, TRAINING, request, upload, data, may_exist, uploader, preflight)
    name = request["TrainingJobName"]
    return Submission(
        job_name=name,
        arn=sent.arn,
        status=sent.status,
        uploaded=sent.uploaded,
        bundle_sha256=upload.sha256 if upload else None,
        console_url=console_url(aws.region, name),
        attached=sent.attached,
    )


def plan_preflight(aws: Clients, request: dict[str, Any], warn: Warn) -> None:
    """Refuse a job its training plans cannot run (services.plan_check); what would stop or
    delay it, or that the plans could not be read, is a warning."""
    from sagelaunch.services import plan_check

    report = plan_check.require_usable(aws, request)
    skipped = plan_check.unchecked_warning(report, "the job is created")
    for line in [skipped] if skipped else [str(finding) for finding in report.advice]:
        warn(line)


def quota_preflight(aws: Clients, request: dict[str, Any], warn: Warn) -> None:
    """Refuse a job the account's quotas cannot hold now (services.quota_check)."""
    from sagelaunch.services import quota_check

    report = quota_check.require_room(aws, request)
    skipped = quota_check.unchecked_warning(report, "the job is created")
    if skipped:
        warn(skipped)


def _unsaid(line: str) -> None:
    """No one to tell (a caller without ``warn``)."""


@dataclass(frozen=True)
class Sent:
    """What `create_once` did: the job's ARN and status, whether it existed, whether the code
    went to S3."""

    arn: str
    status: str
    attached: bool
    uploaded: bool


def create_once(
    aws: Clients,
    kind: Kind,
    request: dict[str, Any],
    upload: Upload | None,
    data: BundleData | None,
    may_exist: bool,
    uploader: Uploader | None = None,
    before_create: Callable[[], None] | None = None,
) -> Sent:
    """A training or tuning job: the code uploaded when missing, the job created, or attached
    to when it exists and runs this very request (else refused with the differences)."""
    from sagelaunch.aws.upload import exists

    name = request[kind.name_key]
    code_there = upload is None or exists(aws.s3, upload.s3_uri)
    existing = kind.api.describe(aws.sagemaker, name) if may_exist and code_there else None
    if existing is None:
        if before_create is not None:
            before_create()
        if not code_there:
            assert upload is not None and data is not None  # plan_file/make_plan pair them
            (uploader or put)(aws, upload.s3_uri, data)
        arn, existing = kind.api.create(aws.sagemaker, request)
    else:
        arn = existing[kind.arn_key]
    if existing is not None:
        require_same(kind, request, existing)
    status = existing[kind.status_key] if existing else JobStatus.InProgress.value
    return Sent(arn, status, attached=existing is not None, uploaded=not code_there)


def require_same_job(request: dict[str, Any], existing: dict[str, Any]) -> None:
    """Refuse to attach to a training job of this name that runs something else."""
    require_same(TRAINING, request, existing)


def require_same(kind: Kind, request: dict[str, Any], existing: dict[str, Any]) -> None:
    """Refuse to attach to a job (or tuning job) of this name that runs something else."""
    compare = attach.tuning_differences if kind is TUNING else attach.differences
    found = compare(request, existing)
    if found:
        differences = [str(d) for d in found]
        raise AttachRefused(request[kind.name_key], differences, tuning=kind is TUNING)


def put(
    aws: Clients, uri: str, data: BundleData, progress: Callable[[int], None] | None = None
) -> None:
    """PutObject of the code bundle; ``progress`` gets the bytes sent so far."""
    from sagelaunch.aws import upload

    upload.put(aws.s3, uri, data, progress=progress)

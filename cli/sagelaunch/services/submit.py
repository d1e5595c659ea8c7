"""Submit: plan (or load the reviewed plan), name, upload, create — once — or attach safely.

Submit is plan + upload + `create_training_job(**request)`: what `plan` showed is what is sent.
A saved plan is sent as is, without importing the SageMaker SDK.

With an idempotency key the job name is derived from the key and the request, so a retried CI step
computes the same name and attaches to the job it already created. The requests are ordered so
that a first submit costs no more calls than the SDK's own `fit()`:

1. HeadObject on the bundle's content-addressed key (skipped for built-in algorithms).
2. DescribeTrainingJob, only when the name may already exist (a key or a saved plan's fixed name)
   and the bundle is already in S3: we upload before we create, so a job of ours with this
   request cannot exist while its bundle is missing.
3. With `--check-quota`, the quota pre-flight (`services.quota_check`), only when a new job is
   about to be created:
   ListServiceQuotas, then ListTrainingJobs (InProgress) and a DescribeTrainingJob per running
   job; a job the quotas cannot hold is refused here, before any upload. When Service Quotas
   cannot be read (within about two seconds), a warning says so and the job goes on.
4. PutObject when the bundle is missing (the key carries its sha256: present means identical).
5. CreateTrainingJob; a retried create that is refused as "already exists" attaches (aws.jobs).

Every attach (steps 2 and 5) first checks that the existing job runs this plan's request
(`services.attach`); a job of the same name running something else is refused with the
differences, never attached to.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sagelaunch.errors import AttachRefused, UsageError
from sagelaunch.links import console_url
from sagelaunch.plan_model import Plan, Upload
from sagelaunch.services import attach
from sagelaunch.services.follow import TRAINING, TUNING, Kind
from sagelaunch.statuses import JobStatus

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients
    from sagelaunch.bundle import BundleData
    from sagelaunch.services.planning import Progress
    from sagelaunch.services.queue import QueuedSubmission

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


def deliver(
    target: Path,
    overrides: list[str] | None,
    key: str | None,
    region: str | None,
    aws: Clients | None = None,
    uploader: Uploader | None = None,
    progress: Progress | None = None,
    check_quota: bool = False,
    warn: Warn | None = None,
    queue: str | None = None,
) -> tuple[Submission | QueuedSubmission, Clients]:
    """All of `submit` but waiting: plan (or load), name, upload, create or attach; a job for a
    job queue (`compute.queue`, ``queue``) goes there instead (`services.queue`)."""
    from sagelaunch.services import queue as queues

    overrides = queues.named_queue(target, overrides, queue)
    plan, bundle_data, from_file = load_plan(target, overrides, region, progress)
    if key:
        plan = plan.renamed(idempotent_name(plan.job_name, key, plan.request))
    plan = queues.queued(plan, queue)
    if aws is None:
        from sagelaunch.aws.session import clients

        aws = clients(plan.region)
    if plan.queue is not None:
        return queues.send(aws, plan, bundle_data, uploader or put), aws
    result = send(
        aws,
        plan.request,
        plan.upload,
        bundle_data,
        may_exist=from_file or bool(key),
        uploader=uploader or put,
        check_quota=check_quota,
        warn=warn,
    )
    return result, aws


def load_plan(
    target: Path,
    overrides: list[str] | None,
    region: str | None,
    progress: Progress | None = None,
) -> tuple[Plan, BundleData | None, bool]:
    """The plan and its bundle (its file), and whether it came from a saved plan file."""
    if target.suffix != ".json":
        # Only a config needs the config model (and maybe the SDK); a saved plan needs neither.
        from sagelaunch.services.planning import make_plan

        kwargs = {"progress": progress} if progress else {}
        made = make_plan(target, overrides, region, None, **kwargs)
        return made.plan, made.bundle, False
    from sagelaunch import plan_file

    if overrides:
        raise UsageError("--set cannot change a saved plan", hint="make a new plan with --set")
    plan, data = plan_file.load(target)
    if region and region != plan.region:
        raise UsageError(f"{target} was planned for {plan.region}, not {region}")
    return plan, data, True


def idempotent_name(planned_name: str, key: str, request: dict[str, Any]) -> str:
    """The job name for ``key``: the planned name's base (without its timestamp) + a digest."""
    from sagelaunch import naming

    return naming.idempotent(naming.base_of(planned_name), key, request)


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
    pre-flight that could not read the quotas is one ``warn`` line, and the job goes on."""

    def quota_preflight() -> None:
        from sagelaunch.services import quota_check

        report = quota_check.require_room(aws, request)
        skipped = quota_check.unchecked_warning(report, "the job is created")
        if skipped and warn is not None:
            warn(skipped)

    before_create = quota_preflight if check_quota else None
    sent = create_once(aws, TRAINING, request, upload, data, may_exist, uploader, before_create)
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

"""AWS Batch job queues for SageMaker training: the queue checked, a service job submitted once
(or found again by name), described, listed and terminated.

SubmitServiceJob carries a clientToken (the job name: a rerun is the same request), so Batch
answers a repeated submit with the job it already has. A submit whose answer was lost is looked
up by name (ListServiceJobs' JOB_NAME filter, every status) before it is sent again.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from sagelaunch.aws.errors import DENIED, error_code, error_message, may_have_landed, translated
from sagelaunch.errors import AwsError

SAGEMAKER_TRAINING = "SAGEMAKER_TRAINING"
# The service-job states in the order a job goes through them (ServiceJobStatus in botocore's
# model); ListServiceJobs without a filter lists one state only (RUNNING when none is given).
STATES = (
    "SUBMITTED",
    "PENDING",
    "RUNNABLE",
    "SCHEDULED",
    "STARTING",
    "RUNNING",
    "SUCCEEDED",
    "FAILED",
)
WAITING = ("SUBMITTED", "PENDING", "RUNNABLE")
ENDED = ("SUCCEEDED", "FAILED")


@translated
def queue_detail(batch: Any, name: str) -> dict[str, Any]:
    """DescribeJobQueues of ``name`` (a name or ARN), checked as a queue a training job can
    wait in: it exists, is of type SAGEMAKER_TRAINING, and is ENABLED and VALID."""
    try:
        found = batch.describe_job_queues(jobQueues=[name]).get("jobQueues", [])
    except ClientError as exc:
        if error_code(exc) in DENIED:
            raise AwsError(
                f"access denied: batch:DescribeJobQueues on {name}: {error_message(exc)}",
                hint="the credentials' IAM policy must allow batch:DescribeJobQueues, "
                "batch:SubmitServiceJob, batch:DescribeServiceJob, batch:ListServiceJobs and "
                "batch:TerminateServiceJob",
            ) from None
        raise
    if not found:
        raise AwsError(
            f"no AWS Batch job queue named {name!r} in this account and region",
            hint="create one of type SAGEMAKER_TRAINING over a service environment (AWS Batch "
            "User Guide, 'Getting started with AWS Batch on SageMaker AI'), or check "
            "compute.queue / --queue and --region; see them with `aws batch describe-job-queues`",
        )
    queue = dict(found[0])
    kind = queue.get("jobQueueType") or "ECS"
    if kind != SAGEMAKER_TRAINING:
        raise AwsError(
            f"job queue {name!r} is of type {kind}: a training job waits only in a queue of "
            "type SAGEMAKER_TRAINING",
            hint="name a SAGEMAKER_TRAINING queue in compute.queue / --queue",
        )
    if queue.get("state") != "ENABLED":
        raise AwsError(
            f"job queue {name!r} is {queue.get('state')}: Batch takes no job into it",
            hint=f"enable it: aws batch update-job-queue --job-queue {name} --state ENABLED",
        )
    if queue.get("status") == "INVALID":
        raise AwsError(
            f"job queue {name!r} is INVALID: {queue.get('statusReason') or 'no reason given'}"
        )
    return queue


def fair_share(queue: dict[str, Any]) -> bool:
    """A queue with a fair-share scheduling policy (every job there needs a share)."""
    return bool(queue.get("schedulingPolicyArn"))


@translated
def submit(batch: Any, request: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """SubmitServiceJob once: (the job's summary, whether it already existed). A job of this
    name in the queue already (a rerun, a racing rerun, a submit whose answer was lost) is
    returned instead of a second one; the caller checks it runs this request."""
    name, queue = request["jobName"], request["jobQueue"]
    existing = find(batch, queue, name)
    if existing is not None:
        return existing, True
    try:
        answer = batch.submit_service_job(**request)
    except (ClientError, BotoCoreError) as exc:
        landed = find(batch, queue, name) if _maybe_sent(exc) else None
        if landed is None:
            raise
        return landed, True
    return {
        "jobId": answer["jobId"],
        "jobArn": answer["jobArn"],
        "jobName": name,
        "status": "SUBMITTED",
    }, False


def _maybe_sent(exc: BaseException) -> bool:
    """The submit may have reached Batch (the answer lost, or a retry of it), or Batch refused
    the token as used: another submit of the same job got there first."""
    if isinstance(exc, ClientError) and "clientToken" in error_message(exc):
        return True
    return may_have_landed(exc)


@translated
def find(batch: Any, queue: str, name: str) -> dict[str, Any] | None:
    """The newest service job named ``name`` in ``queue`` (any state), or None."""
    pages = _summaries(batch, jobQueue=queue, filters=[{"name": "JOB_NAME", "values": [name]}])
    exact = [job for job in pages if job.get("jobName") == name]
    return max(exact, key=lambda job: job.get("createdAt", 0)) if exact else None


@translated
def describe(batch: Any, job_id: str) -> dict[str, Any]:
    """DescribeServiceJob."""
    return dict(batch.describe_service_job(jobId=job_id))


@translated
def terminate(batch: Any, job_id: str, reason: str) -> None:
    """TerminateServiceJob: the job ends FAILED with ``reason``, its training job is stopped."""
    batch.terminate_service_job(jobId=job_id, reason=reason)


@translated
def jobs_in(batch: Any, queue: str, states: tuple[str, ...] = STATES) -> list[dict[str, Any]]:
    """The queue's service jobs in ``states`` (one ListServiceJobs per state: without a filter
    Batch lists one state at a time)."""
    return [job for state in states for job in _summaries(batch, jobQueue=queue, jobStatus=state)]


def _summaries(batch: Any, **query: Any) -> Iterator[dict[str, Any]]:
    while True:
        page = batch.list_service_jobs(**query)
        yield from page.get("jobSummaryList", [])
        if not page.get("nextToken"):
            return
        query["nextToken"] = page["nextToken"]


def training_job_arn(detail: dict[str, Any]) -> str | None:
    """The ARN of the training job the service job's latest attempt started, or None."""
    resource = (detail.get("latestAttempt") or {}).get("serviceResourceId") or {}
    value = resource.get("value")
    return str(value) if value else None

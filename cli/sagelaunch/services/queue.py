"""A training job that waits for capacity in an AWS Batch job queue (`compute.queue`,
`submit --queue`): sent once, shown with its place in the queue, followed to its training job.

Submit checks the queue (exists, SAGEMAKER_TRAINING, enabled; a share where the queue shares
fairly), uploads the code when it is missing (as a direct submit does), then sends the plan's
SubmitServiceJob request. The job name is the clientToken: a rerun, also one racing the first,
finds the job already in the queue and attaches to it when its serviceRequestPayload is this
plan's (else it is refused with the differences, as a training job of the same name is).

Following: the service job through SUBMITTED, PENDING, RUNNABLE (with its place) and SCHEDULED
until its attempt has a training job, then that training job (`services.follow`); a job Batch
puts back in the queue (a retry, a preemption) is followed there again. A job that ends before
any training job started fails with Batch's own reason.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sagelaunch.errors import AttachRefused, JobFailed, UsageError, WaitTimeout
from sagelaunch.links import console_url
from sagelaunch.plan_model import Plan
from sagelaunch.services import attach
from sagelaunch.services.follow import Ending, Observer, follow
from sagelaunch.statuses import JobStatus

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients
    from sagelaunch.bundle import BundleData

POLL_S = 5.0
STOP_REASON = "stopped with sagelaunch stop"


@dataclass
class QueuedSubmission:
    """`submit --output json` of a queued job (stable keys)."""

    job_name: str
    queue: str
    service_job_id: str
    service_job_arn: str
    status: str  # the service job's: SUBMITTED, RUNNABLE, …
    place: int | None  # 1-based among the queue's waiting jobs (None once started)
    uploaded: bool
    bundle_sha256: str | None
    attached: bool  # the job was in the queue already, with this very payload


def named_queue(target: Path, overrides: list[str] | None, queue: str | None) -> list[str] | None:
    """A config's overrides with `--queue` as its compute.queue.name: checked by the rules at
    its place with the rest of compute.queue (``--set compute.queue.priority=…`` beside it).
    A saved plan takes it in `queued`."""
    if not queue or target.suffix == ".json":
        return overrides
    return [*(overrides or []), f"compute.queue.name={queue}"]


def queued(plan: Plan, queue: str | None) -> Plan:
    """``plan`` sent to ``queue`` (`--queue`: the config's other queue settings kept)."""
    if queue is None:
        return plan
    settings = plan.queue.settings if plan.queue else {}
    return plan.queued({**settings, "name": queue})


def send(
    aws: Clients,
    plan: Plan,
    data: BundleData | None,
    uploader: Callable[[Clients, str, BundleData], None],
) -> QueuedSubmission:
    """Check the queue, upload the code when missing, submit once (or attach)."""
    from sagelaunch.aws import batch
    from sagelaunch.aws.upload import exists

    assert plan.queue is not None
    request = plan.queue.request
    detail = batch.queue_detail(_batch(aws), plan.queue.queue)
    _require_share(plan, detail)
    request = {**request, "jobQueue": detail["jobQueueArn"]}
    upload = plan.upload
    code_there = upload is None or exists(aws.s3, upload.s3_uri)
    if not code_there:
        assert upload is not None and data is not None
        uploader(aws, upload.s3_uri, data)
    job, attached = batch.submit(_batch(aws), request)
    described = batch.describe(_batch(aws), job["jobId"])
    if attached:
        _require_same(request, described)
    where = place(aws, detail["jobQueueArn"], job["jobId"])
    return QueuedSubmission(
        job_name=request["jobName"],
        queue=detail["jobQueueName"],
        service_job_id=job["jobId"],
        service_job_arn=job["jobArn"],
        status=described["status"],
        place=where,
        uploaded=not code_there,
        bundle_sha256=upload.sha256 if upload else None,
        attached=attached,
    )


def _batch(aws: Clients) -> Any:
    return aws.client("batch")


def _require_share(plan: Plan, queue: dict[str, Any]) -> None:
    """A fair-share queue takes only jobs with a share, and a plain one none (Batch refuses
    both at SubmitServiceJob; said here with the fix)."""
    from sagelaunch.aws.batch import fair_share

    assert plan.queue is not None
    share = plan.queue.request.get("shareIdentifier")
    name = queue["jobQueueName"]
    if fair_share(queue) and not share:
        raise UsageError(
            f"job queue {name!r} schedules by fair share: each job needs a share identifier",
            hint="set compute.queue.share (e.g. --set compute.queue.share=research)",
        )
    if share and not fair_share(queue):
        raise UsageError(
            f"job queue {name!r} has no fair-share policy: Batch refuses a share identifier "
            f"({share!r}) there",
            hint="drop compute.queue.share, or use a queue with a fair-share scheduling policy",
        )


def _require_same(request: dict[str, Any], existing: dict[str, Any]) -> None:
    """Refuse to attach to a service job of this name that carries another training request."""
    if existing.get("serviceRequestPayload") == request["serviceRequestPayload"]:
        return
    ours = json.loads(request["serviceRequestPayload"])
    theirs = json.loads(existing.get("serviceRequestPayload") or "{}")
    found = attach.differences(ours, theirs) or [
        attach.Difference("serviceRequestPayload", "this plan's", "another")
    ]
    raise AttachRefused(request["jobName"], [f"queued {d}" for d in found])


def place(aws: Clients, queue_arn: str, job_id: str) -> int | None:
    """The job's 1-based place among the queue's waiting jobs (None once it has started or
    ended)."""
    order = waiting_order(aws, queue_arn)
    return order.index(job_id) + 1 if job_id in order else None


def waiting_order(aws: Clients, queue_arn: str) -> list[str]:
    """The ids of the queue's waiting jobs in start order (`in_start_order`)."""
    from sagelaunch.aws import batch

    client = _batch(aws)
    waiting = batch.jobs_in(client, queue_arn, batch.WAITING)
    described = {job["jobId"]: batch.describe(client, job["jobId"]) for job in waiting}
    return [job["jobId"] for job in in_start_order(waiting, described)]


def in_start_order(
    waiting: list[dict[str, Any]], described: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """Waiting job summaries as Batch starts them: higher schedulingPriority (from each one's
    DescribeServiceJob, by id) first, then the earlier submit (a fair-share queue also takes
    turns between shares, which this order does not show)."""
    return sorted(
        waiting,
        key=lambda job: (
            -described[job["jobId"]].get("schedulingPriority", 0),
            job.get("createdAt") or 0,
        ),
    )


def find(aws: Clients, queue: str, name: str) -> dict[str, Any]:
    """The service job ``name`` in ``queue``, described (an error naming both when absent)."""
    from sagelaunch.aws import batch

    return job_named(aws, batch.queue_detail(_batch(aws), queue)["jobQueueArn"], queue, name)


def job_named(aws: Clients, queue_arn: str, queue: str, name: str) -> dict[str, Any]:
    """`find` in a queue already resolved to its ARN (a follower looks it up once)."""
    from sagelaunch.aws import batch
    from sagelaunch.errors import AwsError

    found = batch.find(_batch(aws), queue_arn, name)
    if found is None:
        raise AwsError(
            f"no service job named {name!r} in job queue {queue!r}",
            hint=f"see the queue's jobs with: sagelaunch list --queue {queue}",
        )
    return batch.describe(_batch(aws), found["jobId"])


def training_job_of(job: dict[str, Any]) -> str | None:
    """The name of the training job the service job's latest attempt started, or None."""
    from sagelaunch.aws.batch import training_job_arn

    arn = training_job_arn(job)
    if arn is None:
        return None
    tail = arn.rsplit("/", 1)[-1]
    payload = json.loads(job.get("serviceRequestPayload") or "{}")
    named = str(payload.get("TrainingJobName") or job.get("jobName") or "")
    # SageMaker writes a job's ARN in lower case; the name the payload gave it is its name.
    return named if tail.lower() == named.lower() else tail


def status(aws: Clients, queue: str, name: str) -> dict[str, Any]:
    """`status NAME --queue Q` (stable keys): the service job, its place while it waits, and
    its training job once one started."""
    from sagelaunch.aws import jobs

    job = find(aws, queue, name)
    training = training_job_of(job)
    described = jobs.describe(aws.sagemaker, training) if training else None
    return {
        "job_name": name,
        "queue": queue,
        "service_job_id": job["jobId"],
        "status": job["status"],
        "status_reason": job.get("statusReason"),
        "place": place(aws, job["jobQueue"], job["jobId"]),
        "priority": job.get("schedulingPriority", 0),
        "share": job.get("shareIdentifier"),
        "attempts": len(job.get("attempts") or []),
        "training_job": training,
        "training_status": described.get("TrainingJobStatus") if described else None,
        "secondary_status": described.get("SecondaryStatus") if described else None,
        "console_url": console_url(aws.region, training) if training else None,
    }


@dataclass(frozen=True)
class Waiting:
    """How the service job is doing while it waits (for the caller to draw)."""

    status: str
    place: int | None
    reason: str | None


def follow_queued(
    aws: Clients,
    queue: str,
    name: str,
    timeout_s: float | None,
    observer: Observer = Observer(),
    poll_s: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    host: str | None = None,
) -> Ending:
    """Follow the queued job until its training job ends (and Batch does not put it back in the
    queue) or the timeout passes (``host``: only that host's logs, as `follow` reads them); each
    change while it waits goes to ``observer.on_wait``. A job that ends before any training job:
    JobFailed with Batch's reason; still waiting at the timeout: WaitTimeout."""
    from sagelaunch.aws import batch

    poll = POLL_S if poll_s is None else poll_s
    deadline = None if timeout_s is None else clock() + timeout_s
    queue_arn = batch.queue_detail(_batch(aws), queue)["jobQueueArn"]
    last: Waiting | None = None
    followed: str | None = None
    end: Ending | None = None
    while True:
        job = job_named(aws, queue_arn, queue, name)
        training = training_job_of(job)
        if training is not None and training != followed and job["status"] not in batch.WAITING:
            followed = training
            left = None if deadline is None else max(0.0, deadline - clock())
            end = follow(aws, training, left, observer, host=host)
            job = job_named(aws, queue_arn, queue, name)
        if job["status"] in batch.ENDED:
            if end is None:
                raise JobFailed(
                    f"queued job {name} failed before any training job started: "
                    f"{job.get('statusReason') or 'no reason given'}"
                )
            return end
        if end is not None and end.status == JobStatus.InProgress:  # the follow's own timeout
            return end
        now = Waiting(job["status"], place(aws, queue_arn, job["jobId"]), job.get("statusReason"))
        if now != last:
            last = now
            observer.on_wait(now)
        if deadline is not None and clock() >= deadline:
            where = f" (place {now.place})" if now.place else ""
            raise WaitTimeout(
                f"queued job {name} is still {now.status}{where} in job queue {queue}"
                + (f" after waiting {timeout_s:g}s" if timeout_s is not None else ""),
                hint=f"keep waiting with: sagelaunch wait {name} --queue {queue}",
            )
        sleep(poll if deadline is None else max(0.0, min(poll, deadline - clock())))


def stop(aws: Clients, queue: str, name: str) -> dict[str, Any]:
    """TerminateServiceJob: the job leaves the queue, or its training job is stopped."""
    from sagelaunch.aws import batch

    job = find(aws, queue, name)
    if job["status"] not in batch.ENDED:
        batch.terminate(_batch(aws), job["jobId"], STOP_REASON)
    return job


def listing(aws: Clients, queue: str) -> dict[str, Any]:
    """`list --queue Q`: the queue (state, priority, fair share) and its jobs, waiting ones in
    start order with their place, then the started and ended ones, newest first."""
    from sagelaunch.aws import batch

    client = _batch(aws)
    detail = batch.queue_detail(client, queue)
    jobs = batch.jobs_in(client, detail["jobQueueArn"])
    described = {job["jobId"]: batch.describe(client, job["jobId"]) for job in jobs}
    waiting = in_start_order([j for j in jobs if j["status"] in batch.WAITING], described)
    others = sorted(
        (j for j in jobs if j["status"] not in batch.WAITING),
        key=lambda job: -(job.get("createdAt") or 0),
    )

    def row(job: dict[str, Any]) -> dict[str, Any]:
        full = described[job["jobId"]]
        return {
            "job_name": job["jobName"],
            "status": job["status"],
            "priority": full.get("schedulingPriority", 0),
            "share": job.get("shareIdentifier"),
            "instances": int(sum(u.get("quantity", 0) for u in job.get("capacityUsage") or [])),
            "created_at": job.get("createdAt"),
            "status_reason": job.get("statusReason"),
            "training_job": training_job_of(full),
        }

    rows = [{**row(job), "place": number} for number, job in enumerate(waiting, start=1)]
    return {
        "queue": detail["jobQueueName"],
        "arn": detail["jobQueueArn"],
        "state": detail.get("state"),
        "priority": detail.get("priority"),
        "fair_share": batch.fair_share(detail),
        "jobs": [*rows, *(row(job) for job in others)],
    }

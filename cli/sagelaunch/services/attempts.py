"""A failover chain's attempts: why each ended, and the tags that link their jobs, so `status` of
any one of them shows the whole chain (a chain may span regions, and its CI step may be gone).

Each job of a chain carries, through AddTags (the CreateTrainingJob request stays what `plan`
shows): its attempt number, the ARN of the previous attempt's job, the numbers of the attempts
between the two that the quota pre-flight refused (they made no job), and, once the chain moved
on, the ARN of the next attempt's job. Writing them again on a rerun changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from sagelaunch import resource_config
from sagelaunch.plan.cost import job_cost
from sagelaunch.statuses import INTERRUPTED, JobStatus

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients

ATTEMPT = "sagelaunch:attempt"
PREVIOUS = "sagelaunch:previous-attempt"
NEXT = "sagelaunch:next-attempt"
QUOTA_REFUSED = "sagelaunch:quota-refused"  # attempt numbers, space-separated
MAX_ATTEMPTS_SHOWN = 64  # a guard against a tag loop someone made by hand

# The FailureReason prefixes of a job SageMaker could not find instances for.
CAPACITY_REASONS = (
    "CapacityError",
    "InsufficientCapacityError",
    "Unable to provision requested ML compute capacity",
)
QUOTA_REFUSAL = "quota: the pre-flight refused it (no job)"


def is_capacity_failure(job: dict[str, Any]) -> bool:
    """The job failed because SageMaker had no instances for it, not because of the code."""
    reason = job.get("FailureReason") or ""
    return job.get("TrainingJobStatus") == JobStatus.Failed and any(
        marker in reason for marker in CAPACITY_REASONS
    )


def interruptions(job: dict[str, Any]) -> int:
    """How many times managed spot took the job's instances away (SecondaryStatus Interrupted)."""
    return sum(t.get("Status") == INTERRUPTED for t in job.get("SecondaryStatusTransitions", []))


def ended_because(job: dict[str, Any], gave_way: str | None = None, moved_on: bool = False) -> str:
    """Why an attempt's job ended: "capacity: …", "spot: …" (``gave_way``, or a stopped spot
    job the chain moved on from), "code: …" (the user's code failed), or its final status."""
    status = job["TrainingJobStatus"]
    if is_capacity_failure(job):
        return f"capacity: {job.get('FailureReason')}"
    if status == JobStatus.Failed:
        return f"code: {job.get('FailureReason') or 'no reason given'}"
    if gave_way and status != JobStatus.Completed:
        return gave_way
    if status == JobStatus.Stopped and moved_on and job.get("EnableManagedSpotTraining"):
        return f"spot: stopped after {interruptions(job)} interruptions, for the on-demand rerun"
    return str(status)


def link(
    aws: Clients, arn: str, number: int, previous: tuple[Clients, str] | None, refused: list[int]
) -> None:
    """Tag attempt ``number``'s job with its place in the chain, and the previous job with it."""
    from sagelaunch.aws import jobs

    tags = {ATTEMPT: str(number)}
    if previous is not None:
        tags[PREVIOUS] = previous[1]
    if refused:
        tags[QUOTA_REFUSED] = " ".join(str(n) for n in refused)
    jobs.add_tags(aws.sagemaker, arn, tags)
    if previous is not None:
        jobs.add_tags(previous[0].sagemaker, previous[1], {NEXT: arn})


@dataclass
class ChainAttempt:
    """One attempt as `status` shows it (`status --output json`'s "attempts")."""

    number: int
    job_name: str | None  # None: the quota pre-flight refused it
    region: str | None
    cluster: str | None  # "2 × ml.g5.48xlarge"
    spot: bool | None
    status: str | None
    ended_because: str | None  # None while the job runs
    cost_usd: float | None


def read_chain(aws: Clients, job: dict[str, Any]) -> list[ChainAttempt] | None:
    """The chain ``job`` belongs to, in attempt order; None for a job of no chain."""
    from sagelaunch.aws import jobs

    tags = _tag_map(jobs.tags(aws.sagemaker, job["TrainingJobArn"]))
    if ATTEMPT not in tags:
        return None
    nodes = [(job, tags)]
    while PREVIOUS in nodes[0][1] and len(nodes) < MAX_ATTEMPTS_SHOWN:
        nodes.insert(0, _node(aws, nodes[0][1][PREVIOUS]))
    while NEXT in nodes[-1][1] and len(nodes) < MAX_ATTEMPTS_SHOWN:
        nodes.append(_node(aws, nodes[-1][1][NEXT]))
    attempts: list[ChainAttempt] = []
    for index, (described, node_tags) in enumerate(nodes):
        refused = node_tags.get(QUOTA_REFUSED, "").split()
        attempts += [_refused(int(number)) for number in refused]
        attempts.append(_attempt(described, node_tags, moved_on=index < len(nodes) - 1))
    return attempts


class Billed(Protocol):
    job_name: str | None
    cost_usd: float | None


def chain_cost(attempts: Sequence[Billed]) -> float | None:
    """What the chain's jobs cost together (None while one of them has an unknown price)."""
    costs = [a.cost_usd for a in attempts if a.job_name]
    return None if None in costs else round(sum(c or 0.0 for c in costs), 2)


def _node(aws: Clients, arn: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The description and tags of the job at ``arn`` (a chain may move to another region)."""
    from sagelaunch.aws import jobs

    region, name = arn.split(":")[3], arn.split("/", 1)[1]
    if region != aws.region:
        from sagelaunch.aws.session import clients

        aws = clients(region)
    described = jobs.describe(aws.sagemaker, name)
    if described is None:
        raise jobs.missing(name)
    return described, _tag_map(jobs.tags(aws.sagemaker, arn))


def _tag_map(tags: list[dict[str, str]]) -> dict[str, str]:
    return {tag["Key"]: tag["Value"] for tag in tags}


def _refused(number: int) -> ChainAttempt:
    return ChainAttempt(number, None, None, None, None, None, QUOTA_REFUSAL, None)


def _attempt(job: dict[str, Any], tags: dict[str, str], moved_on: bool) -> ChainAttempt:
    kind, count = resource_config.running(job.get("ResourceConfig", {}))
    running = job["TrainingJobStatus"] in (JobStatus.InProgress, JobStatus.Stopping)
    cost = job_cost(job)
    return ChainAttempt(
        number=int(tags[ATTEMPT]),
        job_name=job["TrainingJobName"],
        region=str(job.get("TrainingJobArn", "::::")).split(":")[3] or None,
        cluster=f"{count} × {kind}",
        spot=bool(job.get("EnableManagedSpotTraining")),
        status=job["TrainingJobStatus"],
        ended_because=None if running else ended_because(job, moved_on=moved_on),
        cost_usd=cost["usd"] if cost else None,  # type: ignore[arg-type]
    )

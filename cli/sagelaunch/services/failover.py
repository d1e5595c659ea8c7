"""Failover chain: submit the main config, and when SageMaker has no capacity for it (or the
quota pre-flight says no), the next alternative of `compute.fallback`, until one runs to its end.

Only a lack of capacity or quota moves the chain on: a failure of the user's code ends it (the
next instance type would fail the same way, and cost again). Each attempt is a job of its own,
named from the idempotency key and the attempt's number, so a retried CI step walks the same
chain and attaches to every job it already made instead of creating a second one. The
alternatives keep the config's `checkpoint.s3_uri`, so an attempt resumes where the last stopped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sagelaunch.config.cost import job_cost
from sagelaunch.errors import QuotaExceeded
from sagelaunch.services import submit
from sagelaunch.services.follow import Ending, Observer, StopWhen, follow
from sagelaunch.statuses import INTERRUPTED, JobStatus

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients
    from sagelaunch.config.model import Fallback

# The FailureReason prefixes of a job SageMaker could not find instances for.
CAPACITY_REASONS = (
    "CapacityError",
    "InsufficientCapacityError",
    "Unable to provision requested ML compute capacity",
)


@dataclass
class Attempt:
    """One job of the chain (`submit --output json`'s "attempts")."""

    number: int
    alternative: str  # "main config", or what the alternative changes
    region: str
    job_name: str | None = None
    status: str | None = None
    ended_because: str | None = None  # why the chain moved on (or ended) after this attempt
    checkpoint_s3_uri: str | None = None
    cost_usd: float | None = None  # billable seconds × the dated price (config.cost.job_cost)


@dataclass(frozen=True)
class Following:
    """How each attempt's job is followed: for how long, and what the caller is shown."""

    timeout_s: float | None
    observer: Observer

    def follow(self, aws: Clients, name: str, stop_when: StopWhen | None) -> Ending:
        return follow(aws, name, self.timeout_s, self.observer, stop_when=stop_when)


@dataclass
class Chain:
    attempts: list[Attempt] = field(default_factory=list)
    final: Ending | None = None  # how the job the chain ended with ended
    last: submit.Submission | None = None  # the submission of that job
    refusal: QuotaExceeded | None = None  # the last quota refusal, when no job ran at all

    @property
    def cost_usd(self) -> float | None:
        """What the chain's jobs cost together (None while one of them has an unknown price)."""
        costs = [a.cost_usd for a in self.attempts if a.job_name]
        return None if None in costs else round(sum(c or 0.0 for c in costs), 2)


def is_capacity_failure(job: dict[str, Any]) -> bool:
    """The job failed because SageMaker had no instances for it, not because of the code."""
    reason = job.get("FailureReason") or ""
    return job.get("TrainingJobStatus") == JobStatus.Failed and any(
        marker in reason for marker in CAPACITY_REASONS
    )


def interruptions(job: dict[str, Any]) -> int:
    """How many times managed spot took the job's instances away (SecondaryStatus Interrupted)."""
    return sum(t.get("Status") == INTERRUPTED for t in job.get("SecondaryStatusTransitions", []))


def describe_alternative(alternative: Fallback | None) -> str:
    """ "main config", or what the alternative changes: "2 × ml.p4d.24xlarge, us-west-2"."""
    if alternative is None:
        return "main config"
    cluster = alternative.instance_type or ""
    if alternative.instance_count is not None:
        cluster = f"{alternative.instance_count} × {cluster or 'instances'}"
    parts = [cluster, alternative.region or "", "on demand" if alternative.on_demand else ""]
    return ", ".join(part for part in parts if part) or "main config again"


def run(
    target: Path,
    overrides: list[str] | None,
    key: str | None,
    region: str | None,
    fallbacks: list[Fallback],
    following: Following,
    **deliver_options: Any,
) -> Chain:
    """Walk the chain: each attempt planned, quota-checked, submitted (or attached) and
    followed to its end; move on only when capacity or quota was missing."""
    chain = Chain()
    for number, alternative in enumerate([None, *fallbacks]):
        attempt = Attempt(number, describe_alternative(alternative), region or "")
        chain.attempts.append(attempt)
        if _run_attempt(
            chain, attempt, alternative, target, overrides, key, region, following, deliver_options
        ):
            return chain
    if chain.final is None and chain.refusal is not None:
        raise chain.refusal
    return chain


def fallbacks_of(target: Path, overrides: list[str] | None) -> list[Fallback]:
    """The config's failover chain (a saved plan has none: it is one exact request); with
    `compute.spot.fallback_after`, an on-demand rerun of the main config ends it."""
    if target.suffix == ".json":
        return []
    from sagelaunch.config.loader import load
    from sagelaunch.config.model import Fallback

    compute = load(target, overrides).config.compute
    chain = list(compute.fallback)
    if compute.spot and compute.spot.fallback_after and not any(f.on_demand for f in chain):
        chain.append(Fallback(on_demand=True))
    return chain


def _spot_limit(target: Path, overrides: list[str]) -> StopWhen | None:
    """Stop a spot job interrupted `compute.spot.fallback_after` times (the chain goes on
    demand); None for an on-demand attempt or without the setting."""
    from sagelaunch.config.loader import load

    spot = load(target, overrides).config.compute.spot
    if spot is None or spot.fallback_after is None:
        return None
    limit = spot.fallback_after
    return lambda job: interruptions(job) >= limit


def _run_attempt(
    chain: Chain,
    attempt: Attempt,
    alternative: Fallback | None,
    target: Path,
    overrides: list[str] | None,
    key: str | None,
    region: str | None,
    following: Following,
    deliver_options: dict[str, Any],
) -> bool:
    """One attempt; True when the chain ends with it."""
    sets = [*(overrides or []), *(alternative.overrides() if alternative else [])]
    where = (alternative.region if alternative else None) or region
    attempt_key = f"{key}/attempt-{attempt.number}" if key else None
    if where != region:  # clients given for the main region cannot serve another one
        deliver_options = {**deliver_options, "aws": None}
    try:
        result, aws = submit.deliver(
            target, sets, attempt_key, where, check_quota=True, **deliver_options
        )
    except QuotaExceeded as exc:
        attempt.ended_because = f"quota: {exc}"
        chain.refusal = exc
        return False
    attempt.region, attempt.job_name = aws.region, result.job_name
    limit = _spot_limit(target, sets)
    chain.final = end = following.follow(aws, result.job_name, limit)
    chain.last = result
    final = end.description
    result.status = attempt.status = final["TrainingJobStatus"]
    attempt.checkpoint_s3_uri = final.get("CheckpointConfig", {}).get("S3Uri")
    cost = job_cost(final)
    attempt.cost_usd = cost["usd"] if cost else None  # type: ignore[assignment]
    if is_capacity_failure(final):
        attempt.ended_because = f"capacity: {final.get('FailureReason')}"
        return False
    if limit is not None and limit(final) and final["TrainingJobStatus"] != JobStatus.Completed:
        attempt.ended_because = f"spot: interrupted {interruptions(final)} times"
        return False
    attempt.ended_because = final.get("FailureReason") or attempt.status
    return True


def alternative_costs(target: Path, overrides: list[str] | None) -> list[dict[str, object]]:
    """`plan`'s view of the chain: each alternative with its price (offline, no SDK)."""
    from sagelaunch.config.cost import estimate
    from sagelaunch.config.loader import load

    rows: list[dict[str, object]] = []
    for number, alternative in enumerate(fallbacks_of(target, overrides), start=1):
        loaded = load(target, [*(overrides or []), *alternative.overrides()])
        cost = estimate(loaded.config)
        row = {"attempt": number, "alternative": describe_alternative(alternative)}
        rows.append({**row, "region": loaded.config.region, **cost.as_json()})
    return rows

"""`submit`'s failover chain: submit the main config, and when SageMaker has no capacity for it
(or the quota pre-flight says no), the next alternative of `compute.fallback`, until one runs to
its end.

The walk itself (which attempt is next, its key, what moves the chain on, how each job joins
it) is services/chain_walk.py's, shared with a sweep's trials; here each attempt is planned from
the config with the alternative's changes, sent through `submit.deliver` and followed to its end.
The alternatives keep the config's `checkpoint.s3_uri`, so an attempt resumes where the last
stopped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sagelaunch.errors import QuotaExceeded
from sagelaunch.plan.cost import job_cost
from sagelaunch.services import submit
from sagelaunch.services.attempts import chain_cost, ended_because, interruptions
from sagelaunch.services.chain_walk import ChainWalk, chain_of, moves_on
from sagelaunch.services.create_once import Submission
from sagelaunch.services.follow import TRAINING, Ending, Observer, StopWhen, ending, follow
from sagelaunch.statuses import TERMINAL, JobStatus

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients
    from sagelaunch.config.loader import LoadedConfig
    from sagelaunch.config.model import Fallback, FallbackAfter


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
    cost_usd: float | None = None  # billable seconds × the dated price (plan.cost.job_cost)


@dataclass(frozen=True)
class Following:
    """How each attempt's job is followed: for how long, what the caller is shown, and whether
    at all (submit without --wait only looks where the attempt stands)."""

    timeout_s: float | None
    observer: Observer
    wait: bool = True

    def follow(self, aws: Clients, name: str, stop_when: StopWhen | None) -> Ending:
        if not self.wait:
            job = TRAINING.api.describe(aws.sagemaker, name) or {
                "TrainingJobName": name,
                "TrainingJobStatus": JobStatus.InProgress,
            }
            return ending(TRAINING, job)
        return follow(aws, name, self.timeout_s, self.observer, stop_when=stop_when)


@dataclass
class Chain:
    attempts: list[Attempt] = field(default_factory=list)
    final: Ending | None = None  # how the job the chain ended with ended
    last: Submission | None = None  # the submission of that job
    refusal: QuotaExceeded | None = None  # the last quota refusal, when no job ran at all
    walk: ChainWalk = field(default_factory=lambda: ChainWalk([]))

    @property
    def cost_usd(self) -> float | None:
        """What the chain's jobs cost together (None while one of them has an unknown price)."""
        return chain_cost(self.attempts)


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
    watched to its end; move on only when capacity or quota was missing."""
    chain = Chain(walk=ChainWalk(fallbacks, key))
    for number, alternative in chain.walk.alternatives():
        attempt = Attempt(number, describe_alternative(alternative), region or "")
        chain.attempts.append(attempt)
        if _run_attempt(
            chain, attempt, alternative, target, overrides, region, following, deliver_options
        ):
            return chain
    if chain.final is None and chain.refusal is not None:
        raise every_refusal(chain.attempts, chain.refusal)
    return chain


def every_refusal(attempts: list[Attempt], last: QuotaExceeded) -> QuotaExceeded:
    """No attempt of the chain could start a job: one error naming each alternative tried and
    why it was refused (the last refusal's hint: how to raise a quota)."""
    prefixes = ("quota: ", "not enough quota for this job: ")
    reasons = [a.ended_because or "refused" for a in attempts]
    for prefix in prefixes:
        reasons = [reason.removeprefix(prefix) for reason in reasons]
    tried = "; ".join(f"{a.alternative}: {r}" for a, r in zip(attempts, reasons, strict=True))
    noun = "alternative" if len(attempts) == 1 else f"all {len(attempts)} alternatives"
    return QuotaExceeded(f"failover chain: {noun} short of quota: {tried}", hint=last.hint)


def fallbacks_of(target: Path, overrides: list[str] | None) -> list[Fallback]:
    """The config's failover chain (a saved plan has none: it is one exact request); with
    `compute.spot.fallback_after`, an on-demand rerun of the main config ends it."""
    if target.suffix == ".json":
        return []
    from sagelaunch.config.loader import load

    return chain_of(load(target, overrides).config.compute)


def spot_gave_way(limit: FallbackAfter, job: dict[str, Any]) -> str | None:
    """Why a spot job gives way to the on-demand rerun (`compute.spot.fallback_after`), if it
    does: interrupted that many times, or not ended that long after it was created."""
    if limit.interruptions is not None:
        count = interruptions(job)
        return f"spot: interrupted {count} times" if count >= limit.interruptions else None
    created = job.get("CreationTime")
    if limit.seconds is None or not isinstance(created, datetime):
        return None
    age = datetime.now(created.tzinfo or timezone.utc) - created
    if age.total_seconds() < limit.seconds:
        return None
    return f"spot: not ended {_duration(limit.seconds)} after it was created"


def _duration(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    parts = [f"{hours}h" if hours else "", f"{rest // 60}m" if rest // 60 else ""]
    return "".join(parts) + (f"{rest % 60}s" if rest % 60 else "") or "0s"


def _spot_limit(target: Path, overrides: list[str]) -> StopWhen | None:
    """Stop a spot job that reached `compute.spot.fallback_after` (the chain goes on demand);
    None for an on-demand attempt or without the setting."""
    from sagelaunch.config.loader import load

    spot = load(target, overrides).config.compute.spot
    if spot is None or spot.fallback_after is None:
        return None
    limit = spot.fallback_after
    return lambda job: spot_gave_way(limit, job)


def _run_attempt(
    chain: Chain,
    attempt: Attempt,
    alternative: Fallback | None,
    target: Path,
    overrides: list[str] | None,
    region: str | None,
    following: Following,
    deliver_options: dict[str, Any],
) -> bool:
    """One attempt; True when the chain ends with it (for now: a job still running)."""
    sets = [*(overrides or []), *(alternative.overrides() if alternative else [])]
    where = (alternative.region if alternative else None) or region
    attempt_key = chain.walk.key_for(attempt.number)
    if where != region:  # clients given for the main region cannot serve another one
        deliver_options = {**deliver_options, "aws": None}
    try:
        result, aws = submit.deliver(
            target, sets, attempt_key, where, check_quota=True, **deliver_options
        )
    except QuotaExceeded as exc:
        attempt.ended_because = f"quota: {exc}"
        chain.refusal = exc
        chain.walk.quota_refused(attempt.number)
        return False
    assert isinstance(result, Submission)  # a queue and a chain: refused (rules/queue)
    attempt.region, attempt.job_name = aws.region, result.job_name
    chain.walk.joined(aws, result.arn, attempt.number)
    limit = _spot_limit(target, sets)
    chain.final = end = following.follow(aws, result.job_name, limit)
    chain.last = result
    final = end.description
    result.status = attempt.status = final["TrainingJobStatus"]
    attempt.checkpoint_s3_uri = final.get("CheckpointConfig", {}).get("S3Uri")
    cost = job_cost(final)
    attempt.cost_usd = cost["usd"] if cost else None  # type: ignore[assignment]
    if final["TrainingJobStatus"] not in TERMINAL:
        return True  # running (submit without --wait, or the wait timed out)
    attempt.ended_because = ended_because(final, limit(final) if limit else None)
    return not moves_on(attempt.ended_because)


def alternative_costs(
    planned: LoadedConfig, overrides: list[str] | None
) -> list[dict[str, object]]:
    """`plan`'s view of the chain of the config ``planned`` (as `plan` loaded it): each
    alternative with its price and its region's image (offline, no SDK: the image from the SDK's
    tables, as validate resolves it)."""
    from sagelaunch.checks.rules.frameworks import check_region
    from sagelaunch.config.loader import load
    from sagelaunch.plan.cost import estimate
    from sagelaunch.plan.images import training_image

    rows: list[dict[str, object]] = []
    for number, alternative in enumerate(chain_of(planned.config.compute), start=1):
        loaded = load(planned.path, [*(overrides or []), *alternative.overrides()])
        cost = estimate(loaded.config)
        row = {"attempt": number, "alternative": describe_alternative(alternative)}
        image = {"image": training_image(loaded.config, check_region(loaded))}
        rows.append({**row, "region": loaded.config.region, **image, **cost.as_json()})
    return rows

"""Job-queue rules (`compute.queue`): what a queue and a client-side failover chain each do, a
queue takes no tuning job, and an attempt timeout that ends the job before SageMaker's limit."""

from __future__ import annotations

from collections.abc import Iterator

from sagelaunch.checks.rules.registry import error, rule, warning
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.errors import Problem
from sagelaunch.queue_request import default_timeout

# AWS Batch for SageMaker training: a job the service refuses for capacity goes back to RUNNABLE
# without using up an attempt (Batch User Guide, "Service job retry strategies"), so a queued job
# never ends for lack of capacity and a failover chain waiting for that end never moves.
QUEUE_WAITS = (
    "a queued job waits in the queue until capacity frees up (AWS Batch requeues it on a "
    "capacity error without using up an attempt)"
)


@rule
def queue_with_failover(loaded: LoadedConfig) -> Iterator[Problem]:
    """Refused: `compute.queue` and a client-side failover chain (`compute.fallback`,
    `compute.spot.fallback_after`) are two answers to no capacity, and the chain never runs."""
    compute = loaded.config.compute
    if compute.queue is None:
        return
    chain = "compute.fallback" if compute.fallback else None
    if chain is None and compute.spot is not None and compute.spot.fallback_after is not None:
        chain = "compute.spot.fallback_after"
    if chain is None:
        return
    path = ("compute", "fallback") if compute.fallback else ("compute", "spot", "fallback_after")
    yield error(
        loaded,
        path,
        f"{chain} fails over to the next alternative when SageMaker has no capacity, but "
        f"{QUEUE_WAITS}: the chain would never move; keep compute.queue to wait, or drop it "
        f"to fail over with {chain}",
    )


@rule
def queue_with_tuning(loaded: LoadedConfig) -> Iterator[Problem]:
    """Refused: a job queue takes training jobs (SubmitServiceJob's serviceJobType is
    SAGEMAKER_TRAINING, and the SDK's TrainingQueue.submit takes an estimator), not a tuning
    job."""
    config = loaded.config
    if config.compute.queue is None or config.tuning is None:
        return
    yield error(
        loaded,
        ("compute", "queue"),
        "an AWS Batch job queue runs training jobs (service job type SAGEMAKER_TRAINING), not "
        "a hyperparameter tuning job; drop `tuning:` to queue this job, or use "
        "`sagelaunch sweep --queue` to queue each trial",
    )


@rule
def queue_timeout_before_max_run(loaded: LoadedConfig) -> Iterator[Problem]:
    """Advice: Batch ends an attempt after its timeout (timeoutConfig.attemptDurationSeconds;
    the SDK's default, one day, when unset), before a longer max_run (spot: max_wait) is up."""
    compute = loaded.config.compute
    if compute.queue is None:
        return
    longest = compute.spot.max_wait if compute.spot is not None else compute.max_run
    timeout = compute.queue.timeout if compute.queue.timeout is not None else default_timeout()
    if timeout >= longest:
        return
    limit = "compute.spot.max_wait" if compute.spot is not None else "compute.max_run"
    where = (
        ("compute", "queue", "timeout")
        if compute.queue.timeout is not None
        else ("compute", "queue")
    )
    yield warning(
        loaded,
        where,
        f"AWS Batch ends the job's attempt after {timeout}s (queue timeout"
        + ("" if compute.queue.timeout is not None else ", the SDK's default")
        + f"), before {limit} ({longest}s) is up; set compute.queue.timeout to at least {longest}",
    )

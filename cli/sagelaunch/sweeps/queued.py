"""`sweep --queue` (or a sweep whose config has `compute.queue`): every trial put on the job
queue once, the queue doing the waiting and the ordering (no client-side pacing, no
max_parallel: the queue's service environment caps the instances).

Each trial goes through `services.queue.send` (the queue checked, the trial's SubmitServiceJob
with the trial's own job name as clientToken): a rerun under the same key attaches to every
trial it queued. Following: a waiting trial is "Queued" with its place; once Batch starts it,
its training job's description is the trial's row, as for any sweep.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from sagelaunch.statuses import JobStatus
from sagelaunch.sweeps.record import record_job
from sagelaunch.sweeps.results import QUEUED, SweepResult, TrialState

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients
    from sagelaunch.bundle import BundleData
    from sagelaunch.sweeps.planning import PlannedSweep

POLL_S = 10.0


def is_queued(planned: PlannedSweep) -> bool:
    return any(trial.plan.queue is not None for trial in planned.trials)


def run(
    aws: Clients,
    planned: PlannedSweep,
    wait: bool,
    timeout_s: float | None,
    notify: Callable[[SweepResult], None] = lambda result: None,
    say: Callable[[str], None] = lambda message: None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> SweepResult:
    """Queue every trial (a bundle uploaded by the first trial that needs it), look once, and
    with ``wait`` follow them all until every trial ended or ``timeout_s`` passed."""
    from sagelaunch.aws import batch
    from sagelaunch.services import queue as queues
    from sagelaunch.services.create_once import put

    result = SweepResult(
        planned.name,
        planned.key if planned.key_given else None,
        [TrialState(t.trial.index, t.trial.parameters, t.plan.job_name) for t in planned.trials],
        planned.spec.sweep.objective,
    )

    def upload(clients: Clients, uri: str, data: BundleData) -> None:
        put(clients, uri, data)
        say(f"uploaded the code bundle to {uri}")

    queue = ""
    for trial, state in zip(planned.trials, result.trials, strict=True):
        sent = queues.send(aws, trial.plan, trial.bundle, upload)  # a bundle once: then in S3
        state.attached, queue = sent.attached, sent.queue
    queue_arn = batch.queue_detail(aws.client("batch"), queue)["jobQueueArn"]
    deadline = None if timeout_s is None else clock() + timeout_s
    while True:
        order = queues.waiting_order(aws, queue_arn)  # once a round, for every trial's place
        for state in result.trials:
            if not state.done:
                _look(aws, (queue_arn, queue), state, order)
        notify(result)
        ended = all(state.done for state in result.trials)
        if ended or not wait or (deadline is not None and clock() >= deadline):
            return result
        sleep(POLL_S if deadline is None else max(0.0, min(POLL_S, deadline - clock())))


def _look(aws: Clients, queue: tuple[str, str], state: TrialState, order: list[str]) -> None:
    """The trial as the queue (its ARN and name; its waiting jobs in ``order``) and its
    training job show it now."""
    from sagelaunch.aws import batch, jobs
    from sagelaunch.services import queue as queues

    job = queues.job_named(aws, *queue, state.job_name)
    training = queues.training_job_of(job)
    described = jobs.describe(aws.sagemaker, training) if training else None
    if job["status"] in batch.WAITING:
        where = order.index(job["jobId"]) + 1 if job["jobId"] in order else None
        state.status = QUEUED
        state.note = f"{job['status']} in {queue[1]}" + (f", place {where}" if where else "")
    elif described is not None:
        record_job(state, described)
        state.note = ""
    elif job["status"] in batch.ENDED:  # ended before any training job started
        state.status = JobStatus.Failed.value
        state.failure_reason = job.get("statusReason") or "no reason given"
    else:
        state.status, state.note = JobStatus.InProgress.value, job["status"]

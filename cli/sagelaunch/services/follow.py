"""Following a job to its end, and what that end means for the exit code.

One protocol for both kinds of job: a training job (SecondaryStatus transitions, optionally its
logs and a spot-interruption limit) and a tuning job (its status and its training jobs' counts).
`submit --wait`, `wait`, `logs --follow`, the failover chain and `tune --wait` follow through
here; `conclude` turns the end into the exit code: 0 Completed, 1 Failed, 4 Stopped, 5 still
running when waiting stopped (a sweep's set of trials: `sweeps.results.conclude_sweep`).

The caller draws: it passes an `Observer` whose callbacks get each change and each batch of log
lines, and renders the `Ending` it gets back.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sagelaunch.errors import JobFailed, JobStopped, WaitTimeout
from sagelaunch.job_events import LogEvent, Transition
from sagelaunch.statuses import JobStatus

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients

# Why a running job should be stopped now (a spot job past `fallback_after`), or None.
StopWhen = Callable[[dict[str, Any]], str | None]


@dataclass(frozen=True)
class Kind:
    """A kind of job: what it is called, where its description keeps name and status, and the
    aws/ module that describes, watches and stops it."""

    noun: str  # "job", "tuning job"
    name_key: str
    status_key: str
    arn_key: str
    api_module: str
    flag: str = ""  # what `wait` needs besides the name to find it again

    @property
    def api(self) -> Any:
        return importlib.import_module(self.api_module)


TRAINING = Kind(
    "job", "TrainingJobName", "TrainingJobStatus", "TrainingJobArn", "sagelaunch.aws.jobs"
)
TUNING = Kind(
    "tuning job",
    "HyperParameterTuningJobName",
    "HyperParameterTuningJobStatus",
    "HyperParameterTuningJobArn",
    "sagelaunch.aws.tuning",
)
# A run on this machine, its record read as a training job's description (backends.local_runs).
LOCAL = Kind(
    "local run",
    "TrainingJobName",
    "TrainingJobStatus",
    "TrainingJobArn",
    "sagelaunch.services.backends.local_runs",
    flag=" --local",
)


@dataclass(frozen=True)
class Observer:
    """What the caller wants to see while a job is followed (each callback may draw)."""

    on_start: Callable[[str], None] = lambda name: None  # following this job begins
    on_change: Callable[[Transition], None] = lambda transition: None
    on_logs: Callable[[list[LogEvent]], None] | None = None  # None: the logs are not read
    on_stop: Callable[[str], None] = lambda reason: None  # why the job is being stopped
    # A queued job's state and place while it waits (services.queue.Waiting), at each change.
    on_wait: Callable[[Any], None] = lambda waiting: None


@dataclass(frozen=True)
class Ending:
    """Where a followed job ended up (or stood when waiting stopped)."""

    kind: Kind
    name: str
    status: str
    detail: str  # a training job's SecondaryStatus; a tuning job's training jobs by status
    failure_reason: str | None
    description: dict[str, Any]  # the last Describe… response
    plans: dict[str, Any] = field(default_factory=dict)  # training plans it ran on (ARN ->)


def kind_of(aws: Clients, name: str) -> Kind:
    """A training job of that name, else a tuning job (an error when it is neither)."""
    for kind in (TRAINING, TUNING):
        if kind.api.describe(aws.sagemaker, name) is not None:
            return kind
    raise TUNING.api.missing(name)


def follow(
    aws: Clients,
    name: str,
    timeout_s: float | None,
    observer: Observer = Observer(),
    kind: Kind = TRAINING,
    host: str | None = None,
    stop_when: StopWhen | None = None,
) -> Ending:
    """Follow ``name`` until it ends or the timeout passes.

    With ``observer.on_logs`` (training jobs) the logs of every host (or of ``host``) are read
    between polls, and once more after the end for the tail. ``stop_when``: stop the job once it
    holds for a description (a spot job interrupted too often), and follow it to Stopped."""
    observer.on_start(name)
    reader = _log_reader(aws, name, host) if observer.on_logs is not None else None

    last: dict[str, Any] = {}

    def stop_if_due() -> None:
        # At each transition and each poll: a duration passes without a transition.
        nonlocal stop_when
        reason = stop_when(last) if stop_when is not None and last else None
        if reason and last[kind.status_key] == JobStatus.InProgress:
            observer.on_stop(f"{reason}; the chain goes on demand")
            kind.api.stop(aws.sagemaker, name)
            stop_when = None

    def sleep(seconds: float) -> None:
        if reader is not None and observer.on_logs is not None:
            observer.on_logs(reader.poll())
        stop_if_due()
        time.sleep(seconds)

    for transition, job in kind.api.watch(aws.sagemaker, name, timeout_s, sleep=sleep):
        observer.on_change(transition)
        last = job
        stop_if_due()
    if reader is not None and observer.on_logs is not None:
        observer.on_logs(reader.poll())
    from sagelaunch.services import job_plans

    return ending(kind, last, job_plans.described(aws, last) if kind is TRAINING else None)


def ending(kind: Kind, job: dict[str, Any], plans: dict[str, Any] | None = None) -> Ending:
    """The ending a description shows (``plans``: the training plans it ran on, described)."""
    detail = Transition.of_tuning(job) if kind is TUNING else Transition.of(job)
    return Ending(
        kind,
        job[kind.name_key],
        job[kind.status_key],
        detail.secondary,
        job.get("FailureReason") or None,
        job,
        plans or {},
    )


def read_logs(aws: Clients, name: str, host: str | None = None) -> list[LogEvent]:
    """The job's log lines so far (every host, or only ``host``), in time order. No lines: the
    job is described, so that a job that does not exist is an error (exit 3, as `status`), not
    a job whose logs have not started yet."""
    events = _log_reader(aws, name, host).poll()
    if not events and TRAINING.api.describe(aws.sagemaker, name) is None:
        raise TRAINING.api.missing(name)
    return events


def _log_reader(aws: Clients, name: str, host: str | None) -> Any:
    from sagelaunch.aws.logs import LogReader

    return LogReader(aws.logs, name, host)


def conclude(end: Ending, timeout_s: float | None) -> None:
    """Raise what the job's end means for the exit code: Failed 1, Stopped 4, still running 5."""
    what = f"{end.kind.noun} {end.name}"
    if end.status == JobStatus.Completed:
        return
    if end.status == JobStatus.Failed:
        raise JobFailed(f"{what} failed: {end.failure_reason or 'no reason given'}")
    if end.status == JobStatus.Stopped:
        raise JobStopped(f"{what} was stopped")
    detail = f" ({end.detail or '?'})" if end.kind is not TUNING else ""
    raise WaitTimeout(
        f"{what} is still {end.status}{detail}"
        + (f" after waiting {timeout_s:g}s" if timeout_s is not None else ""),
        hint=f"keep waiting with: sagelaunch wait {end.name}{end.kind.flag}",
    )

"""`sagelaunch sweep` on SageMaker: plan every trial, then run them as a set, at most
``max_parallel`` at a time, idempotently, through quotas and throttling.

Planning (`plan_trials`, also `--dry-run`) is services/sweep_planning.py: every trial expanded,
checked and planned, each named after the key and its parameters.

Running (`Scheduler`), in rounds:

1. Once: every distinct bundle is checked (HeadObject) and uploaded only when missing; with a
   key, every trial is described, and a job that exists is attached to (after the same safe-attach
   check `submit` makes) instead of created.
2. Fill: queued trials are created, in order, while fewer than ``max_parallel`` run. A create that
   another run of the same sweep won ("already exists") attaches (aws.jobs.create), so two
   concurrent reruns create each trial once. ResourceLimitExceeded keeps the trial queued and
   stops filling until a running trial ends (or, with none running, until a quota back-off).
3. Poll: DescribeTrainingJob for each active trial (ListTrainingJobs is rate-limited), with an
   interval that grows while nothing changes. Throttling is botocore's adaptive retry mode.

Without ``wait`` the scheduler fills the free slots, looks once and returns: run it again (same
key) to start the rest as slots free up.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from sagelaunch.config.cost import job_cost
from sagelaunch.errors import QuotaExceeded
from sagelaunch.services.sweep_failover import has_chain, next_attempt
from sagelaunch.services.sweep_planning import PlannedSweep, TrialPlan
from sagelaunch.services.sweep_results import QUEUED, SweepResult, TrialState
from sagelaunch.statuses import JobStatus

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients


@dataclass(frozen=True)
class Pacing:
    """How often to look, and how long to back off when the quota is used up."""

    poll_s: float = 5.0
    max_poll_s: float = 60.0
    growth: float = 1.5
    quota_retry_s: float = 60.0
    timeout_s: float | None = None


Notify = Callable[[SweepResult], None]


@dataclass
class Scheduler:
    """Runs a planned sweep against SageMaker (see the module docstring for the protocol)."""

    aws: Clients
    sweep: PlannedSweep
    max_parallel: int
    pacing: Pacing = field(default_factory=Pacing)
    notify: Notify = lambda result: None
    say: Callable[[str], None] = lambda message: None
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    check_quota: bool = False  # hold trials the account's quotas cannot take (services.quota_check)

    def __post_init__(self) -> None:
        self.plans = list(self.sweep.trials)  # each trial's current failover attempt
        self.arns: dict[int, str] = {}  # the ARN of each trial's current job (chains only)
        self.result = SweepResult(
            self.sweep.name,
            self.sweep.key if self.sweep.key_given else None,
            [TrialState(t.trial.index, t.trial.parameters, t.plan.job_name) for t in self.trials],
            self.sweep.spec.sweep.objective,
        )
        self.blocked = False  # the last create hit a quota: wait for a trial to end

    @property
    def trials(self) -> list[TrialPlan]:
        return self.plans

    def run(self, wait: bool) -> SweepResult:
        self._upload()
        if self.sweep.key_given:
            self._attach_existing()
        deadline = None if self.pacing.timeout_s is None else self.clock() + self.pacing.timeout_s
        interval = self.pacing.poll_s
        while True:
            if not self.blocked:
                self._fill()
            changed = self._poll()
            self.notify(self.result)
            states = self.result.trials
            if all(s.done for s in states) or not wait:
                return self.result
            if deadline is not None and self.clock() >= deadline:
                return self.result
            if changed and not self.blocked and any(s.status == QUEUED for s in states):
                continue  # a slot came free: fill it now, not a poll interval later
            interval = (
                self.pacing.poll_s
                if changed
                else min(interval * self.pacing.growth, self.pacing.max_poll_s)
            )
            idle = self.blocked and not any(s.active for s in states)
            pause = self.pacing.quota_retry_s if idle else interval
            if deadline is not None:
                pause = max(0.0, min(pause, deadline - self.clock()))
            self.sleep(pause)
            if idle:
                self.blocked = False  # nothing of ours will end: try the quota again

    def _upload(self) -> None:
        """Each distinct bundle once: HeadObject, and PutObject only when it is missing."""
        from sagelaunch.aws.upload import exists, put

        seen: set[str] = set()
        for trial in self.trials:
            upload = trial.plan.upload
            if upload is None or upload.s3_uri in seen:
                continue
            seen.add(upload.s3_uri)
            if not exists(self.aws.s3, upload.s3_uri):
                assert trial.bundle is not None  # plan_trials pairs them
                put(self.aws.s3, upload.s3_uri, trial.bundle)
                self.say(f"uploaded the code bundle to {upload.s3_uri}")

    def _attach_existing(self) -> None:
        from sagelaunch.aws import jobs

        for index, state in enumerate(self.result.trials):
            existing = jobs.describe(self.aws.sagemaker, state.job_name)
            if existing is not None:
                self._attach(index, existing)

    def _attach(self, index: int, existing: dict[str, Any]) -> None:
        """Follow the trial's existing job; one that found no capacity moves the trial on."""
        from sagelaunch.services.submit import require_same_job

        state = self.result.trials[index]
        require_same_job(self.plans[index].plan.request, existing)
        state.attached = True
        self.arns[index] = existing["TrainingJobArn"]
        _update(state, existing)
        self._after_end(index, existing)

    def _after_end(self, index: int, job: dict[str, Any]) -> None:
        from sagelaunch.services.attempts import ended_because, is_capacity_failure

        if is_capacity_failure(job):
            self._fail_over(index, ended_because(job))

    def _fail_over(self, index: int, why: str) -> bool:
        """Move trial ``index`` to its next failover attempt (a rerun attaches to it, if made);
        False when its chain has no more."""
        state = self.result.trials[index]
        found = next_attempt(self.sweep, self.sweep.trials[index], state.attempt)
        if found is None:
            return False
        made = state.job_name if state.status != QUEUED else None
        state.earlier.append(
            {"number": state.attempt, "job_name": made, "ended_because": why}
            | {"cost_usd": state.cost_usd}
        )
        state.earlier += found.passed_over
        self.say(f"trial {state.index}: {why}; attempt {found.number} is next")
        self.plans[index] = found.plan
        self._reset(state, found.number, found.plan.plan.job_name)  # same code, same bundle
        if self.sweep.key_given:
            from sagelaunch.aws import jobs

            existing = jobs.describe(self.aws.sagemaker, state.job_name)
            if existing is not None:
                self._attach(index, existing)
        return True

    @staticmethod
    def _reset(state: TrialState, attempt: int, job_name: str) -> None:
        state.attempt, state.job_name, state.status = attempt, job_name, QUEUED
        state.attached, state.failure_reason, state.note = False, None, ""
        state.metrics, state.elapsed_s, state.cost_usd = {}, None, None

    def _fill(self) -> None:
        for index, state in enumerate(self.result.trials):
            if sum(s.active for s in self.result.trials) >= self.max_parallel:
                return
            if state.status == QUEUED and not self._start(index):
                return

    def _start(self, index: int) -> bool:
        """Quota-check and create the trial's job, moving down its chain while a quota can
        never hold an attempt; False when it stays queued for quota (stop filling)."""
        state = self.result.trials[index]
        while state.status == QUEUED:
            refusal, never = self._quota_refusal(self.plans[index])
            if refusal is None:
                return self._create(index)
            if not (never and self._fail_over(index, f"quota: {refusal}")):
                self._queued_by_quota(state, refusal)
                return False
        return True  # a rerun attached to an attempt it had already made

    def _create(self, index: int) -> bool:
        """Create the trial's job (or attach to the one a concurrent rerun made); False when
        a quota refused it (it stays queued)."""
        from sagelaunch.aws import jobs

        state, trial = self.result.trials[index], self.plans[index]
        try:
            arn, existing = jobs.create(self.aws.sagemaker, trial.plan.request)
        except QuotaExceeded as exc:
            self._queued_by_quota(state, exc)
            return False
        if existing is not None:
            self._attach(index, existing)  # a concurrent rerun created it first
        else:
            state.status, state.note = JobStatus.InProgress.value, ""
            self._link(index, arn)
        return True

    def _link(self, index: int, arn: str) -> None:
        """Tag a chain's new job with its place in the trial's chain (services.attempts)."""
        from sagelaunch.services.attempts import link

        if not has_chain(self.sweep.trials[index]):
            return
        state = self.result.trials[index]
        refused: list[int] = []
        for entry in reversed(state.earlier):  # those since the trial's last job
            if entry["job_name"]:
                break
            if entry["ended_because"].startswith("quota:"):
                refused.insert(0, entry["number"])
        previous = (self.aws, self.arns[index]) if index in self.arns else None
        link(self.aws, arn, state.attempt, previous, refused)
        self.arns[index] = arn

    def _quota_refusal(self, trial: TrialPlan) -> tuple[QuotaExceeded | None, bool]:
        """With check_quota: why the account's quotas cannot take this trial now, if so, and
        whether they never can (a quota below what the trial asks on its own)."""
        if not self.check_quota:
            return None, False
        from sagelaunch.services.quota_check import check, refusal_of, unchecked_warning

        report = check(self.aws, trial.plan.request)
        skipped = unchecked_warning(report, "trials are created")
        if skipped:  # said once; the rest of the sweep goes on without asking again
            self.say(f"warning: {skipped}")
            self.check_quota = False
        return refusal_of(report), report.never_fits

    def _queued_by_quota(self, state: TrialState, exc: QuotaExceeded) -> None:
        self.blocked = True
        if not state.note:
            self.say(
                f"trial {state.index}: {exc.message}; it stays queued and is created when "
                "a running trial ends"
            )
        state.note = "quota"

    def _poll(self) -> bool:
        """Describe every active trial; True when any changed status."""
        from sagelaunch.aws import jobs

        changed = False
        for index, state in enumerate(self.result.trials):
            if not state.active:
                continue
            job = jobs.describe(self.aws.sagemaker, state.job_name)
            if job is None:
                continue  # just created: not yet visible to a describe
            before = state.status
            _update(state, job)
            if state.status != before:
                changed = True
                if state.done:
                    self.blocked = False  # a slot (and its quota) came free
                    self._after_end(index, job)
        return changed


def _update(state: TrialState, job: dict[str, Any]) -> None:
    state.status = job["TrainingJobStatus"]
    state.failure_reason = job.get("FailureReason") or None
    state.metrics = {
        m["MetricName"]: float(m["Value"]) for m in job.get("FinalMetricDataList") or []
    }
    state.elapsed_s = _elapsed(job)
    cost = job_cost(job)
    state.cost_usd = cost["usd"] if cost else None  # type: ignore[assignment]


def _elapsed(job: dict[str, Any]) -> float | None:
    start = job.get("TrainingStartTime") or job.get("CreationTime")
    if not isinstance(start, datetime):
        return None
    end = job.get("TrainingEndTime")
    end = end if isinstance(end, datetime) else datetime.now(start.tzinfo or timezone.utc)
    return max(0.0, (end - start).total_seconds())

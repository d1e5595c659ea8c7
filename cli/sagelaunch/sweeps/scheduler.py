"""`sagelaunch sweep` on SageMaker: plan every trial, then run them as a set, at most
``max_parallel`` at a time, idempotently, through quotas and throttling.

Planning (`plan_trials`, also `--dry-run`) is sweeps/planning.py: every trial expanded,
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

A trial whose job found no capacity, or that a quota can never hold, moves to its next failover
attempt (`compute.fallback`), where a rerun attaches to it if it was made.

Without ``wait`` the scheduler fills the free slots, looks once and returns: run it again (same
key) to start the rest as slots free up.

The Scheduler holds the rounds; each role is its own module: sweeps/pacing.py (when to look),
sweeps/slots.py (max_parallel and quota refusals), sweeps/trial_jobs.py (a trial's jobs on
SageMaker), services/chain_walk.py (the trial's failover chain, walked as `submit` walks one),
sweeps/planning.py (each attempt's plan) and sweeps/record.py (the trial's row).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sagelaunch.errors import QuotaExceeded, UsageError
from sagelaunch.services.chain_walk import ChainWalk, capacity_ending
from sagelaunch.sweeps.pacing import Beat, Pacing
from sagelaunch.sweeps.planning import PlannedSweep, plan_attempt
from sagelaunch.sweeps.record import record_failover
from sagelaunch.sweeps.results import QUEUED, SweepResult, TrialState
from sagelaunch.sweeps.slots import Slots
from sagelaunch.sweeps.trial_jobs import TrialJobs

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients

__all__ = ["Notify", "Pacing", "Scheduler"]

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
        ceiling = self.sweep.spec.sweep
        if len(self.sweep.trials) > ceiling.max_trials:  # the loader refuses such a sweep
            raise UsageError(ceiling.over_ceiling())  # and no job of it is ever created
        self.plans = list(self.sweep.trials)  # each trial's current failover attempt
        self.result = SweepResult(
            self.sweep.name,
            self.sweep.key if self.sweep.key_given else None,
            [TrialState(t.trial.index, t.trial.parameters, t.plan.job_name) for t in self.plans],
            self.sweep.spec.sweep.objective,
        )
        self.slots = Slots(self.aws, self.max_parallel, self.say, self.check_quota)
        self.walks = [  # each trial's failover chain, walked as `submit` walks one
            ChainWalk.of(t.trial.loaded.config.compute, self.sweep.key, t.plan.region)
            for t in self.sweep.trials
        ]
        self.jobs = TrialJobs(self.aws, self.sweep, self.say, self.walks)

    def run(self, wait: bool) -> SweepResult:
        self.jobs.upload(self.plans)
        if self.sweep.key_given:
            for index, state in enumerate(self.result.trials):
                self._attach_if_made(index, state.job_name)
        beat = Beat(self.pacing, self.clock, self.sleep)
        states = self.result.trials
        while True:
            if not self.slots.blocked:
                self._fill()
            changed = self._poll()
            self.notify(self.result)
            if all(s.done for s in states) or not wait or beat.expired():
                return self.result
            if changed and not self.slots.blocked and any(s.status == QUEUED for s in states):
                continue  # a slot came free: fill it now, not a poll interval later
            idle = self.slots.idle(states)
            beat.pause(changed, idle)
            if idle:
                self.slots.blocked = False  # nothing of ours will end: try the quota again

    def _fill(self) -> None:
        for index, state in enumerate(self.result.trials):
            if self.slots.full(self.result.trials):
                return
            if state.status == QUEUED and not self._start(index):
                return

    def _start(self, index: int) -> bool:
        """Quota-check and create the trial's job, moving down its chain while a quota can
        never hold an attempt; False when it stays queued for quota (stop filling)."""
        state = self.result.trials[index]
        while state.status == QUEUED:
            refusal, never = self.slots.refusal(self.plans[index])
            if refusal is None:
                return self._create(index)
            if not (never and self._fail_over(index, f"quota: {refusal}")):
                self.slots.refused(state, refusal)
                return False
        return True  # a rerun attached to an attempt it had already made

    def _create(self, index: int) -> bool:
        """Create the trial's job (or attach to the one a concurrent rerun made); False when
        a quota refused it (it stays queued)."""
        state = self.result.trials[index]
        try:
            existing = self.jobs.create(index, self.plans[index], state)
        except QuotaExceeded as exc:
            self.slots.refused(state, exc)
            return False
        if existing is not None:
            self._attach(index, existing)  # a concurrent rerun created it first
        return True

    def _attach_if_made(self, index: int, job_name: str) -> None:
        existing = self.jobs.describe(job_name)
        if existing is not None:
            self._attach(index, existing)

    def _attach(self, index: int, existing: dict[str, Any]) -> None:
        """Follow the trial's existing job; one that found no capacity moves the trial on."""
        self.jobs.attach(index, self.plans[index], self.result.trials[index], existing)
        self._after_end(index, existing)

    def _after_end(self, index: int, job: dict[str, Any]) -> None:
        why = capacity_ending(job)
        if why is not None:
            self._fail_over(index, why)

    def _fail_over(self, index: int, why: str) -> bool:
        """Move trial ``index`` to its next failover attempt (a rerun attaches to it, if made);
        False when its chain has no more."""
        state, walk = self.result.trials[index], self.walks[index]
        if why.startswith("quota:"):
            walk.quota_refused(state.attempt)
        found = walk.next_after(state.attempt)
        if found is None:
            return False
        number, alternative, passed = found
        key = walk.key_for(number)
        assert key is not None  # a sweep always has a key (generated when not given)
        self.plans[index] = plan_attempt(self.sweep, self.sweep.trials[index], alternative, key)
        record_failover(state, number, self.plans[index].plan.job_name, passed, why)
        self.say(f"trial {state.index}: {why}; attempt {number} is next")
        if self.sweep.key_given:
            self._attach_if_made(index, state.job_name)
        return True

    def _poll(self) -> bool:
        """Describe every active trial; True when any changed status."""
        changed = False
        for index, state in enumerate(self.result.trials):
            job = self.jobs.follow(state)
            if job is None:
                continue  # not active, not yet visible to a describe, or unchanged
            changed = True
            if state.done:
                self.slots.blocked = False  # a slot (and its quota) came free
                self._after_end(index, job)
        return changed

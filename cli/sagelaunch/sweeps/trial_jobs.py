"""A sweep's trials as SageMaker jobs, through the training-job backend
(services.backends.training_job): each distinct code bundle uploaded once; a trial's job
created (a failover chain's tagged with its place in the chain, services.attempts) or attached
to (after the same safe-attach check `submit` makes); an active trial's job followed, each
description recorded in its row (sweeps.record)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sagelaunch.services.follow import TRAINING
from sagelaunch.statuses import JobStatus
from sagelaunch.sweeps.record import record_job

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients
    from sagelaunch.services.backends.training_job import TrainingJobs
    from sagelaunch.services.chain_walk import ChainWalk
    from sagelaunch.sweeps.planning import PlannedSweep, TrialPlan
    from sagelaunch.sweeps.results import TrialState


@dataclass
class TrialJobs:
    aws: Clients
    sweep: PlannedSweep
    say: Callable[[str], None]
    walks: list[ChainWalk] = field(default_factory=list)  # each trial's failover chain

    def upload(self, trials: list[TrialPlan]) -> None:
        """Each distinct bundle once: HeadObject, and PutObject only when it is missing."""
        from sagelaunch.aws.upload import exists, put

        seen: set[str] = set()
        for trial in trials:
            upload = trial.plan.upload
            if upload is None or upload.s3_uri in seen:
                continue
            seen.add(upload.s3_uri)
            if not exists(self.aws.s3, upload.s3_uri):
                assert trial.bundle is not None  # plan_trials pairs them
                put(self.aws.s3, upload.s3_uri, trial.bundle)
                self.say(f"uploaded the code bundle to {upload.s3_uri}")

    def describe(self, job_name: str) -> dict[str, Any] | None:
        return self._backend.described(job_name)

    def create(self, index: int, trial: TrialPlan, state: TrialState) -> dict[str, Any] | None:
        """Create the trial's job: it runs (a chain's job tagged with its place in the chain), or
        the job a concurrent rerun created first comes back (aws.jobs.create) to attach to;
        raises QuotaExceeded when a quota refused it."""
        arn, existing = self._backend.create(trial.plan.request)
        if existing is None:
            state.status, state.note = JobStatus.InProgress.value, ""
            self._link(index, state, arn)
        return existing

    def attach(
        self, index: int, trial: TrialPlan, state: TrialState, existing: dict[str, Any]
    ) -> None:
        """Follow the trial's existing job, after the same safe-attach check `submit` makes
        (services.create_once.require_same_job)."""
        from sagelaunch.services.create_once import require_same_job

        require_same_job(trial.plan.request, existing)
        state.attached = True
        self.walks[index].attached(self.aws, existing["TrainingJobArn"])
        record_job(state, existing)

    def follow(self, state: TrialState) -> dict[str, Any] | None:
        """Describe an active trial's job and record it; the job when its status changed."""
        if not state.active:
            return None
        job = self.describe(state.job_name)
        if job is None:
            return None  # just created: not yet visible to a describe
        before = state.status
        record_job(state, job)
        return job if state.status != before else None

    @property
    def _backend(self) -> TrainingJobs:
        from sagelaunch.services.backends.training_job import TrainingJobs

        return TrainingJobs(self.aws, TRAINING)

    def _link(self, index: int, state: TrialState, arn: str) -> None:
        """A chain's new job joins the trial's chain (tagged with its place, services.attempts)."""
        walk = self.walks[index]
        if walk:
            walk.joined(self.aws, arn, state.attempt)

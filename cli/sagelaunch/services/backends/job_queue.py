"""The job-queue backend: the plan's SubmitServiceJob request, sent once to an AWS Batch job
queue for SageMaker training (services.queue), followed through its wait to its training job,
described with its place, stopped (TerminateServiceJob) and listed in start order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sagelaunch.services.backends.base import (
    Described,
    DryRun,
    Listed,
    Listing,
    NotStarted,
    Sending,
)

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients
    from sagelaunch.bundle import BundleData
    from sagelaunch.job_events import LogEvent
    from sagelaunch.plan_model import Plan
    from sagelaunch.services.follow import Ending, Observer
    from sagelaunch.services.queue import QueuedSubmission

SUBMIT = "SubmitServiceJob"


@dataclass
class JobQueue:
    aws: Clients
    queue: str
    name: str = "queue"

    def dry_run(self, plan: Plan, bundle: BundleData | None, may_exist: bool) -> DryRun:
        """The SubmitServiceJob request around the plan's CreateTrainingJob (a queued plan)."""
        from sagelaunch.services.queue import queued

        if plan.queue is None or plan.queue.queue != self.queue:
            plan = queued(plan, self.queue)
        assert plan.queue is not None
        return DryRun(SUBMIT, plan.queue.request, plan, bundle, may_exist)

    def schedule(self, dry_run: DryRun, sending: Sending) -> QueuedSubmission:
        """Check the queue, upload the code when missing, queue once (or attach)."""
        from sagelaunch.services import queue as queues
        from sagelaunch.services.create_once import put

        return queues.send(self.aws, dry_run.plan, dry_run.bundle, sending.uploader or put)

    def describe(self, name: str) -> Described:
        from sagelaunch.services.queue import status

        return Described("queued", status(self.aws, self.queue, name))

    def follow(
        self, name: str, timeout_s: float | None, observer: Observer, host: str | None = None
    ) -> Ending:
        from sagelaunch.services.queue import follow_queued

        return follow_queued(self.aws, self.queue, name, timeout_s, observer, host=host)

    def logs(self, name: str, host: str | None = None) -> list[LogEvent]:
        """The logs of the training job the queued job started; NotStarted while it waits."""
        from sagelaunch.services.follow import read_logs
        from sagelaunch.services.queue import status

        summary = status(self.aws, self.queue, name)
        if summary["training_job"] is None:
            where = f", place {summary['place']}" if summary["place"] else ""
            raise NotStarted(
                f"no log events for {name} yet: no training job started "
                f"({summary['status']}{where} in job queue {self.queue})",
                hint=f"follow it with: sagelaunch logs {name} --queue {self.queue} --follow",
            )
        return read_logs(self.aws, str(summary["training_job"]), host)

    def stop(self, name: str) -> dict[str, Any]:
        """TerminateServiceJob: the job leaves the queue, or its training job is stopped."""
        from sagelaunch.services.queue import stop

        ended = stop(self.aws, self.queue, name)
        return {"job_name": name, "kind": "queued", "queue": self.queue, "status": ended["status"]}

    def listing(self, filters: Listing) -> Listed:
        """The queue and its jobs: the waiting ones in start order (no filters: Batch lists a
        queue's jobs whole)."""
        from sagelaunch.services.queue import listing

        return Listed("queued", listing(self.aws, self.queue))

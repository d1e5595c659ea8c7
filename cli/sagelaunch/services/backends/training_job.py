"""The training-job backend: the plan's CreateTrainingJob request, sent once (services.create_once),
followed (services.follow), described with its failover chain (services.attempts), stopped and
listed (services.jobs). A name is a training job's, else a tuning job's: SageMaker keeps them
apart, and `status`, `wait`, `stop` and `list --tuning` take either."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sagelaunch.services.backends.base import Described, DryRun, Listed, Listing, Sending
from sagelaunch.services.follow import TRAINING, TUNING, Ending, Kind, Observer
from sagelaunch.statuses import JobStatus

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients
    from sagelaunch.bundle import BundleData
    from sagelaunch.job_events import LogEvent
    from sagelaunch.plan_model import Plan
    from sagelaunch.services.create_once import Submission
    from sagelaunch.services.follow import StopWhen

CREATE = "CreateTrainingJob"


@dataclass
class TrainingJobs:
    aws: Clients
    kind: Kind | None = None  # every name's kind when known (submit's: TRAINING), else looked up
    name: str = "training-job"

    def dry_run(self, plan: Plan, bundle: BundleData | None, may_exist: bool) -> DryRun:
        return DryRun(CREATE, plan.request, plan, bundle, may_exist)

    def schedule(self, dry_run: DryRun, sending: Sending) -> Submission:
        """Upload when missing, create, or attach to the job this very request made."""
        from sagelaunch.services.create_once import send

        return send(
            self.aws,
            dry_run.request,
            dry_run.plan.upload,
            dry_run.bundle,
            may_exist=dry_run.may_exist,
            uploader=sending.uploader,
            check_quota=sending.check_quota,
            warn=sending.warn,
        )

    def describe(self, name: str) -> Described:
        """The training job (with its failover chain, when it is part of one, and the
        training plans it ran on), else the tuning job of that name."""
        from sagelaunch.services import job_plans
        from sagelaunch.services.attempts import read_chain
        from sagelaunch.services.jobs import find

        found = find(self.aws, name)
        if found.kind is TUNING:
            return Described("tuning", found.description, found.console_url)
        chain = read_chain(self.aws, found.description)
        plans = job_plans.described(self.aws, found.description)
        return Described("training", found.description, found.console_url, chain, plans)

    def follow(
        self,
        name: str,
        timeout_s: float | None,
        observer: Observer,
        host: str | None = None,
        stop_when: StopWhen | None = None,
    ) -> Ending:
        """To the end of the training job (or tuning job: no logs of its own) ``name``."""
        from sagelaunch.services.follow import follow, kind_of

        kind = self.kind or kind_of(self.aws, name)
        if kind is TUNING:
            observer = Observer(observer.on_start, observer.on_change, None, observer.on_stop)
        return follow(self.aws, name, timeout_s, observer, kind, host, stop_when)

    def logs(self, name: str, host: str | None = None) -> list[LogEvent]:
        from sagelaunch.services.follow import read_logs

        return read_logs(self.aws, name, host)

    def stop(self, name: str) -> dict[str, Any]:
        """StopTrainingJob (else StopHyperParameterTuningJob): it goes Stopping, then Stopped."""
        from sagelaunch.services.jobs import stop

        kind = stop(self.aws, name)
        return {"job_name": name, "kind": kind, "status": JobStatus.Stopping.value}

    def listing(self, filters: Listing) -> Listed:
        from sagelaunch.services.jobs import newest

        found = newest(
            self.aws, filters.tuning, filters.status, filters.name_contains, filters.limit
        )
        return Listed("tuning" if filters.tuning else "training", found)

    # What a sweep's scheduler does with each trial (it uploads every bundle once itself).

    def create(self, request: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """CreateTrainingJob; the ARN, and the description of the job a concurrent send made
        first (aws.jobs.create)."""
        from sagelaunch.aws import jobs

        return jobs.create(self.aws.sagemaker, request)

    def described(self, name: str) -> dict[str, Any] | None:
        """DescribeTrainingJob, or None when there is no such job (yet)."""
        return TRAINING.api.describe(self.aws.sagemaker, name)  # type: ignore[no-any-return]

"""Submit: plan (or load the reviewed plan), name, upload, create — once — or attach safely.

Submit is plan + upload + `create_training_job(**request)`: what `plan` showed is what is sent.
A saved plan is sent as is, without importing the SageMaker SDK. Here the plan is made and
named; its backend sends it (services.backends: the training job's through
services/create_once.py, a job queue's through services/queue.py).

With an idempotency key the job name is derived from the key and the request, so a retried CI step
computes the same name and attaches to the job it already created. The requests are ordered so
that a first submit costs no more calls than the SDK's own `fit()`:

1. HeadObject on the bundle's content-addressed key (skipped for built-in algorithms).
2. DescribeTrainingJob, only when the name may already exist (a key or a saved plan's fixed name)
   and the bundle is already in S3: we upload before we create, so a job of ours with this
   request cannot exist while its bundle is missing.
3. For a job on training plans (`compute.training_plan`, a preference's `training_plans`),
   DescribeTrainingPlan of each, only when a new job is about to be created: a plan that
   cannot run the job (status, type, count, target, region) is refused here, before any upload
   (`services.plan_check`); one that cannot be read is a warning, and the job goes on.
   With `--check-quota`, the quota pre-flight (`services.quota_check`), only when a new job is
   about to be created:
   ListServiceQuotas, then ListTrainingJobs (InProgress) and a DescribeTrainingJob per running
   job; a job the quotas cannot hold is refused here, before any upload. When Service Quotas
   cannot be read (within about two seconds), a warning says so and the job goes on.
4. PutObject when the bundle is missing (the key carries its sha256: present means identical).
5. CreateTrainingJob; a retried create that is refused as "already exists" attaches (aws.jobs).

Every attach (steps 2 and 5) first checks that the existing job runs this plan's request
(`services.attach`); a job of the same name running something else is refused with the
differences, never attached to.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sagelaunch.errors import UsageError
from sagelaunch.plan_model import Plan

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients
    from sagelaunch.bundle import BundleData
    from sagelaunch.services.create_once import Submission, Uploader, Warn
    from sagelaunch.services.planning import Progress
    from sagelaunch.services.queue import QueuedSubmission


def deliver(
    target: Path,
    overrides: list[str] | None,
    key: str | None,
    region: str | None,
    aws: Clients | None = None,
    uploader: Uploader | None = None,
    progress: Progress | None = None,
    check_quota: bool = False,
    warn: Warn | None = None,
    queue: str | None = None,
) -> tuple[Submission | QueuedSubmission, Clients]:
    """All of `submit` but waiting: plan (or load), name, then the plan's backend sends it
    (services.backends): upload, create or attach; a job for a job queue (`compute.queue`,
    ``queue``) goes there instead."""
    from sagelaunch.services import queue as queues
    from sagelaunch.services.backends import for_plan
    from sagelaunch.services.backends.base import Sending

    overrides = queues.named_queue(target, overrides, queue)
    plan, bundle_data, from_file = load_plan(target, overrides, region, progress)
    if key:
        plan = plan.renamed(idempotent_name(plan.job_name, key, plan.request))
    plan = queues.queued(plan, queue)
    if aws is None:
        from sagelaunch.aws.session import clients

        aws = clients(plan.region)
    backend = for_plan(aws, plan)
    dry_run = backend.dry_run(plan, bundle_data, may_exist=from_file or bool(key))
    sending = Sending(uploader, check_quota, warn)
    return backend.schedule(dry_run, sending), aws


def load_plan(
    target: Path,
    overrides: list[str] | None,
    region: str | None,
    progress: Progress | None = None,
) -> tuple[Plan, BundleData | None, bool]:
    """The plan and its bundle (its file), and whether it came from a saved plan file."""
    if target.suffix != ".json":
        # Only a config needs the config model (and maybe the SDK); a saved plan needs neither.
        from sagelaunch.services.planning import make_plan

        kwargs = {"progress": progress} if progress else {}
        made = make_plan(target, overrides, region, None, **kwargs)
        return made.plan, made.bundle, False
    from sagelaunch import plan_file

    if overrides:
        raise UsageError("--set cannot change a saved plan", hint="make a new plan with --set")
    plan, data = plan_file.load(target)
    if region and region != plan.region:
        raise UsageError(f"{target} was planned for {plan.region}, not {region}")
    return plan, data, True


def idempotent_name(planned_name: str, key: str, request: dict[str, Any]) -> str:
    """The job name for ``key``: the planned name's base (without its timestamp) + a digest."""
    from sagelaunch import naming

    return naming.idempotent(naming.base_of(planned_name), key, request)

"""Where a job runs: one seam, three backends.

A planned job runs as a SageMaker training job (`training_job.TrainingJobs`), waits for
capacity in an AWS Batch job queue first (`job_queue.JobQueue`), or runs on this machine as
the container would (`local_runs.LocalRuns`). Each answers the same questions, as torchx's
Scheduler does (submit_dryrun, schedule, describe, log_iter, cancel, list):

- ``dry_run(plan, bundle, may_exist)``: what would be sent, as a `DryRun` (the operation and its
  request: CreateTrainingJob's, SubmitServiceJob's, or the local variant's request a local run
  reads), for `plan` to show and ``schedule`` to send;
- ``schedule(dry_run, sending)``: send it once, or attach to what an earlier send made;
- ``describe(name)``: where the job stands (`status`), as a `Described`;
- ``follow(name, timeout_s, observer, host)``: to its end (`wait`, `submit --wait`,
  `logs --follow`), as `services.follow` follows a training job;
- ``logs(name, host)``: its log lines so far; ``stop(name)``; ``listing(filters)``.

`submit`, `status`, `wait`, `logs`, `stop` and `list` pick one with `backend_for` (`--queue Q`,
`--local`, else the training job; `submit` by the plan: a plan with compute.queue goes to its
queue) and draw what it answers; `sweep`'s scheduler creates its trials through the training-job
backend, a queued sweep through the queue's, and `local` runs through the local one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sagelaunch.errors import UsageError

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients
    from sagelaunch.plan_model import Plan
    from sagelaunch.services.backends.base import Backend


def backend_for(
    handed_in: object, region: str | None, queue: str | None = None, local: bool = False
) -> Backend:
    """The backend a job command names: `--local` (no AWS at all), `--queue Q`, else SageMaker's
    training jobs (the clients handed in, else new ones for ``region``)."""
    if local and queue:
        raise UsageError("--local and --queue name two places a job runs", hint="give one of them")
    if local:
        from sagelaunch.services.backends.local_runs import LocalRuns

        return LocalRuns()
    from sagelaunch.services.clients import connect

    aws = connect(handed_in, region)
    if queue:
        from sagelaunch.services.backends.job_queue import JobQueue

        return JobQueue(aws, queue)
    from sagelaunch.services.backends.training_job import TrainingJobs

    return TrainingJobs(aws)


def for_plan(aws: Clients, plan: Plan) -> Backend:
    """Where `submit` sends a plan: its job queue (compute.queue, --queue), else a training job."""
    if plan.queue is not None:
        from sagelaunch.services.backends.job_queue import JobQueue

        return JobQueue(aws, plan.queue.queue)
    from sagelaunch.services.backends.training_job import TrainingJobs

    return TrainingJobs(aws)

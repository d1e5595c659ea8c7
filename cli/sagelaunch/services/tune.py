"""`sagelaunch tune`: the config's `tuning:` block as a SageMaker tuning job, created once.

tune is plan + upload + CreateHyperParameterTuningJob, as submit is for a training job: the
request is the one `plan` shows under `tuning`. With an idempotency key the tuning job's name is
derived from the key and the request (within the API's 32 characters), and an existing job of
that name is attached to only when its description matches the request (services.attach).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sagelaunch import naming
from sagelaunch.errors import UsageError
from sagelaunch.links import tuning_console_url
from sagelaunch.plan_model import TuningPlan
from sagelaunch.services.create_once import create_once
from sagelaunch.services.follow import TUNING
from sagelaunch.services.planning import Progress, make_plan

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients


@dataclass
class TuningSubmission:
    """`tune --output json` (stable keys)."""

    tuning_job_name: str
    arn: str
    status: str  # InProgress when just created; described when attached; final with --wait
    uploaded: bool
    bundle_sha256: str | None
    console_url: str
    attached: bool


def deliver(
    config: Path,
    overrides: list[str] | None,
    key: str | None,
    region: str | None,
    aws: Clients | None = None,
    progress: Progress | None = None,
) -> tuple[TuningSubmission, Clients]:
    """Plan, name, upload the code (unless there), create the tuning job or attach to it."""
    require_tuning(config, overrides)
    kwargs = {"progress": progress} if progress else {}
    plan, data, _ = make_plan(config, overrides, region, None, **kwargs)
    assert plan.tuning is not None  # a config with tuning: plans one
    tuning = named(plan.tuning, key, plan.job_name)
    if aws is None:
        from sagelaunch.aws.session import clients

        aws = clients(plan.region)
    upload = plan.upload
    sent = create_once(aws, TUNING, tuning.request, upload, data, may_exist=bool(key))
    submission = TuningSubmission(
        tuning_job_name=tuning.job_name,
        arn=sent.arn,
        status=sent.status,
        uploaded=sent.uploaded,
        bundle_sha256=upload.sha256 if upload else None,
        console_url=tuning_console_url(aws.region, tuning.job_name),
        attached=sent.attached,
    )
    return submission, aws


def require_tuning(config: Path, overrides: list[str] | None) -> None:
    """Before the SDK runs: is there a tuning block at all?"""
    from sagelaunch.config.loader import load

    if load(config, overrides).config.tuning is None:
        raise UsageError(
            f"{config} has no tuning: block",
            hint="add tuning: {objective: {...}, ranges: {...}} (see `sagelaunch schema`)",
        )


def named(tuning: TuningPlan, key: str | None, training_job_name: str | None = None) -> TuningPlan:
    """The tuning plan under the name for ``key`` (the planned, timestamped name without one).

    With a key sagelaunch names the tuning job, as `tuner.fit(job_name=...)` does; a TensorFlow
    model_dir derived from the plan's (timestamped) training job name is then derived from that
    name, as the SDK derives it for fit(job_name=...), so a retried step sends the same request."""
    if not key:
        return tuning
    base = naming.tuning_base_of(tuning.job_name)
    name = naming.idempotent_tuning(base, key, tuning.request)
    if training_job_name:
        tuning = tuning.for_training_job(training_job_name, name)
    return tuning.renamed(name)

"""Hyperparameter tuning jobs: create (or attach), describe, stop, list."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from botocore.exceptions import ClientError

from sagelaunch.aws.errors import is_not_found, translated, unless_not_found
from sagelaunch.aws.jobs import Pacing, changes, create_or_attach, newest
from sagelaunch.errors import AwsError
from sagelaunch.job_events import Transition

POLL_S = 30.0  # a tuning job runs many training jobs: minutes, not seconds


@translated
def describe(sagemaker: Any, name: str) -> dict[str, Any] | None:
    """DescribeHyperParameterTuningJob, or None when there is no such tuning job."""
    return unless_not_found(
        lambda: sagemaker.describe_hyper_parameter_tuning_job(HyperParameterTuningJobName=name)
    )


@translated
def create(sagemaker: Any, request: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """CreateHyperParameterTuningJob; the ARN, and the description when it already existed
    (a retried create that had gone through: see aws.jobs.create_or_attach)."""
    name = request["HyperParameterTuningJobName"]
    return create_or_attach(
        lambda: sagemaker.create_hyper_parameter_tuning_job(**request),
        lambda: describe(sagemaker, name),
        "HyperParameterTuningJobArn",
    )


@translated
def stop(sagemaker: Any, name: str) -> None:
    """StopHyperParameterTuningJob: its training jobs stop with it."""
    sagemaker.stop_hyper_parameter_tuning_job(HyperParameterTuningJobName=name)


@translated
def stop_training_or_tuning(sagemaker: Any, name: str) -> str:
    """StopTrainingJob; when no training job has that name but a tuning job does,
    StopHyperParameterTuningJob (its training jobs stop with it). Returns which kind stopped."""
    try:
        sagemaker.stop_training_job(TrainingJobName=name)
        return "training"
    except ClientError as exc:
        if not is_not_found(exc) or describe(sagemaker, name) is None:
            raise  # the training job's own error: the name is neither
    sagemaker.stop_hyper_parameter_tuning_job(HyperParameterTuningJobName=name)
    return "tuning"


@translated
def list_jobs(
    sagemaker: Any, status: str | None = None, name_contains: str | None = None, limit: int = 20
) -> list[dict[str, Any]]:
    """The newest ``limit`` tuning jobs, optionally filtered by status and name."""
    return newest(
        sagemaker.list_hyper_parameter_tuning_jobs,
        "HyperParameterTuningJobSummaries",
        status,
        name_contains,
        limit,
    )


def watch(
    sagemaker: Any,
    name: str,
    timeout_s: float | None = None,
    poll_s: float | None = None,  # POLL_S, read when called
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[tuple[Transition, dict[str, Any]]]:
    """Describe the tuning job until it ends or ``timeout_s`` passes, yielding each change of
    its status or job counts with the description it came from (as aws.jobs.watch does)."""
    return changes(
        lambda: describe(sagemaker, name),
        Transition.of_tuning,
        lambda: missing(name),
        Pacing(timeout_s, POLL_S if poll_s is None else poll_s, clock, sleep),
    )


def missing(name: str) -> AwsError:
    return AwsError(
        f"no training job named {name!r} (nor a tuning job) in this account and region",
        hint="check the name (sagelaunch list, sagelaunch list --tuning) and --region",
    )

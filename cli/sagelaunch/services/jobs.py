"""The job lifecycle behind `status`, `stop` and `list`: a name is a training job's, else a
tuning job's (SageMaker keeps them apart; our commands take either)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sagelaunch.links import console_url, tuning_console_url
from sagelaunch.services.follow import TRAINING, TUNING, Kind

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients


@dataclass(frozen=True)
class Found:
    """A job's description, which kind of job it is, and where the console shows it."""

    kind: Kind
    description: dict[str, Any]
    console_url: str


def find(aws: Clients, name: str) -> Found:
    """DescribeTrainingJob, else DescribeHyperParameterTuningJob (an error when neither)."""
    for kind, url in ((TRAINING, console_url), (TUNING, tuning_console_url)):
        description = kind.api.describe(aws.sagemaker, name)
        if description is not None:
            return Found(kind, description, url(aws.region, name))
    raise TUNING.api.missing(name)


def stop(aws: Clients, name: str) -> str:
    """Stop the training job (or, when no training job has that name, the tuning job); which
    kind stopped: "training" or "tuning"."""
    from sagelaunch.aws import tuning

    return tuning.stop_training_or_tuning(aws.sagemaker, name)


def newest(
    aws: Clients, tuning: bool, status: str | None, name_contains: str | None, limit: int
) -> list[dict[str, Any]]:
    """The newest ``limit`` training jobs (or tuning jobs), optionally filtered."""
    kind = TUNING if tuning else TRAINING
    listed: list[dict[str, Any]] = kind.api.list_jobs(
        aws.sagemaker, status=status, name_contains=name_contains, limit=limit
    )
    return listed

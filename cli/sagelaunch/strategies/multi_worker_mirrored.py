"""``multi_worker_mirrored`` (TensorFlow MultiWorkerMirroredStrategy, TF >= 2.9): one worker
per host, all-reduce across hosts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from sagelaunch.catalog import facts
from sagelaunch.catalog.versions import numbers, version_of
from sagelaunch.strategies.base import LoadedView, NoMpiSettings, NoSmp
from sagelaunch.strategies.tensorflow_flag import TensorFlowFlagStrategy
from sagelaunch.strict import Strict

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sagelaunch.errors import Problem
    from sagelaunch.strategies.base import Rule

NAME = "multi_worker_mirrored"

SDK_KEY = "multi_worker_mirrored_strategy"
HYPERPARAMETER = "sagemaker_multi_worker_mirrored_strategy_enabled"


class MultiWorkerMirroredDistribution(NoMpiSettings, NoSmp, Strict):
    """TensorFlow MultiWorkerMirroredStrategy: one worker per host, all-reduce across hosts."""

    strategy: Literal["multi_worker_mirrored"] = Field(
        description="multi_worker_mirrored (TensorFlow MultiWorkerMirroredStrategy, TF >= 2.9)."
    )


def multi_worker_mirrored_version(loaded: LoadedView) -> Iterator[Problem]:
    """MultiWorkerMirroredStrategy needs TensorFlow >= 2.9: older containers never build its
    TF_CONFIG (the SDK's docs; data/tensorflow.json)."""
    config = loaded.config
    version = version_of(config)
    if not isinstance(config.distribution, MultiWorkerMirroredDistribution) or version is None:
        return
    floor = facts.load("tensorflow")["multi_worker_mirrored_min_version"]
    if version < numbers(floor):
        yield loaded.problem(
            ("framework_version",),
            f"multi_worker_mirrored needs TensorFlow {floor} or later (older containers set no "
            f"TF_CONFIG for it), not {config.framework_version}",
        )


class MultiWorkerMirroredStrategy(TensorFlowFlagStrategy):
    name = NAME
    priority = 6
    sdk_key = SDK_KEY
    hyperparameter = HYPERPARAMETER

    @property
    def model(self) -> type[Strict]:
        return MultiWorkerMirroredDistribution

    def rules(self) -> tuple[Rule, ...]:
        return (multi_worker_mirrored_version,)

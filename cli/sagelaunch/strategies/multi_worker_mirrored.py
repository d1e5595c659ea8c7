"""``multi_worker_mirrored`` (TensorFlow MultiWorkerMirroredStrategy, TF >= 2.9): one worker
per host, all-reduce across hosts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from sagelaunch.config import facts
from sagelaunch.config.strict import Strict
from sagelaunch.errors import UsageError
from sagelaunch.strategies.base import (
    PYTHON,
    NoMpiSettings,
    NoSmp,
    Placement,
    Strategy,
    V3Call,
    enabled,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sagelaunch.config.loader import LoadedConfig
    from sagelaunch.config.model import LaunchConfig
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


def multi_worker_mirrored_version(loaded: LoadedConfig) -> Iterator[Problem]:
    """MultiWorkerMirroredStrategy needs TensorFlow >= 2.9: older containers never build its
    TF_CONFIG (the SDK's docs; data/tensorflow.json)."""
    from sagelaunch.config.rules.tensorflow import numbers, version_of

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


class MultiWorkerMirroredStrategy(Strategy):
    name = NAME
    frameworks = frozenset({"tensorflow"})
    priority = 6

    @property
    def model(self) -> type[Strict]:
        return MultiWorkerMirroredDistribution

    def placement(self, config: LaunchConfig, accelerators_per_host: int) -> Placement:
        return Placement(PYTHON, 1)

    def sdk_distribution(self, config: LaunchConfig) -> dict[str, Any] | None:
        return {SDK_KEY: {"enabled": True}}

    def local_launcher(self, planned: str) -> str:
        return planned  # python; local/tf_config.py writes its TF_CONFIG

    def check_local(self, config: LaunchConfig) -> None:
        return None

    def imported(self, hyperparameters: dict[str, Any], framework: str) -> dict[str, Any] | None:
        if framework == "tensorflow" and hyperparameters.get(HYPERPARAMETER) is True:
            return {"strategy": self.name}
        return None

    def owns_distribution(self, distribution: dict[str, Any]) -> bool:
        return enabled(distribution, SDK_KEY)

    def export_v3(self, distribution: dict[str, Any]) -> V3Call | None:
        raise UsageError(
            f"SDK v3 has no TensorFlow {SDK_KEY} distribution (ModelTrainer runs torchrun, "
            "mpirun or one process)",
            hint="export --sdk v2",
        )

    def rules(self) -> tuple[Rule, ...]:
        return (multi_worker_mirrored_version,)

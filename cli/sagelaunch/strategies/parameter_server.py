"""``parameter_server`` (TensorFlow ParameterServerStrategy): the container starts a parameter
server on every host beside its worker (with two or more hosts)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

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

NAME = "parameter_server"

SDK_KEY = "parameter_server"
HYPERPARAMETER = "sagemaker_parameter_server_enabled"


class ParameterServerDistribution(NoMpiSettings, NoSmp, Strict):
    """TensorFlow parameter servers: the container starts one on every host beside its worker."""

    strategy: Literal["parameter_server"] = Field(
        description="parameter_server (TensorFlow ParameterServerStrategy)."
    )


def parameter_server_one_host(loaded: LoadedConfig) -> Iterator[Problem]:
    """Advice: the container starts parameter servers only with more than one host
    (training.py: `sagemaker_parameter_server_enabled and len(env.hosts) > 1`)."""
    config = loaded.config
    if (
        isinstance(config.distribution, ParameterServerDistribution)
        and config.compute.instance_count == 1
    ):
        yield loaded.problem(
            ("distribution", "strategy"),
            "parameter_server with one instance starts no parameter server (the container "
            "runs the script alone); set instance_count >= 2 or strategy: none",
            severity="warning",
        )


class ParameterServerStrategy(Strategy):
    name = NAME
    frameworks = frozenset({"tensorflow"})
    priority = 5

    @property
    def model(self) -> type[Strict]:
        return ParameterServerDistribution

    def placement(self, config: LaunchConfig, accelerators_per_host: int) -> Placement:
        return Placement(PYTHON, 1)

    def sdk_distribution(self, config: LaunchConfig) -> dict[str, Any] | None:
        return {SDK_KEY: {"enabled": True}}

    def local_launcher(self, planned: str) -> str:
        return planned  # python; local/tf_config.py starts the parameter servers, as the container

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
        return (parameter_server_one_host,)

"""``parameter_server`` (TensorFlow ParameterServerStrategy): the container starts a parameter
server on every host beside its worker (with two or more hosts)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from sagelaunch.strategies.base import LoadedView, NoMpiSettings, NoSmp
from sagelaunch.strategies.tensorflow_flag import TensorFlowFlagStrategy
from sagelaunch.strict import Strict

if TYPE_CHECKING:
    from collections.abc import Iterator

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


def parameter_server_one_host(loaded: LoadedView) -> Iterator[Problem]:
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


class ParameterServerStrategy(TensorFlowFlagStrategy):
    name = NAME
    frameworks = frozenset({"tensorflow", "huggingface"})  # Hugging Face: TensorFlow only
    priority = 5
    sdk_key = SDK_KEY
    hyperparameter = HYPERPARAMETER

    @property
    def model(self) -> type[Strict]:
        return ParameterServerDistribution

    def rules(self) -> tuple[Rule, ...]:
        return (parameter_server_one_host,)

"""``torchrun`` (the SDK's torch_distributed): one torchrun per host, one process per GPU or
Neuron core, as the toolkit's TorchDistributedRunner."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from sagelaunch.strategies.base import (
    TORCH_DISTRIBUTED_HYPERPARAMETER,
    TORCHRUN,
    ConfigView,
    DistributionGroups,
    NoMpiSettings,
    NoSmp,
    Placement,
    Strategy,
    V3Call,
    enabled,
)
from sagelaunch.strict import Strict

NAME = "torchrun"


class TorchrunDistribution(NoMpiSettings, NoSmp, DistributionGroups, Strict):
    """torch_distributed: one torchrun per host, one process per GPU or Neuron core."""

    strategy: Literal["torchrun"] = Field(description="torchrun (torch_distributed).")


class TorchrunStrategy(Strategy):
    name = NAME
    frameworks = frozenset({"pytorch", "huggingface"})
    priority = 50
    sdk_hyperparameters = frozenset({TORCH_DISTRIBUTED_HYPERPARAMETER})
    runs_deepspeed = True

    @property
    def model(self) -> type[Strict]:
        return TorchrunDistribution

    def placement(self, config: ConfigView, accelerators_per_host: int) -> Placement:
        return Placement(TORCHRUN, accelerators_per_host)

    def sdk_distribution(self, config: ConfigView) -> dict[str, Any] | None:
        return {"torch_distributed": {"enabled": True}}

    def local_launcher(self, planned: str) -> str:
        return planned  # torchrun (xgboost: its own, which ignores the strategy)

    def check_local(self, config: ConfigView) -> None:
        return None

    def imported(self, hyperparameters: dict[str, Any], framework: str) -> dict[str, Any] | None:
        if hyperparameters.get(TORCH_DISTRIBUTED_HYPERPARAMETER) is True:
            return {"strategy": self.name}
        return None

    def owns_distribution(self, distribution: dict[str, Any]) -> bool:
        return enabled(distribution, "torch_distributed")

    def export_v3(self, distribution: dict[str, Any]) -> V3Call | None:
        return V3Call("Torchrun")

    def rules(self) -> tuple[Any, ...]:
        return ()

"""``pytorchddp``: the SDK's HuggingFace estimator's ``{"pytorchddp": {"enabled": True}}``,
which writes ``sagemaker_pytorch_ddp_enabled`` (and the instance type); the container's
training toolkit then starts its SMDataParallel launcher (mpirun on the first host, one process
per GPU) for a script that uses native PyTorch DDP. The PyTorch estimator rewrites the same key
into smdistributed.dataparallel (strategy smddp's request), so only Hugging Face jobs have it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from sagelaunch.errors import UsageError
from sagelaunch.strategies.base import (
    MPIRUN,
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

NAME = "pytorchddp"
SDK_KEY = "pytorchddp"
HYPERPARAMETER = "sagemaker_pytorch_ddp_enabled"


class PytorchDdpDistribution(NoMpiSettings, NoSmp, DistributionGroups, Strict):
    """Hugging Face's pytorchddp: the toolkit's SMDataParallel launcher runs native DDP."""

    strategy: Literal["pytorchddp"] = Field(
        description="pytorchddp (HuggingFace estimator: native DDP under the toolkit's mpirun)."
    )


class PytorchDdpStrategy(Strategy):
    name = NAME
    frameworks = frozenset({"huggingface"})
    priority = 15
    sdk_hyperparameters = frozenset({HYPERPARAMETER})

    @property
    def model(self) -> type[Strict]:
        return PytorchDdpDistribution

    def placement(self, config: ConfigView, accelerators_per_host: int) -> Placement:
        return Placement(MPIRUN, accelerators_per_host)

    def sdk_distribution(self, config: ConfigView) -> dict[str, Any] | None:
        return {SDK_KEY: {"enabled": True}}

    def local_launcher(self, planned: str) -> str:
        """Locally one torchrun per host for the container's mpirun (native DDP either way)."""
        return TORCHRUN if planned == MPIRUN else planned

    def check_local(self, config: ConfigView) -> None:
        return None

    def imported(self, hyperparameters: dict[str, Any], framework: str) -> dict[str, Any] | None:
        if hyperparameters.get(HYPERPARAMETER) is True:
            return {"strategy": self.name}
        return None

    def owns_distribution(self, distribution: dict[str, Any]) -> bool:
        return enabled(distribution, SDK_KEY)

    def export_v3(self, distribution: dict[str, Any]) -> V3Call | None:
        raise UsageError(
            "SDK v3 has no pytorchddp option (the toolkit's SMDataParallel launcher): "
            "ModelTrainer cannot export this job",
            hint="export --sdk v2, or use strategy torchrun (native DDP under torchrun) for v3",
        )

    def rules(self) -> tuple[Any, ...]:
        return ()

"""What the two TensorFlow-only strategies share: the SDK's TensorFlow estimator turns each into
one enable flag (a ``distribution`` key and its ``sagemaker_*_enabled`` hyperparameter); the
container runs one python process per host and builds TF_CONFIG (local/tf_config.py does the
same); SDK v3 has neither."""

from __future__ import annotations

from typing import Any, ClassVar

from sagelaunch.errors import UsageError
from sagelaunch.strategies.base import PYTHON, ConfigView, Placement, Strategy, V3Call, enabled


class TensorFlowFlagStrategy(Strategy):
    frameworks = frozenset({"tensorflow"})
    sdk_key: ClassVar[str]  # the estimator's distribution key
    hyperparameter: ClassVar[str]  # the flag the estimator writes for it

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.sdk_hyperparameters = frozenset({cls.hyperparameter})

    def placement(self, config: ConfigView, accelerators_per_host: int) -> Placement:
        return Placement(PYTHON, 1)

    def sdk_distribution(self, config: ConfigView) -> dict[str, Any] | None:
        return {self.sdk_key: {"enabled": True}}

    def local_launcher(self, planned: str) -> str:
        return planned  # python; local/tf_config.py writes TF_CONFIG (and starts the servers)

    def check_local(self, config: ConfigView) -> None:
        return None

    def imported(self, hyperparameters: dict[str, Any], framework: str) -> dict[str, Any] | None:
        if framework in self.frameworks and hyperparameters.get(self.hyperparameter) is True:
            return {"strategy": self.name}
        return None

    def owns_distribution(self, distribution: dict[str, Any]) -> bool:
        return enabled(distribution, self.sdk_key)

    def export_v3(self, distribution: dict[str, Any]) -> V3Call | None:
        raise UsageError(
            f"SDK v3 has no TensorFlow {self.sdk_key} distribution (ModelTrainer runs torchrun, "
            "mpirun or one process)",
            hint="export --sdk v2",
        )

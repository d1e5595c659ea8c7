"""``none``: one process per host, the toolkit's ProcessRunner (``python entry.py ARGS``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from sagelaunch.strategies.base import (
    PYTHON,
    ConfigView,
    NoMpiSettings,
    NoSmp,
    Placement,
    Strategy,
    V3Call,
)
from sagelaunch.strict import Strict

NAME = "none"


class NoDistribution(NoMpiSettings, NoSmp, Strict):
    """One process per host (the toolkit's ProcessRunner)."""

    strategy: Literal["none"] = Field("none", description="none: one process per host.")


class NoStrategy(Strategy):
    name = NAME
    frameworks = frozenset({"pytorch", "tensorflow", "xgboost", "huggingface"})
    priority = 1000  # takes every request and distribution the others leave

    @property
    def model(self) -> type[Strict]:
        return NoDistribution

    def placement(self, config: ConfigView, accelerators_per_host: int) -> Placement:
        return Placement(PYTHON, 1)

    def sdk_distribution(self, config: ConfigView) -> dict[str, Any] | None:
        return None

    def local_launcher(self, planned: str) -> str:
        return planned  # python (xgboost: its own, one process too)

    def check_local(self, config: ConfigView) -> None:
        return None

    def imported(self, hyperparameters: dict[str, Any], framework: str) -> dict[str, Any] | None:
        return None  # the config's default: no distribution key at all

    def owns_distribution(self, distribution: dict[str, Any]) -> bool:
        return True

    def export_v3(self, distribution: dict[str, Any]) -> V3Call | None:
        return None

    def rules(self) -> tuple[Any, ...]:
        return ()

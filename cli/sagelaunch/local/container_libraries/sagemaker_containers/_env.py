"""The job's settings, as `sagemaker_containers.training_env()` gives them: read from
SM_TRAINING_ENV, the JSON the training toolkit computes for the host (sagelaunch local writes it
for each host, checked against the toolkit's own Environment in its tests)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from typing import Any


class TrainingEnv(Mapping[str, Any]):
    """Every property of the container's TrainingEnv, as attributes and as a mapping."""

    def __init__(self, properties: Mapping[str, Any]) -> None:
        self._properties = dict(properties)

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["_properties"][name]
        except KeyError:
            raise AttributeError(f"the training environment has no {name!r}") from None

    def __getitem__(self, name: str) -> Any:
        return self._properties[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._properties)

    def __len__(self) -> int:
        return len(self._properties)

    def to_env_vars(self) -> dict[str, str]:
        """The SM_* variables of this environment, as the job's processes have them."""
        return {name: value for name, value in os.environ.items() if name.startswith("SM_")}


def training_env() -> TrainingEnv:
    """This host's training environment (SM_TRAINING_ENV, set on every host's processes)."""
    raw = os.environ.get("SM_TRAINING_ENV")
    if raw is None:
        raise RuntimeError("SM_TRAINING_ENV is not set: training_env() runs inside a job's host")
    return TrainingEnv(json.loads(raw))

"""Safe attach: is the existing job of this name the job this plan describes?

`submit` attaches to an existing job of the same name (a retried CI step, a saved plan submitted
twice) only when its DescribeTrainingJob matches the plan's CreateTrainingJob request. Compared:

- every top-level field of the request that DescribeTrainingJob returns (``COMPARED``), when the
  description has it (Tags, for one, are never described). HyperParameters always: a job
  created without any is described without the field, which is no hyperparameters, so a plan
  that adds one is a different request;
- inside them, every key the request has. Keys only the description has are defaults AWS filled
  in (``OutputDataConfig.KmsKeyId: ""``, ``CompressionType``, ``RecordWrapperType``): equal to
  leaving them out. Not in HyperParameters (``EXACT``): AWS fills in none there, and every one
  reaches the entry point, so a hyperparameter only the old job has differs too. Lists must
  match element by element.

Not compared: ``AlgorithmSpecification.MetricDefinitions``, which AWS rewrites for built-in
algorithms and moto replaces with its own; the metrics scraped do not change what runs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

COMPARED = (
    "AlgorithmSpecification",
    "HyperParameters",
    "RoleArn",
    "InputDataConfig",
    "OutputDataConfig",
    "ResourceConfig",
    "StoppingCondition",
    "VpcConfig",
    "CheckpointConfig",
    "EnableNetworkIsolation",
    "EnableInterContainerTrafficEncryption",
    "EnableManagedSpotTraining",
    "Environment",
    "RetryStrategy",
    "DebugHookConfig",
    "DebugRuleConfigurations",
    "TensorBoardOutputConfig",
    "ProfilerConfig",
    "ProfilerRuleConfigurations",
    "ExperimentConfig",
    "RemoteDebugConfig",
    "InfraCheckConfig",
)
NOT_COMPARED: set[tuple[str, ...]] = {("AlgorithmSpecification", "MetricDefinitions")}
# Fields compared key for key both ways, an absent one as empty ({}): what AWS returns is exactly
# what was sent, no defaults filled in.
EXACT: dict[str, Any] = {"HyperParameters": {}}
MISSING = "(absent)"


@dataclass(frozen=True)
class Difference:
    path: str  # e.g. ResourceConfig.InstanceCount, HyperParameters.epochs
    planned: str
    existing: str

    def __str__(self) -> str:
        return f"{self.path}: planned {self.planned}, existing job has {self.existing}"


def differences(request: dict[str, Any], described: dict[str, Any]) -> list[Difference]:
    """Where the existing job differs from ``request`` (empty: it is the same job)."""
    found: list[Difference] = []
    for field in COMPARED:
        if field in EXACT:
            planned, existing = request.get(field, EXACT[field]), described.get(field, EXACT[field])
            _compare((field,), planned, existing, found)
            _only_existing((field,), planned, existing, found)
        elif field in request and field in described:
            _compare((field,), request[field], described[field], found)
    return found


def _only_existing(
    path: tuple[str, ...], planned: Any, existing: Any, found: list[Difference]
) -> None:
    """The keys of an ``EXACT`` field that only the existing job has."""
    if isinstance(planned, dict) and isinstance(existing, dict):
        for key in sorted(set(existing) - set(planned)):
            found.append(Difference(_dotted((*path, key)), MISSING, _shown(existing[key])))


def _compare(
    path: tuple[str, ...],
    planned: Any,
    existing: Any,
    found: list[Difference],
    skipped: set[tuple[str, ...]] = NOT_COMPARED,
) -> None:
    if path in skipped:
        return
    if isinstance(planned, dict) and isinstance(existing, dict):
        for key, value in planned.items():
            if key not in existing:
                found.append(Difference(_dotted((*path, key)), _shown(value), MISSING))
            else:
                _compare((*path, key), value, existing[key], found, skipped)
        return
    if isinstance(planned, list) and isinstance(existing, list) and len(planned) == len(existing):
        for index, (mine, theirs) in enumerate(zip(planned, existing, strict=True)):
            _compare((*path, f"[{index}]"), mine, theirs, found, skipped)
        return
    if planned != existing:
        found.append(Difference(_dotted(path), _shown(planned), _shown(existing)))


def _dotted(path: tuple[str, ...]) -> str:
    return ".".join(path).replace(".[", "[")


def _shown(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# A tuning job: the same comparison over what DescribeHyperParameterTuningJob returns.
TUNING_COMPARED = ("HyperParameterTuningJobConfig", "TrainingJobDefinition", "WarmStartConfig")
TUNING_NOT_COMPARED: set[tuple[str, ...]] = {
    ("TrainingJobDefinition", "AlgorithmSpecification", "MetricDefinitions")
}


def tuning_differences(request: dict[str, Any], described: dict[str, Any]) -> list[Difference]:
    """Where the existing tuning job differs from ``request`` (empty: the same tuning job)."""
    found: list[Difference] = []
    for field in TUNING_COMPARED:
        if field in request and described.get(field) is not None:
            _compare((field,), request[field], described[field], found, TUNING_NOT_COMPARED)
    return found

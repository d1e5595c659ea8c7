"""The `sweep:` and `tuning:` blocks of a launch config: shapes and ranges only.

`sweep:` is sagelaunch's own: one training job per trial, each trial the config with some dotted
keys set (checks/trials.py expands it). `tuning:` is SageMaker automatic model tuning, mapped to
the SDK's HyperparameterTuner in sdk/tuning.py; its names are the SDK's and the API's.
"""

from __future__ import annotations

import json
import math
from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag, model_validator

from sagelaunch import naming
from sagelaunch.catalog.api_limits import field_bounds, limit, number_range
from sagelaunch.strict import Strict

# The tuning request's numeric bounds and counts: botocore's model's (data/api_limits.json).
_TUNING_CONFIG = "CreateHyperParameterTuningJob.HyperParameterTuningJobConfig."
_LIMITS = _TUNING_CONFIG + "ResourceLimits."
_HYPERBAND = _TUNING_CONFIG + "StrategyConfig.HyperbandStrategyConfig."
_PARENTS = limit("CreateHyperParameterTuningJob.WarmStartConfig.ParentHyperParameterTuningJobs")
_RUNTIME = number_range(_LIMITS + "MaxRuntimeInSeconds")

# The most trials a sweep may have unless its sweep.max_trials says more. A few hundred holds the
# grids people mean (3 keys of 7 values: 343 trials) while a grid that multiplies out by mistake
# (3 keys of 30 values: 27,000 trials) is refused before one trial is expanded. Every trial is a
# billed job, checked and planned before the first is sent (about 3 ms to check, more to plan):
# at 4 at once and an hour a trial, 500 trials are already 5 days of jobs.
MAX_TRIALS = 500


class SweepObjective(Strict):
    metric: str = Field(
        description="Metric that ranks the trials: a metric definition's name (e.g. train:loss, "
        "validation:rmse); on SageMaker read from FinalMetricDataList, locally from metrics.json."
    )
    goal: Literal["minimize", "maximize"] = Field(
        "minimize", description="minimize or maximize the metric."
    )


class Sweep(Strict):
    """`sagelaunch sweep`: one training job per combination of the swept values."""

    parameters: dict[str, list[Any]] = Field(
        min_length=1,
        description="Dotted config path -> the values it takes, e.g. hyperparameters.lr: "
        "[1.0e-4, 3.0e-4] or compute.instance_type: [ml.g5.xlarge, ml.g5.2xlarge]. Any key "
        "may be swept; every trial is validated like a config of its own.",
    )
    method: Literal["grid", "random"] = Field(
        "grid", description="grid: every combination; random: `samples` distinct combinations."
    )
    samples: int | None = Field(
        None, ge=1, description="method random: how many combinations to draw from the grid."
    )
    seed: int = Field(0, description="method random: the seed of the draw (same seed, same set).")
    max_parallel: int = Field(
        4, ge=1, le=100, description="At most this many trials running at once."
    )
    max_trials: int = Field(
        MAX_TRIALS,
        ge=1,
        description="The most trials (jobs) the sweep may have: a larger grid, or more random "
        f"samples, is refused before anything is expanded (default {MAX_TRIALS}; raise it for "
        "a sweep that is meant to be that large).",
    )
    objective: SweepObjective | None = Field(
        None, description="The metric that picks the best trial (optional)."
    )

    @model_validator(mode="after")
    def _consistent(self) -> Sweep:
        empty = [key for key, values in self.parameters.items() if not values]
        if empty:
            raise ValueError(f"parameters: {empty[0]} has no values")
        repeated = [key for key, values in self.parameters.items() if _has_repeats(values)]
        if repeated:  # two trials would be one job (the same name, the same request)
            raise ValueError(f"parameters: {repeated[0]} lists a value twice")
        if self.method == "random" and self.samples is None:
            raise ValueError("samples: method random needs samples (how many trials to draw)")
        if self.method == "random" and self.samples and self.samples > self.grid_size:
            raise ValueError(
                f"samples: {self.samples} exceeds the {self.grid_size} combinations of the "
                "grid; use method: grid"
            )
        if self.size > self.max_trials:  # counted from the lengths: nothing is expanded
            raise ValueError(self.over_ceiling())
        return self

    @property
    def grid_size(self) -> int:
        return math.prod(len(values) for values in self.parameters.values())

    @property
    def size(self) -> int:
        """How many trials (jobs) the sweep has, without expanding it: the grid's product of
        value counts, or the random draw's samples."""
        return self.grid_size if self.method == "grid" else self.samples or 0

    def size_text(self) -> str:
        """``1,000 trials (grid 10 × 10 × 10)`` or ``8 trials (random, of a grid of 1,000)``."""
        noun = "trial" if self.size == 1 else "trials"
        if self.method == "grid":
            shape = " × ".join(str(len(v)) for v in self.parameters.values())
            return f"{self.size:,} {noun} (grid {shape})"
        return f"{self.size:,} {noun} (random, of a grid of {self.grid_size:,})"

    def over_ceiling(self) -> str:
        narrow = "narrow the grid" if self.method == "grid" else "draw fewer samples"
        return (
            f"this sweep is {self.size:,} trials, over sweep.max_trials ({self.max_trials:,}): "
            f"raise sweep.max_trials or {narrow}"
        )


def _has_repeats(values: list[Any]) -> bool:
    seen = [json.dumps(v, sort_keys=True, default=str) for v in values]
    return len(set(seen)) != len(seen)


class TuningObjective(Strict):
    metric: str = Field(
        description="objective_metric_name: a metric definition's name, or a built-in "
        "algorithm's metric (e.g. validation:rmse)."
    )
    type: Literal["Minimize", "Maximize"] = Field(
        "Maximize", description="objective_type (the SDK's default is Maximize)."
    )


class ContinuousRange(Strict):
    # int stays int: the SDK sends str() of the bound it is given ("0", not "0.0").
    min: int | float = Field(description="Lowest value.")
    max: int | float = Field(description="Highest value.")
    type: Literal["continuous"] = Field("continuous", description="continuous (the default).")
    scaling: Literal["Auto", "Linear", "Logarithmic", "ReverseLogarithmic"] = Field(
        "Auto", description="scaling_type of the search."
    )


class IntegerRange(Strict):
    min: int = Field(description="Lowest value.")
    max: int = Field(description="Highest value.")
    type: Literal["integer"] = Field(description="integer.")
    scaling: Literal["Auto", "Linear", "Logarithmic", "ReverseLogarithmic"] = Field(
        "Auto", description="scaling_type of the search."
    )


class CategoricalRange(Strict):
    values: list[Any] = Field(min_length=1, description="The values to choose from.")


RANGE_TAGS = ("continuous", "integer", "categorical")


def _range_kind(data: Any) -> str:
    if isinstance(data, dict):
        return "categorical" if "values" in data else str(data.get("type", "continuous"))
    if isinstance(data, CategoricalRange):
        return "categorical"
    # Not a mapping at all (a list, a number): let the continuous model say what was expected.
    return str(getattr(data, "type", "continuous"))


ParameterRange = Annotated[
    Annotated[ContinuousRange, Tag("continuous")]
    | Annotated[IntegerRange, Tag("integer")]
    | Annotated[CategoricalRange, Tag("categorical")],
    Discriminator(_range_kind),
]


class WarmStart(Strict):
    type: Literal["IdenticalDataAndAlgorithm", "TransferLearning"] = Field(
        description="WarmStartConfig.WarmStartType."
    )
    parents: list[str] = Field(
        min_length=_PARENTS.min,
        max_length=_PARENTS.max,
        description=f"Parent tuning job names ({_PARENTS.min} to {_PARENTS.max}).",
    )


class Hyperband(Strict):
    min_resource: int | None = Field(
        None,
        **field_bounds(_HYPERBAND + "MinResource"),
        description="HyperbandStrategyConfig.MinResource.",
    )
    max_resource: int | None = Field(
        None,
        **field_bounds(_HYPERBAND + "MaxResource"),
        description="HyperbandStrategyConfig.MaxResource.",
    )


class Tuning(Strict):
    """`sagelaunch tune`: SageMaker automatic model tuning (the SDK's HyperparameterTuner)."""

    objective: TuningObjective = Field(description="The metric tuning optimises.")
    ranges: dict[str, ParameterRange] = Field(
        min_length=1,
        description="Hyperparameter -> range: {min, max} (continuous; type: integer for whole "
        "numbers; scaling: Linear/Logarithmic/...) or {values: [...]} (categorical).",
    )
    strategy: Literal["Bayesian", "Random", "Grid", "Hyperband"] = Field(
        "Bayesian", description="Search strategy."
    )
    hyperband: Hyperband | None = Field(
        None, description="strategy Hyperband: its StrategyConfig (min/max resource)."
    )
    max_jobs: int | None = Field(
        None,
        **field_bounds(_LIMITS + "MaxNumberOfTrainingJobs"),
        description="Training jobs in all (SDK default 1; Grid: unset = every point).",
    )
    max_parallel_jobs: int = Field(
        1,
        **field_bounds(_LIMITS + "MaxParallelTrainingJobs"),
        description="Training jobs at once (SDK default 1).",
    )
    max_runtime: int | None = Field(
        None,
        ge=_RUNTIME[0],
        le=_RUNTIME[1],
        description="Longest the tuning job may run, in seconds (the API's "
        f"{_RUNTIME[0]} to {_RUNTIME[1]}).",
    )
    early_stopping: Literal["Off", "Auto"] = Field("Off", description="early_stopping_type.")
    random_seed: int | None = Field(None, description="Seed of the search (reproducible picks).")
    warm_start: WarmStart | None = Field(None, description="Start from earlier tuning jobs.")
    job_name: str | None = Field(
        None,
        pattern=naming.TUNING_JOB_NAME_PATTERN,
        max_length=naming.MAX_TUNING_JOB_NAME,
        description="Exact tuning job name, as the SDK's tuner.fit(job_name=...): 1-32 letters, "
        "digits and '-' (default: base_name + a timestamp).",
    )
    base_name: str | None = Field(
        None,
        pattern=naming.TUNING_BASE_PATTERN,
        description="Base of the tuning job name (default: the config's name), as the SDK's "
        "base_tuning_job_name: the tool adds -yymmdd-HHMM and, like the SDK, keeps the first "
        f"{naming.TUNING_BASE_KEPT} characters of a longer base (with a warning).",
    )

    @model_validator(mode="after")
    def _consistent(self) -> Tuning:
        if self.hyperband is not None and self.strategy != "Hyperband":
            raise ValueError("hyperband: applies to strategy Hyperband only")
        if self.job_name is not None and self.base_name is not None:
            raise ValueError(
                "job_name and base_name: give one (job_name is the exact name; base_name gets "
                "a timestamp)"
            )
        return self


def sweep_value_path(key: str, index: int) -> tuple[str | int, ...]:
    """Where the ``index``-th value of swept ``key`` is written: errors point there."""
    return ("sweep", "parameters", key, index)

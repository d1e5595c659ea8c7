"""`tuning:` -> the SDK's HyperparameterTuner -> the exact CreateHyperParameterTuningJob request.

Like the estimator, the tuner is plain data first (`TunerSpec`: what a hand-written script passes
to `HyperparameterTuner`), then built around the same estimator `plan` builds and captured at the
session's `_intercept_create_request` hook, offline. The SDK itself therefore decides everything
the request holds: static hyperparameters (with `sagemaker_*` ones and the estimator class for
framework estimators), JSON-quoted categorical values for framework containers, ResourceLimits,
strategy config, early stopping and warm start.

Names: the tuner is fit with the tuning job's name (`tuner.fit(job_name=...)`): the config's exact
`tuning.job_name`, else the base + short timestamp the SDK's tuner would give it (naming.py), so
the static `sagemaker_job_name` is the tuning job's. TensorFlow's default `model_dir` is the one
place where fit(job_name=...) and the SDK's usual `tuner.fit()` (a base_tuning_job_name, no
name) differ beyond that: without a name the estimator names its own job
(name_from_base(base_job_name)) and the SDK derives model_dir from that, OUTPUT_PATH/JOB/model.
So a tuning job without an exact name gets the model_dir the SDK derived for the plan's own
training job (its request's), passed to the tuner's estimator (`estimator_kwargs`); with an
exact name the SDK derives it from that name, as fit(job_name=...) does.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from sagelaunch.aws.session import validate_request
from sagelaunch.config.sweep import CategoricalRange, IntegerRange, Tuning
from sagelaunch.errors import SagelaunchError
from sagelaunch.hyperparameters import decode
from sagelaunch.sdk.capture import (
    Overlay,
    SdkRejected,
    build_estimator,
    capture_session,
    fit_inputs,
)
from sagelaunch.sdk.estimator import EstimatorSpec
from sagelaunch.sdk.runtime import SDK_WARNINGS, offline, sagemaker

TUNER = "sagemaker.tuner.HyperparameterTuner"
UNTRAINED = "No finished training job found associated with this estimator"


@dataclass(frozen=True)
class RangeSpec:
    cls: str  # ContinuousParameter | IntegerParameter | CategoricalParameter
    kwargs: dict[str, Any]


@dataclass(frozen=True)
class TunerSpec:
    """HyperparameterTuner(estimator, **kwargs) with its ranges and config objects as data."""

    kwargs: dict[str, Any]
    ranges: dict[str, RangeSpec]
    warm_start: dict[str, Any] | None = None  # WarmStartConfig(**...)
    hyperband: dict[str, Any] | None = None  # HyperbandStrategyConfig(**...)
    extra: dict[str, Any] = field(default_factory=dict)
    # Set on the tuner's estimator beyond the plan's own (TensorFlow's model_dir, see above).
    estimator_kwargs: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "class": TUNER,
            "kwargs": self.kwargs,
            "hyperparameter_ranges": {
                name: {"class": f"sagemaker.parameter.{r.cls}", "kwargs": r.kwargs}
                for name, r in self.ranges.items()
            },
        }
        if self.warm_start is not None:
            data["warm_start_config"] = self.warm_start
        if self.hyperband is not None:
            data["strategy_config"] = {"hyperband_strategy_config": self.hyperband}
        if self.estimator_kwargs:
            data["estimator_kwargs"] = self.estimator_kwargs
        return data


def estimator_model_dir(
    tuning: Tuning, estimator: EstimatorSpec, training_request: dict[str, Any]
) -> dict[str, Any]:
    """The TensorFlow tuner's estimator's model_dir when the SDK would derive it from the
    estimator's own job name (no exact tuning job name, no model_dir in the config): the one the
    SDK derived for the planned training job (its request's model_dir, an S3 location)."""
    from sagelaunch.sdk.tensorflow import TENSORFLOW

    if estimator.cls != TENSORFLOW or "model_dir" in estimator.kwargs or tuning.job_name:
        return {}
    raw = (training_request.get("HyperParameters") or {}).get("model_dir")
    value = decode(raw) if raw is not None else None
    if isinstance(value, str) and value.startswith("s3://"):
        return {"model_dir": value}
    return {}


def tuner_spec(
    tuning: Tuning, estimator: EstimatorSpec, estimator_kwargs: dict[str, Any] | None = None
) -> TunerSpec:
    """The tuner a careful engineer would write for ``tuning`` around ``estimator``."""
    kwargs: dict[str, Any] = {
        "objective_metric_name": tuning.objective.metric,
        "objective_type": tuning.objective.type,
        "strategy": tuning.strategy,
        "max_parallel_jobs": tuning.max_parallel_jobs,
        "early_stopping_type": tuning.early_stopping,
    }
    # The tuner sends only the metric definitions it is given: a framework estimator's own
    # (built-in algorithms define theirs in the image).
    metrics = estimator.kwargs.get("metric_definitions")
    optional = {
        "metric_definitions": metrics,
        "max_jobs": tuning.max_jobs,
        "max_runtime_in_seconds": tuning.max_runtime,
        "random_seed": tuning.random_seed,
    }
    kwargs.update({key: value for key, value in optional.items() if value is not None})
    warm_start = None
    if tuning.warm_start is not None:
        warm_start = {
            "warm_start_type": tuning.warm_start.type,
            "parents": list(tuning.warm_start.parents),
        }
    hyperband = None
    if tuning.hyperband is not None:
        hyperband = tuning.hyperband.model_dump(exclude_none=True)
    ranges = {name: _range(r) for name, r in tuning.ranges.items()}
    return TunerSpec(
        kwargs, ranges, warm_start, hyperband, estimator_kwargs=dict(estimator_kwargs or {})
    )


def _range(spec: Any) -> RangeSpec:
    if isinstance(spec, CategoricalRange):
        return RangeSpec("CategoricalParameter", {"values": list(spec.values)})
    kind = "IntegerParameter" if isinstance(spec, IntegerRange) else "ContinuousParameter"
    return RangeSpec(
        kind, {"min_value": spec.min, "max_value": spec.max, "scaling_type": spec.scaling}
    )


def build_tuner(spec: TunerSpec, estimator: Any) -> Any:
    sdk = sagemaker()
    parameter = sdk.parameter
    ranges = {name: getattr(parameter, r.cls)(**r.kwargs) for name, r in spec.ranges.items()}
    kwargs = dict(spec.kwargs)
    if spec.warm_start is not None:
        kwargs["warm_start_config"] = sdk.tuner.WarmStartConfig(
            warm_start_type=sdk.tuner.WarmStartTypes(spec.warm_start["warm_start_type"]),
            parents=set(spec.warm_start["parents"]),
        )
    if spec.hyperband is not None:
        kwargs["strategy_config"] = sdk.tuner.StrategyConfig(
            hyperband_strategy_config=sdk.tuner.HyperbandStrategyConfig(**spec.hyperband)
        )
    return sdk.tuner.HyperparameterTuner(
        estimator=estimator, hyperparameter_ranges=ranges, **kwargs
    )


def capture_tuning_request(
    estimator_spec: EstimatorSpec,
    spec: TunerSpec,
    region: str,
    job_name: str,
    overlay: Overlay | None = None,
) -> dict[str, Any]:
    """The CreateHyperParameterTuningJob parameters the SDK's tuner would send (``overlay`` laid
    over its training definition)."""
    session = capture_session(region)
    if spec.estimator_kwargs:
        kwargs = {**estimator_spec.kwargs, **spec.estimator_kwargs}
        estimator_spec = dataclasses.replace(estimator_spec, kwargs=kwargs)
    try:
        with offline():
            tuner = build_tuner(spec, build_estimator(estimator_spec, session))
            tuner.fit(fit_inputs(estimator_spec) or None, job_name=job_name, wait=False)
    except (ValueError, TypeError, RuntimeError) as exc:
        raise SdkRejected(f"the SageMaker SDK rejects this tuning job: {exc}") from None
    if session.captured is None:  # pragma: no cover - the SDK changed its request path
        raise SagelaunchError("the SageMaker SDK did not build a tuning request")
    # The tuner reads `estimator.model_data` (for JumpStart tags), which logs this about every
    # estimator that has not trained yet: noise, not a finding about the job.
    SDK_WARNINGS.messages[:] = [m for m in SDK_WARNINGS.messages if UNTRAINED not in m]
    request = _sorted_parents(session.captured)
    if overlay:
        definition = overlay(request["TrainingJobDefinition"])
        request = {**request, "TrainingJobDefinition": definition}
    validate_request(
        "CreateHyperParameterTuningJob",
        request,
        model=session.sagemaker_client.meta.service_model,
    )
    return request


def _sorted_parents(request: dict[str, Any]) -> dict[str, Any]:
    """WarmStartConfig takes a set of parents; a set's order varies between processes, so the
    request lists them sorted (the same parents, a stable plan)."""
    warm = request.get("WarmStartConfig")
    if not warm:
        return request
    parents = sorted(warm["ParentHyperParameterTuningJobs"], key=lambda p: str(p))
    return {**request, "WarmStartConfig": {**warm, "ParentHyperParameterTuningJobs": parents}}

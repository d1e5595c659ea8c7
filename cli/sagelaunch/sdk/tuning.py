"""`tuning:` -> the SDK's HyperparameterTuner -> the exact CreateHyperParameterTuningJob request.

Like the estimator, the tuner is plain data first (`TunerSpec`: what a hand-written script passes
to `HyperparameterTuner`), then built around the same estimator `plan` builds and captured at the
session's `_intercept_create_request` hook, offline. The SDK itself therefore decides everything
the request holds: static hyperparameters (with `sagemaker_*` ones and the estimator class for
framework estimators), JSON-quoted categorical values for framework containers, ResourceLimits,
strategy config, early stopping and warm start.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sagelaunch.aws.session import validate_request
from sagelaunch.config.sweep import CategoricalRange, IntegerRange, Tuning
from sagelaunch.errors import SagelaunchError
from sagelaunch.sdk.capture import SdkRejected, build_estimator, capture_session, fit_inputs
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
        return data


def tuner_spec(tuning: Tuning, estimator: EstimatorSpec) -> TunerSpec:
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
    return TunerSpec(kwargs, ranges, warm_start, hyperband)


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
    estimator_spec: EstimatorSpec, spec: TunerSpec, region: str, job_name: str
) -> dict[str, Any]:
    """The CreateHyperParameterTuningJob parameters the SDK's tuner would send."""
    session = capture_session(region)
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

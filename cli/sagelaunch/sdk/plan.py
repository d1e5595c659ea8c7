"""What the SDK contributes to a plan: the estimator, its exact request (and the tuning job's),
and its warnings. The plan is assembled around them in services.planning."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from sagelaunch import naming
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.errors import ConfigError, Problem
from sagelaunch.plan.service_fields import with_service_fields
from sagelaunch.plan_model import EstimatorInfo, PlanWarning, TuningPlan
from sagelaunch.sdk import instance_groups
from sagelaunch.sdk.capture import SdkRejected, capture_request
from sagelaunch.sdk.estimator import EstimatorSpec, estimator_spec
from sagelaunch.sdk.runtime import SDK_WARNINGS


def require_plannable(loaded: LoadedConfig) -> None:
    """What `validate` allows for local runs but AWS needs: S3 locations."""
    config = loaded.config
    problems: list[Problem] = []
    if not config.output_path:
        problems.append(
            loaded.problem(
                ("output_path",),
                "plan/submit need output_path (s3://bucket/prefix/) for model artifacts",
            )
        )
    for name, channel in config.inputs.items():
        if channel.uri and not channel.uri.startswith("s3://"):
            problems.append(
                loaded.problem(
                    ("inputs", name, "uri"),
                    "SageMaker reads channels from S3: use an s3:// URI "
                    "(keep local paths under local.inputs)",
                )
            )
    if problems:
        raise ConfigError(problems)


@dataclass(frozen=True)
class Captured:
    """What the SDK makes of a config: the estimator as a user would construct it, the exact
    request it sends, the tuning job around it, and the warnings it (and we, about its
    arguments) gave. services.planning assembles the plan around it."""

    estimator: EstimatorInfo
    request: dict[str, Any]
    tuning: TuningPlan | None
    warnings: list[PlanWarning]


def capture(
    loaded: LoadedConfig, *, job_name: str, region: str, role: str, code_uri: str | None
) -> Captured:
    """The config through the SDK's estimator (and tuner), offline."""
    config = loaded.config
    require_plannable(loaded)
    spec = estimator_spec(config, role=role, region=region, code_uri=code_uri)
    SDK_WARNINGS.messages.clear()
    try:
        request = capture_request(spec, region, job_name, partial(with_service_fields, config))
    except SdkRejected as exc:
        raise loaded.error(("framework",), exc.message) from None
    tuning = planned_tuning(loaded, spec, region, job_name, request) if config.tuning else None
    return Captured(
        estimator=EstimatorInfo.model_validate(spec.as_json()),
        request=request,
        tuning=tuning,
        warnings=[PlanWarning(source="sdk", message=m) for m in SDK_WARNINGS.messages]
        + [
            PlanWarning(source="tool", message=m)
            for m in instance_groups.notes(config, spec.kwargs)
        ],
    )


def planned_tuning(
    loaded: LoadedConfig,
    spec: EstimatorSpec,
    region: str,
    job_name: str,
    training_request: dict[str, Any],
) -> TuningPlan:
    """The `tuning:` block through the SDK's HyperparameterTuner, around the same estimator
    (TensorFlow's default model_dir: the one the SDK derived for the training job, sdk/tuning)."""
    from sagelaunch.sdk.tuning import capture_tuning_request, estimator_model_dir, tuner_spec

    tuning = loaded.config.tuning
    assert tuning is not None
    name = naming.tuning_job_name_for(loaded.config, job_name)
    tuner = tuner_spec(tuning, spec, estimator_model_dir(tuning, spec, training_request))
    try:
        overlay = partial(with_service_fields, loaded.config)
        request = capture_tuning_request(spec, tuner, region, name, overlay)
    except SdkRejected as exc:
        raise loaded.error(("tuning",), exc.message) from None
    return TuningPlan(job_name=name, tuner=tuner.as_json(), request=request)

"""The plan: the SDK's estimator and exact request, with cost, topology, upload and warnings."""

from __future__ import annotations

from sagelaunch import bundle as bundles
from sagelaunch import naming
from sagelaunch.config import cost, topology
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.errors import ConfigError, Problem
from sagelaunch.plan_model import (
    Cost,
    EstimatorInfo,
    Plan,
    PlanWarning,
    Topology,
    TuningPlan,
    Upload,
)
from sagelaunch.sdk import groups
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


def build_plan(
    loaded: LoadedConfig,
    *,
    job_name: str,
    region: str,
    role: str,
    bundle: bundles.Bundle | None,
    warnings: list[Problem] | None = None,
) -> Plan:
    """Everything `plan` shows and `submit` sends. Volatile inputs (name, bundle) are passed in;
    ``warnings`` are the config's (the rules'), carried with their place in the file."""
    config = loaded.config
    require_plannable(loaded)
    code_uri = bundle.s3_uri(bundles.code_prefix(config)) if bundle is not None else None
    spec = estimator_spec(config, role=role, region=region, code_uri=code_uri)
    SDK_WARNINGS.messages.clear()
    try:
        request = capture_request(spec, region, job_name)
    except SdkRejected as exc:
        raise loaded.error(("framework",), exc.message) from None
    tuning = planned_tuning(loaded, spec, region, job_name) if config.tuning else None
    return Plan(
        tuning=tuning,
        job_name=job_name,
        region=region,
        estimator=EstimatorInfo.model_validate(spec.as_json()),
        request=request,
        cost=Cost.model_validate(cost.estimate(config)),
        topology=Topology.model_validate(topology.topology(config).as_json()),
        upload=Upload.model_validate({**bundle.summary(), "s3_uri": code_uri}) if bundle else None,
        warnings=[PlanWarning.from_problem(w) for w in warnings or []]
        + [PlanWarning(source="sdk", message=m) for m in SDK_WARNINGS.messages]
        + [PlanWarning(source="tool", message=m) for m in groups.notes(config, spec.kwargs)],
    )


def planned_tuning(
    loaded: LoadedConfig, spec: EstimatorSpec, region: str, job_name: str
) -> TuningPlan:
    """The `tuning:` block through the SDK's HyperparameterTuner, around the same estimator."""
    from sagelaunch.sdk.tuning import capture_tuning_request, tuner_spec

    tuning = loaded.config.tuning
    assert tuning is not None
    name = naming.tuning_job_name_for(loaded.config, job_name)
    tuner = tuner_spec(tuning, spec)
    try:
        request = capture_tuning_request(spec, tuner, region, name)
    except SdkRejected as exc:
        raise loaded.error(("tuning",), exc.message) from None
    return TuningPlan(job_name=name, tuner=tuner.as_json(), request=request)

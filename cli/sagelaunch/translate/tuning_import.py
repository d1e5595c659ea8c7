"""`import` of a CreateHyperParameterTuningJob request (or a DescribeHyperParameterTuningJob
answer): a launch config with a `tuning:` block whose plan sends the same tuning request.

The training job definition is read as the CreateTrainingJob request it stands for (importer.py
maps that), and the tuning configuration becomes the `tuning:` keys that the SDK's
HyperparameterTuner turns back into it (sdk/tuning.py). What no key expresses is refused by name.

Names: a tuning job name the tuner generated (base + -yymmdd-HHMM, or an idempotency digest)
gives `tuning.base_name` (when it is not the config's name, cut as the tuner cuts it); any other
was given to fit(job_name=...) and becomes the exact `tuning.job_name`. The estimator's own job
name, when the SDK wrote one (the static `sagemaker_job_name` of a tuner fit without a name, or
the job a TensorFlow model_dir names), gives the config's `name`: TensorFlow's default model_dir
is then derived again, as plan derives it (sdk/tuning.py); a model_dir plan cannot derive is kept.
"""

from __future__ import annotations

import json
from typing import Any

from sagelaunch import naming
from sagelaunch.hyperparameters import decode, number_or_text
from sagelaunch.translate.importer import ImportRefused, import_request

# DescribeHyperParameterTuningJob fields that say what happened, not what was asked for.
_DESCRIBE_ONLY = {
    "HyperParameterTuningJobArn", "HyperParameterTuningJobStatus", "CreationTime",
    "HyperParameterTuningEndTime", "LastModifiedTime", "TrainingJobStatusCounters",
    "ObjectiveStatusCounters", "BestTrainingJob", "OverallBestTrainingJob", "FailureReason",
    "TuningJobCompletionDetails", "ConsumedResources", "ResponseMetadata",
}  # fmt: skip
_MAPPED = {"HyperParameterTuningJobName", "HyperParameterTuningJobConfig", "TrainingJobDefinition"}
_CONFIG_FIELDS = {
    "Strategy", "StrategyConfig", "HyperParameterTuningJobObjective", "ResourceLimits",
    "ParameterRanges", "TrainingJobEarlyStoppingType", "RandomSeed",
}  # fmt: skip
# The definition's fields that a training request has under the same name.
_AS_IN_TRAINING = {
    "AlgorithmSpecification", "RoleArn", "InputDataConfig", "VpcConfig", "OutputDataConfig",
    "StoppingCondition", "EnableNetworkIsolation", "EnableInterContainerTrafficEncryption",
    "EnableManagedSpotTraining", "CheckpointConfig", "RetryStrategy", "Environment",
}  # fmt: skip
# What the tuner adds to the static hyperparameters by itself (framework estimators).
_TUNER_KEYS = {"sagemaker_estimator_class_name", "sagemaker_estimator_module"}


def is_tuning_request(data: dict[str, Any]) -> bool:
    return isinstance(data.get("TrainingJobDefinition"), dict) or "TrainingJobDefinitions" in data


def import_tuning_request(request: dict[str, Any], source_dir: str) -> dict[str, Any]:
    """The launch config (plain data) whose `tuning:` plans to ``request``."""
    request = {k: v for k, v in request.items() if k not in _DESCRIBE_ONLY}
    _refuse_unknown(request)
    name = request["HyperParameterTuningJobName"]
    tuning_base = naming.generated_tuning_base(name)  # None: an exact name
    training = training_request(request)
    estimator_job = None if tuning_base is None else _estimator_job(request, name)
    if estimator_job is not None:
        training["TrainingJobName"] = estimator_job
    # The job plan derives TensorFlow's default model_dir from: the exact tuning job name (as
    # fit(job_name=...)), else the estimator's own job, else none this request shows.
    model_dir_job = name if tuning_base is None else estimator_job
    config = import_request(training, source_dir=source_dir, model_dir_job=model_dir_job)
    if estimator_job is None:  # the training job's name says nothing: name it after the tuning's
        config.pop("job_name", None)
        base = tuning_base if tuning_base is not None else name
        if naming.is_valid(base):
            config["name"] = base
    # The tuner never sends EnableSageMakerMetricsTimeSeries: the request cannot say it.
    config.pop("metrics_time_series", None)
    script = "entry_point" in config
    config["tuning"] = _tuning(request, script)
    if tuning_base is None:
        config["tuning"]["job_name"] = name
    elif naming.trimmed_tuning_base(config["name"]) != tuning_base:
        config["tuning"]["base_name"] = tuning_base
    return config


def _estimator_job(request: dict[str, Any], name: str) -> str | None:
    """The estimator's own job name in a tuning job named from a base: the static
    `sagemaker_job_name` when it is not the tuning job's (the SDK's tuner.fit() without a name),
    else the job a TensorFlow model_dir OUTPUT_PATH/JOB/model names, when JOB is a generated
    training job name (a plan's: sagelaunch names the static hyperparameter after the tuning
    job); None when neither says."""
    statics = request["TrainingJobDefinition"].get("StaticHyperParameters") or {}
    written = decode(statics["sagemaker_job_name"]) if "sagemaker_job_name" in statics else None
    if isinstance(written, str) and written != name:
        return written
    model_dir = decode(statics["model_dir"]) if "model_dir" in statics else None
    output = (request["TrainingJobDefinition"].get("OutputDataConfig") or {}).get("S3OutputPath")
    if not isinstance(model_dir, str) or not output:
        return None
    prefix = output.rstrip("/") + "/"
    job = model_dir.removeprefix(prefix).removesuffix("/model")
    generated = naming.generated_base(job) is not None
    return job if model_dir == f"{prefix}{job}/model" and "/" not in job and generated else None


def training_request(request: dict[str, Any]) -> dict[str, Any]:
    """The CreateTrainingJob request the tuning job's definition stands for."""
    definition = request["TrainingJobDefinition"]
    training = {k: v for k, v in definition.items() if k in _AS_IN_TRAINING}
    training["TrainingJobName"] = request["HyperParameterTuningJobName"]
    statics = definition.get("StaticHyperParameters") or {}
    training["HyperParameters"] = {k: v for k, v in statics.items() if k not in _TUNER_KEYS}
    training["ResourceConfig"] = (
        definition.get("HyperParameterTuningResourceConfig") or (definition["ResourceConfig"])
    )
    if request.get("Tags"):
        training["Tags"] = request["Tags"]
    return training


def _refuse_unknown(request: dict[str, Any]) -> None:
    config = request.get("HyperParameterTuningJobConfig") or {}
    definition = request.get("TrainingJobDefinition") or {}
    known = _AS_IN_TRAINING | {
        "StaticHyperParameters", "ResourceConfig", "HyperParameterTuningResourceConfig",
    }  # fmt: skip
    unknown = (
        sorted(set(request) - _MAPPED - {"WarmStartConfig", "Tags"})
        + sorted(f"HyperParameterTuningJobConfig.{k}" for k in set(config) - _CONFIG_FIELDS)
        + sorted(f"TrainingJobDefinition.{k}" for k in set(definition) - known)
    )
    if unknown:
        raise ImportRefused(
            f"the tuning request sets {', '.join(unknown)}, which no launch-config key "
            "expresses yet",
            hint="plan the tuning job with the SDK directly, or remove the field from the JSON",
        )


def _tuning(request: dict[str, Any], script: bool) -> dict[str, Any]:
    config = request["HyperParameterTuningJobConfig"]
    objective = config["HyperParameterTuningJobObjective"]
    limits = config.get("ResourceLimits") or {}
    tuning: dict[str, Any] = {
        "objective": {"metric": objective["MetricName"], "type": objective["Type"]},
        "ranges": _ranges(config.get("ParameterRanges") or {}, script),
        "strategy": config.get("Strategy", "Bayesian"),
        "max_jobs": limits.get("MaxNumberOfTrainingJobs"),
        "max_parallel_jobs": limits.get("MaxParallelTrainingJobs", 1),
        "max_runtime": limits.get("MaxRuntimeInSeconds"),
        "early_stopping": config.get("TrainingJobEarlyStoppingType", "Off"),
        "random_seed": config.get("RandomSeed"),
    }
    hyperband = (config.get("StrategyConfig") or {}).get("HyperbandStrategyConfig")
    if hyperband:
        tuning["hyperband"] = {
            "min_resource": hyperband.get("MinResource"),
            "max_resource": hyperband.get("MaxResource"),
        }
    warm = request.get("WarmStartConfig")
    if warm:
        tuning["warm_start"] = {
            "type": warm["WarmStartType"],
            "parents": [
                p["HyperParameterTuningJobName"] for p in warm["ParentHyperParameterTuningJobs"]
            ],
        }
    return {k: v for k, v in tuning.items() if v is not None}


def _ranges(ranges: dict[str, Any], script: bool) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for entry in ranges.get("ContinuousParameterRanges") or []:
        found[entry["Name"]] = _bounds(entry, "continuous")
    for entry in ranges.get("IntegerParameterRanges") or []:
        found[entry["Name"]] = _bounds(entry, "integer")
    for entry in ranges.get("CategoricalParameterRanges") or []:
        # Framework containers get JSON-encoded values (the SDK's script mode); built-in
        # algorithms the plain strings.
        decode = json.loads if script else number_or_text
        found[entry["Name"]] = {"values": [decode(v) for v in entry["Values"]]}
    return found


def _bounds(entry: dict[str, Any], kind: str) -> dict[str, Any]:
    bounds: dict[str, Any] = {
        "min": number_or_text(entry["MinValue"]),
        "max": number_or_text(entry["MaxValue"]),
    }
    if kind == "integer":
        bounds["type"] = "integer"
    if entry.get("ScalingType", "Auto") != "Auto":
        bounds["scaling"] = entry["ScalingType"]
    return bounds

"""`sagelaunch import`: a CreateTrainingJob request (or a DescribeTrainingJob answer) back to a
launch config that plans to the same request.

Every field of the request is either mapped to a config key or refused by name: nothing is
dropped silently. What the SDK injects (`sagemaker_*` hyperparameters, `mp_parameters`, the
image) is turned back into what produced it: entry point, distribution, framework version.
"""

from __future__ import annotations

from typing import Any

from sagelaunch import naming, redact
from sagelaunch.catalog import facts, sdk_data
from sagelaunch.catalog.versions import numbers
from sagelaunch.errors import UsageError
from sagelaunch.hyperparameters import decode_hyperparameters, number_or_text
from sagelaunch.plan import hf_images, images
from sagelaunch.strategies import registry, smp
from sagelaunch.translate import hf_import, import_extras, tf_import

# DescribeTrainingJob fields that say what happened to a job, not what was asked for.
DESCRIBE_ONLY = {
    "TrainingJobArn", "TrainingJobStatus", "SecondaryStatus", "FailureReason", "CreationTime",
    "TrainingStartTime", "TrainingEndTime", "LastModifiedTime", "SecondaryStatusTransitions",
    "FinalMetricDataList", "ModelArtifacts", "TrainingTimeInSeconds", "BillableTimeInSeconds",
    "ProfilingStatus", "ProfilerRuleEvaluationStatuses", "DebugRuleEvaluationStatuses",
    "WarmPoolStatus", "AutoMLJobArn", "LabelingJobArn", "TuningJobArn", "ResponseMetadata",
}  # fmt: skip
# Hyperparameters the SDK writes from other settings (mapped back below, never user keys).
_SDK_KEYS = {
    "sagemaker_program",
    "sagemaker_submit_directory",
    "sagemaker_region",
    "sagemaker_container_log_level",
    "sagemaker_job_name",
    "sagemaker_instance_type",
    import_extras.GROUPS_HYPERPARAMETER,
}  # fmt: skip (and each strategy's: Strategy.sdk_hyperparameters)
_ALGORITHM_SPECIFICATION = {
    "TrainingImage", "TrainingInputMode", "MetricDefinitions", "EnableSageMakerMetricsTimeSeries",
}  # fmt: skip
_DEFAULT_LOG_LEVEL = 20  # logging.INFO, the SDK's container_log_level default


class ImportRefused(UsageError):
    """A request field sagelaunch has no config key for: named, never dropped."""


# import_request's model_dir_job when the request's own TrainingJobName names the model_dir.
_OWN_NAME = "TrainingJobName"


def import_request(
    request: dict[str, Any], source_dir: str, *, model_dir_job: str | None = _OWN_NAME
) -> dict[str, Any]:
    """The launch config (as plain data) for ``request``; ``source_dir`` holds its code.

    ``model_dir_job``: the job name plan will derive TensorFlow's default model_dir from (the
    request's own, by default; None: none, so any S3 model_dir is kept as written)."""
    request = {k: v for k, v in request.items() if k not in DESCRIBE_ONLY}
    _refuse_unknown(request)
    spec = request["AlgorithmSpecification"]
    raw = dict(request.get("HyperParameters") or {})
    script = "sagemaker_program" in raw
    hps = decode_hyperparameters(raw) if script else raw
    framework = _framework(spec["TrainingImage"])
    config: dict[str, Any] = job_names(request["TrainingJobName"])
    config["framework"] = framework
    if any(c["ChannelName"] == "sm_drivers" for c in request.get("InputDataConfig") or []):
        config["sdk"] = "v3"  # ModelTrainer's drivers travel as this channel (export/sdk_v3.py)
    if script:
        config["entry_point"] = hps["sagemaker_program"]
        config["source_dir"] = source_dir
    region = hps.get("sagemaker_region") or _image_region(spec["TrainingImage"])
    if region:
        config["region"] = region
    config.update(_distribution(hps, framework))
    if import_extras.distribution_groups(hps) and "distribution" in config:
        config["distribution"]["groups"] = import_extras.distribution_groups(hps)
    if framework == "tensorflow":
        job = request["TrainingJobName"] if model_dir_job == _OWN_NAME else model_dir_job
        settings, consumed = tf_import.tensorflow_settings(hps, request, job)
        config.update(settings)
        hps = {key: value for key, value in hps.items() if key not in consumed}
    config.update(_image(spec["TrainingImage"], framework, region, request, config))
    config.update(_metrics_time_series(spec, config))
    config["role"] = request["RoleArn"]
    config["compute"] = _compute(request)
    config.update(_outputs(request, hps))
    config["hyperparameters"] = _user_hyperparameters(hps, script, framework)
    config.update(_metrics(spec, config))
    config.update(_channels(import_extras.user_channels(request, hps)))
    config.update(_optional_settings(request))
    return _pruned(config)


def job_names(job_name: str) -> dict[str, Any]:
    """``name`` (and ``job_name``) for a training job name: a generated one (the SDK's
    name_from_base timestamp, an idempotency key's digest) gives its base as ``name``, which plan
    timestamps again; any other was given as it is (fit(job_name=...)) and stays exact."""
    base = naming.generated_base(job_name)
    if base is not None:
        name = naming.trimmed_base(base)
        return {"name": name if naming.is_valid(name) else "imported-job"}
    if not naming.is_valid(job_name):
        return {"name": "imported-job"}
    return {"name": job_name, "job_name": job_name}


def _image_region(uri: str) -> str | None:
    """The region an ECR image names (<account>.dkr.ecr.<region>.amazonaws.com/...): a built-in
    algorithm's request has no sagemaker_region hyperparameter, but its image says where it ran."""
    return uri.split(".")[3] if ".dkr.ecr." in uri else None


def _framework(image: str) -> str:
    if hf_images.is_training_image(image):
        return "huggingface"
    if "xgboost" in image:
        return "xgboost"
    return "tensorflow" if tf_import.is_tensorflow_image(image) else "pytorch"


def _pruned(data: dict[str, Any]) -> dict[str, Any]:
    """Unset values out, so that the config shows only what the request set."""
    pruned = {k: _pruned(v) if isinstance(v, dict) else v for k, v in data.items()}
    return {k: v for k, v in pruned.items() if v is not None and v != {}}


def _refuse_unknown(request: dict[str, Any]) -> None:
    mapped = {
        "TrainingJobName", "AlgorithmSpecification", "RoleArn", "HyperParameters",
        "InputDataConfig", "OutputDataConfig", "ResourceConfig", "StoppingCondition",
        "EnableManagedSpotTraining", "CheckpointConfig", "Environment", "Tags", "VpcConfig",
        "EnableNetworkIsolation", "EnableInterContainerTrafficEncryption", "RetryStrategy",
        "ProfilerConfig", "DebugHookConfig", *import_extras.FIELDS,
    }  # fmt: skip
    spec = set(request.get("AlgorithmSpecification") or {}) - _ALGORITHM_SPECIFICATION
    unknown = sorted(set(request) - mapped) + sorted(f"AlgorithmSpecification.{k}" for k in spec)
    if unknown:
        raise ImportRefused(
            f"the request sets {', '.join(unknown)}, which no launch-config key expresses yet",
            hint="plan the job with the SDK directly, or remove the field from the JSON",
        )


def _distribution(hps: dict[str, Any], framework: str) -> dict[str, Any]:
    """The strategy whose SDK distribution wrote these hyperparameters (none: no key)."""
    distribution = registry.imported(hps, framework)
    return {"distribution": distribution} if distribution else {}


def _image(
    uri: str, framework: str, region: str | None, request: dict[str, Any], config: dict[str, Any]
) -> dict[str, Any]:
    """framework_version/py_version when the SDK (or sagelaunch's table) gives this image for
    them, else image_uri (with the version read from a DLC-style tag)."""
    named = config.get("distribution", {}).get("groups")
    instance_type = import_extras.training_instance_type(request, named)
    if framework == "huggingface":
        return hf_import.huggingface_settings(uri, region, instance_type)
    strategy = registry.get(config.get("distribution", {}).get("strategy", registry.DEFAULT))
    smp_v2 = smp.imported_v2(config.get("distribution", {}))
    name = "pytorch-smp" if smp_v2 else images.sdk_table_name(framework, instance_type)
    table = sdk_data.training_config(name)
    candidates = [
        (version, py)
        for version in [*table["versions"], *table.get("version_aliases", {})]
        for py in _py_candidates(table, version)
    ]
    for version, py in candidates:
        try:
            image = images.sdk_training_image(
                framework,
                region,
                version,
                py,
                instance_type,
                smp_v2=smp_v2,
                smdistributed=strategy.smdistributed,
            )
        except images.ImageUnavailable:
            continue
        if image.uri == uri:
            return {"framework_version": version, "py_version": py}
    version = _tool_known_version(uri)
    if version:
        return {"framework_version": version}
    return {"image_uri": uri, "framework_version": _tag_version(uri, framework)}


# The framework versions from which the SDK's estimators turn SageMaker Metrics time series on
# by themselves (pytorch/estimator.py, tensorflow/estimator.py).
_METRICS_SERIES_FROM = {"pytorch": (1, 3), "tensorflow": (1, 15)}


def _metrics_time_series(spec: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """metrics_time_series only where the request differs from what the SDK adds by itself."""
    sent = spec.get("EnableSageMakerMetricsTimeSeries")
    threshold = _METRICS_SERIES_FROM.get(config["framework"])
    version = config.get("framework_version")
    by_default = bool(
        threshold and "entry_point" in config and version and numbers(version) >= threshold
    )
    if config["framework"] == "huggingface":  # its estimator turns it on for every version
        by_default = "entry_point" in config
    if sent is None:
        return {"metrics_time_series": "unsent"} if by_default else {}
    return {} if sent is True and by_default else {"metrics_time_series": sent}


def _py_candidates(table: dict[str, Any], version: str) -> list[str | None]:
    entry = table["versions"][table.get("version_aliases", {}).get(version, version)]
    offered = entry.get("py_versions") or [k for k in entry if k.startswith("py")]
    return [*offered] or [None]


def _tool_known_version(uri: str) -> str | None:
    table = facts.load("images")
    for section in ("neuronx", "smddp", "smddp_in_smp_image"):
        for version, tag in table[section].items():
            if uri.endswith("/" + tag):
                return str(version)
    return None


def _tag_version(uri: str, framework: str) -> str | None:
    if framework == "xgboost":
        return uri.rsplit(":", 1)[-1] if ":" in uri else None
    return images.version_from_image(uri)


def _compute(request: dict[str, Any]) -> dict[str, Any]:
    resources, stopping = request["ResourceConfig"], request["StoppingCondition"]
    groups = import_extras.compute_groups(resources)
    compute: dict[str, Any] = {
        **(
            {}
            if "groups" in groups or "instance_preferences" in groups
            else {
                "instance_type": resources["InstanceType"],
                "instance_count": resources.get("InstanceCount", 1),
            }
        ),
        **groups,
        "volume_size_gb": resources.get("VolumeSizeInGB", 30),
        "max_run": stopping.get("MaxRuntimeInSeconds", 86400),
    }
    if resources.get("KeepAlivePeriodInSeconds"):
        compute["keep_alive"] = resources["KeepAlivePeriodInSeconds"]
    if request.get("EnableManagedSpotTraining"):
        compute["spot"] = {"max_wait": stopping.get("MaxWaitTimeInSeconds", compute["max_run"])}
    elif "MaxWaitTimeInSeconds" in stopping:  # the SDK sends max_wait without spot too
        compute["max_wait"] = stopping["MaxWaitTimeInSeconds"]
    if "MaxPendingTimeInSeconds" in stopping:
        compute["max_pending"] = stopping["MaxPendingTimeInSeconds"]
    retries = (request.get("RetryStrategy") or {}).get("MaximumRetryAttempts")
    if retries:
        compute["retries"] = retries
    return compute


def _outputs(request: dict[str, Any], hps: dict[str, Any]) -> dict[str, Any]:
    output = request.get("OutputDataConfig") or {}
    result: dict[str, Any] = {"output_path": output.get("S3OutputPath")}
    if output.get("CompressionType") == "NONE":
        result["output_compression"] = False
    kms = {
        "volume_key_id": request["ResourceConfig"].get("VolumeKmsKeyId"),
        "output_key_id": output.get("KmsKeyId") or None,
    }
    result["kms"] = {k: v for k, v in kms.items() if v}
    code = hps.get("sagemaker_submit_directory")
    if isinstance(code, str) and "/sagelaunch-code/" in code:
        prefix = code.split("/sagelaunch-code/")[0]
        if prefix != str(result["output_path"]).rstrip("/"):
            result["code_location"] = prefix
    if hps.get("sagemaker_container_log_level", _DEFAULT_LOG_LEVEL) != _DEFAULT_LOG_LEVEL:
        raise ImportRefused("hyperparameter sagemaker_container_log_level has no config key yet")
    return result


def _user_hyperparameters(hps: dict[str, Any], script: bool, framework: str) -> dict[str, Any]:
    sdk_keys = _SDK_KEYS | registry.sdk_hyperparameters(framework)
    user = {k: v for k, v in hps.items() if k not in sdk_keys} if script else dict(hps)
    reserved = sorted(k for k in user if k.startswith("sagemaker_"))
    if script and reserved:
        raise ImportRefused(f"hyperparameters {', '.join(reserved)} have no config key yet")
    return user if script else {k: number_or_text(v) for k, v in user.items()}


def _metrics(spec: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    from sagelaunch.config.default_metrics import DEFAULT_METRICS

    given = [{"name": m["Name"], "regex": m["Regex"]} for m in spec.get("MetricDefinitions", [])]
    defaults = DEFAULT_METRICS.get(str(config.get("entry_point")))
    if defaults is not None and given == [
        {"name": m["Name"], "regex": m["Regex"]} for m in defaults
    ]:
        return {}
    if "entry_point" not in config and not given:
        return {}
    return {"metrics": given}


def _channels(channels: list[dict[str, Any]]) -> dict[str, Any]:
    inputs: dict[str, Any] = {}
    for channel in channels:
        inputs[channel["ChannelName"]] = _channel(channel)
    return {"inputs": inputs}


def _channel(channel: dict[str, Any]) -> dict[str, Any]:
    name, source = channel["ChannelName"], channel["DataSource"]
    result: dict[str, Any] = import_extras.channel_extras(channel)
    if "S3DataSource" in source:
        s3 = source["S3DataSource"]
        if s3.get("S3DataType", "S3Prefix") != "S3Prefix":
            raise ImportRefused(f"InputDataConfig[{name}]: S3DataType {s3['S3DataType']}")
        result["uri"] = s3["S3Uri"]
        if s3.get("S3DataDistributionType") == "ShardedByS3Key":
            result["distribution"] = "sharded"
    else:
        fs = source["FileSystemDataSource"]
        result["file_system"] = {
            "type": fs["FileSystemType"],
            "id": fs["FileSystemId"],
            "path": fs["DirectoryPath"],
            "access_mode": fs.get("FileSystemAccessMode", "ro"),
        }
    if channel.get("ContentType"):
        result["content_type"] = channel["ContentType"]
    if channel.get("InputMode"):  # kept even when it is the job's: TrainingInput sent it
        if "file_system" in result:
            raise ImportRefused(
                f"InputDataConfig[{name}].InputMode: a file system channel's own input mode has "
                "no config key (the SDK's FileSystemInput sends none)",
                hint="remove it from the JSON (the channel then takes the job's input mode)",
            )
        result["input_mode"] = channel["InputMode"]
    return result


def _optional_settings(request: dict[str, Any]) -> dict[str, Any]:
    spec = request["AlgorithmSpecification"]
    vpc = request.get("VpcConfig") or {}
    network = {
        "subnets": vpc.get("Subnets"),
        "security_group_ids": vpc.get("SecurityGroupIds"),
        "isolation": request.get("EnableNetworkIsolation") or None,
        "encrypt_inter_container_traffic": request.get("EnableInterContainerTrafficEncryption")
        or None,
    }
    checkpoint = request.get("CheckpointConfig")
    return {
        "input_mode": spec.get("TrainingInputMode")
        if spec.get("TrainingInputMode") != "File"
        else None,
        "checkpoint": {
            "s3_uri": checkpoint["S3Uri"],
            "local_path": checkpoint.get("LocalPath"),
        }
        if checkpoint
        else None,
        "environment": redact.referenced(request.get("Environment") or {}),
        "tags": {t["Key"]: t["Value"] for t in request.get("Tags") or []},
        "network": {k: v for k, v in network.items() if v},
        **import_extras.settings(request),
    }

"""Launch config -> SageMaker SDK v2 estimator, as plain data first.

`EstimatorSpec` is the class name and keyword arguments exactly as a hand-written SDK script would
pass them; `plan` prints it, and `capture.py` instantiates it. Keeping it data makes the mapping
reviewable and testable without the SDK.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sagelaunch.config.default_metrics import DEFAULT_METRICS
from sagelaunch.config.model import Channel, LaunchConfig
from sagelaunch.plan.images import default_py_version, tool_known_image
from sagelaunch.sdk import debugger_objects, instance_groups
from sagelaunch.sdk.objects import call
from sagelaunch.sdk.runtime import sagemaker
from sagelaunch.strategies import registry

PYTORCH = "sagemaker.pytorch.PyTorch"
XGBOOST = "sagemaker.xgboost.XGBoost"
ESTIMATOR = "sagemaker.estimator.Estimator"


@dataclass(frozen=True)
class ChannelSpec:
    """One fit() input: TrainingInput or FileSystemInput keyword arguments."""

    kind: str  # TrainingInput | FileSystemInput
    kwargs: dict[str, Any]


@dataclass(frozen=True)
class EstimatorSpec:
    cls: str
    kwargs: dict[str, Any]
    inputs: dict[str, ChannelSpec] = field(default_factory=dict)
    builtin_hyperparameters: dict[str, Any] | None = None  # set_hyperparameters(**...)
    fit_kwargs: dict[str, Any] = field(default_factory=dict)  # fit(experiment_config=...)

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"class": self.cls, "kwargs": self.kwargs}
        if self.builtin_hyperparameters is not None:
            data["set_hyperparameters"] = self.builtin_hyperparameters
        data["fit_inputs"] = {
            name: {"class": f"sagemaker.inputs.{spec.kind}", "kwargs": spec.kwargs}
            for name, spec in self.inputs.items()
        }
        if self.fit_kwargs:
            data["fit_kwargs"] = self.fit_kwargs
        return data


def estimator_spec(
    config: LaunchConfig, *, role: str, region: str, code_uri: str | None
) -> EstimatorSpec:
    """The estimator a careful engineer would write by hand for this config."""
    spec = _estimator_spec(config, role=role, region=region, code_uri=code_uri)
    debugger_objects.apply(config, spec.kwargs)
    instance_groups.apply(config, spec.kwargs)
    return EstimatorSpec(
        spec.cls,
        spec.kwargs,
        spec.inputs,
        spec.builtin_hyperparameters,
        debugger_objects.fit_kwargs(config),
    )


def _estimator_spec(
    config: LaunchConfig, *, role: str, region: str, code_uri: str | None
) -> EstimatorSpec:
    kwargs = _common_kwargs(config, role)
    image = training_image_uri(config, region)
    if image:
        kwargs["image_uri"] = image
    inputs = {name: _channel(channel) for name, channel in config.inputs.items()}
    if config.is_builtin_algorithm:
        return EstimatorSpec(ESTIMATOR, kwargs, inputs, dict(config.hyperparameters))
    kwargs.update(entry_point=config.entry_point, source_dir=code_uri)
    if config.framework_version:
        kwargs["framework_version"] = config.framework_version
    kwargs["hyperparameters"] = {
        **config.hyperparameters,
        **registry.of(config).own_hyperparameters(config),
    }
    metrics = _metric_definitions(config)
    if metrics is not None:
        kwargs["metric_definitions"] = metrics
    if config.framework == "tensorflow":
        from sagelaunch.sdk.tensorflow import TENSORFLOW, tensorflow_kwargs

        return EstimatorSpec(TENSORFLOW, tensorflow_kwargs(config, kwargs), inputs)
    if config.framework == "huggingface":
        from sagelaunch.sdk.huggingface import HUGGINGFACE, huggingface_kwargs

        return EstimatorSpec(HUGGINGFACE, huggingface_kwargs(config, kwargs), inputs)
    if config.framework == "xgboost":
        kwargs["py_version"] = config.py_version or "py3"
        return EstimatorSpec(XGBOOST, kwargs, inputs)
    if config.framework_version:  # with image_uri alone the PyTorch estimator needs neither
        kwargs["py_version"] = config.py_version or default_py_version(config)
    distribution = registry.of(config).sdk_distribution(config)
    if distribution:
        kwargs["distribution"] = distribution
    return EstimatorSpec(PYTORCH, kwargs, inputs)


def _common_kwargs(config: LaunchConfig, role: str) -> dict[str, Any]:
    compute = config.compute
    kwargs: dict[str, Any] = {
        "role": role,
        "instance_type": compute.instance_type,
        "instance_count": compute.instance_count,
        "volume_size": compute.volume_size_gb,
        "max_run": compute.max_run,
        "output_path": config.output_path,
    }
    optional = {
        "use_spot_instances": True if compute.spot else None,
        "max_wait": compute.spot.max_wait if compute.spot else compute.max_wait,
        "checkpoint_s3_uri": config.checkpoint.s3_uri if config.checkpoint else None,
        "checkpoint_local_path": config.checkpoint.local_path if config.checkpoint else None,
        "keep_alive_period_in_seconds": compute.keep_alive or None,
        "max_retry_attempts": compute.retries or None,
        "environment": dict(config.environment) or None,
        "tags": [{"Key": k, "Value": v} for k, v in config.tags.items()] or None,
        "subnets": list(config.network.subnets) or None,
        "security_group_ids": list(config.network.security_group_ids) or None,
        "enable_network_isolation": config.network.isolation or None,
        "encrypt_inter_container_traffic": config.network.encrypt_inter_container_traffic or None,
        "volume_kms_key": config.kms.volume_key_id,
        "output_kms_key": config.kms.output_key_id,
        "disable_output_compression": True if not config.output_compression else None,
        "input_mode": config.input_mode if config.input_mode != "File" else None,
        "disable_profiler": True if not config.profiler else None,
        "debugger_hook_config": False if not config.debugger else None,
        "enable_remote_debug": config.remote_debug or None,
        "enable_infra_check": config.infra_check or None,
        "enable_session_tag_chaining": config.session_tag_chaining or None,
        "training_plan": compute.training_plan,
        "instance_placement_config": compute.placement.as_request() if compute.placement else None,
    }
    kwargs.update({key: value for key, value in optional.items() if value is not None})
    if config.metrics_time_series != "sdk-default":
        # "unsent" passes None explicitly: the framework estimators add True only when the
        # keyword is absent.
        series = config.metrics_time_series
        kwargs["enable_sagemaker_metrics"] = series if isinstance(series, bool) else None
    return kwargs


def training_image_uri(config: LaunchConfig, region: str) -> str | None:
    """The job's image, resolved once for the estimator: the built-in algorithm's (the SDK's
    image_uris), the config's image_uri, one the SDK's estimator would not pick itself
    (plan.images.tool_known_image), SDK v3's; None where the framework estimator resolves it
    from its own version arguments."""
    if config.is_builtin_algorithm:
        builtin: str = sagemaker().image_uris.retrieve(
            "xgboost", region, config.framework_version, instance_type=config.compute.instance_type
        )
        return builtin
    return config.image_uri or tool_known_image(config, region) or _v3_image(config, region)


def _v3_image(config: LaunchConfig, region: str) -> str | None:
    """SDK v3's ModelTrainer always sends its training_image, which skips v2's checks of the
    distribution for the instance type (v3 has none: torchrun runs on a CPU instance too). The
    request is planned through v2's estimator, so it gets the image v2 resolves for the job."""
    if config.sdk != "v3" or not (config.framework_version or config.transformers_version):
        return None
    if config.framework == "huggingface":
        hf: str = sagemaker().image_uris.get_training_image_uri(
            region,
            config.framework,
            config.transformers_version,
            config.py_version or default_py_version(config),
            pytorch_version=config.pytorch_version,
            tensorflow_version=config.tensorflow_version,
            instance_type=config.compute.instance_type,
        )
        return hf
    image: str = sagemaker().image_uris.retrieve(
        config.framework,
        region,
        config.framework_version,
        py_version=config.py_version or default_py_version(config),
        instance_type=config.compute.instance_type,
        image_scope="training",
    )
    return image


def _channel(channel: Channel) -> ChannelSpec:
    if channel.file_system:
        fs = channel.file_system
        kwargs: dict[str, Any] = {
            "file_system_id": fs.id,
            "file_system_type": fs.type,
            "directory_path": fs.path,
            "file_system_access_mode": fs.access_mode,
        }
        if channel.content_type:
            kwargs["content_type"] = channel.content_type
        return ChannelSpec("FileSystemInput", kwargs)
    kwargs = {
        "s3_data": channel.uri,
        "distribution": "ShardedByS3Key"
        if channel.distribution == "sharded"
        else "FullyReplicated",
    }
    if channel.content_type:
        kwargs["content_type"] = channel.content_type
    if channel.input_mode is not None:  # set: sent, even when it is the job's (as the SDK)
        kwargs["input_mode"] = channel.input_mode
    kwargs.update(_channel_options(channel))
    return ChannelSpec("TrainingInput", kwargs)


def _channel_options(channel: Channel) -> dict[str, Any]:
    options: dict[str, Any] = {
        "compression": channel.compression,
        "record_wrapping": channel.record_wrapping,
        "shuffle_config": call("sagemaker.inputs.ShuffleConfig", channel.shuffle_seed)
        if channel.shuffle_seed is not None
        else None,
    }
    return {
        **{k: v for k, v in options.items() if v is not None},
        **instance_groups.channel_groups(channel),
    }


def _metric_definitions(config: LaunchConfig) -> list[dict[str, str]] | None:
    if config.metrics is not None:
        return [{"Name": m.name, "Regex": m.regex} for m in config.metrics] or None
    defaults = DEFAULT_METRICS.get(str(config.entry_point))
    return [dict(m) for m in defaults] if defaults else None

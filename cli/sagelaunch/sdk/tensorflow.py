"""The SDK's TensorFlow estimator (`sagemaker.tensorflow.TensorFlow`) for a launch config.

What the estimator adds to the request is left to the SDK itself (capture.py runs it): the
`sagemaker_parameter_server_enabled`, `sagemaker_multi_worker_mirrored_strategy_enabled`,
`sagemaker_mpi_*` and `sagemaker_distributed_dataparallel_*` hyperparameters, and `model_dir`:
unless told otherwise the SDK passes `--model_dir s3://OUTPUT_PATH/JOB_NAME/model` (`/opt/ml/model`
under MPI). The config's `model_dir` key is the estimator's argument of that name: unset leaves the
SDK's default, `false` passes none, a string passes that location.
"""

from __future__ import annotations

from typing import Any

from sagelaunch.config.model import LaunchConfig

TENSORFLOW = "sagemaker.tensorflow.TensorFlow"


def tensorflow_distribution(config: LaunchConfig) -> dict[str, Any] | None:
    """The `distribution=` dict for each strategy, as the SDK's TensorFlow estimator takes it."""
    dist = config.distribution
    if dist.strategy == "parameter_server":
        return {"parameter_server": {"enabled": True}}
    if dist.strategy == "multi_worker_mirrored":
        return {"multi_worker_mirrored_strategy": {"enabled": True}}
    if dist.strategy == "smddp":
        options = dist.custom_mpi_options
        return {"smdistributed": {"dataparallel": {"enabled": True, "custom_mpi_options": options}}}
    if dist.strategy == "mpi":
        mpi: dict[str, Any] = {"enabled": True}
        if dist.processes_per_host:
            mpi["processes_per_host"] = dist.processes_per_host
        mpi["custom_mpi_options"] = dist.custom_mpi_options
        return {"mpi": mpi}
    if dist.strategy == "smp":  # v1 (v2 is refused by the rules): the same dict as PyTorch's
        from sagelaunch.sdk.estimator import pytorch_distribution

        return pytorch_distribution(config)
    return None  # none; torchrun is refused by the rules before planning


def tensorflow_kwargs(config: LaunchConfig, kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` (the framework-independent ones) plus the TensorFlow estimator's own."""
    from sagelaunch.config.images import default_py_version

    kwargs = dict(kwargs)
    if config.framework_version:  # with image_uri alone the estimator needs neither
        kwargs["py_version"] = config.py_version or default_py_version(config)
    distribution = tensorflow_distribution(config)
    if distribution:
        kwargs["distribution"] = distribution
    if config.model_dir is not None:
        kwargs["model_dir"] = config.model_dir
    return kwargs

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
from sagelaunch.strategies import registry

TENSORFLOW = "sagemaker.tensorflow.TensorFlow"


def tensorflow_kwargs(config: LaunchConfig, kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` (the framework-independent ones) plus the TensorFlow estimator's own."""
    from sagelaunch.plan.images import default_py_version

    kwargs = dict(kwargs)
    if config.framework_version:  # with image_uri alone the estimator needs neither
        kwargs["py_version"] = config.py_version or default_py_version(config)
    distribution = registry.of(config).sdk_distribution(config)
    if distribution:
        kwargs["distribution"] = distribution
    if config.model_dir is not None:
        kwargs["model_dir"] = config.model_dir
    return kwargs

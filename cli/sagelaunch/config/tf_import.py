"""`sagelaunch import` for TensorFlow requests: what the SDK's TensorFlow estimator injected.

Its distribution flags (`sagemaker_parameter_server_enabled`,
`sagemaker_multi_worker_mirrored_strategy_enabled`) are the strategies' to import
(strategies/tensorflow_flag.py); `model_dir` becomes the config's key only when it is not the
SDK's default (OUTPUT_PATH/JOB_NAME/model, or /opt/ml/model under MPI); a request without one was
planned with `model_dir: false`.
"""

from __future__ import annotations

from typing import Any


def is_tensorflow_image(uri: str) -> bool:
    return "/tensorflow-training" in uri or "/sagemaker-tensorflow" in uri


def tensorflow_settings(
    hps: dict[str, Any], request: dict[str, Any]
) -> tuple[dict[str, Any], set[str]]:
    """(config keys, the hyperparameters they account for)."""
    settings: dict[str, Any] = {}
    model_dir = hps.get("model_dir")
    if model_dir is None:
        settings["model_dir"] = False
    elif model_dir != _sdk_default(hps, request):
        settings["model_dir"] = model_dir
    return settings, {"model_dir"}


def _sdk_default(hps: dict[str, Any], request: dict[str, Any]) -> str:
    """The estimator's _default_s3_path("model") for this request."""
    if hps.get("sagemaker_mpi_enabled") is True:
        return "/opt/ml/model"
    output = (request.get("OutputDataConfig") or {}).get("S3OutputPath", "")
    parts = [output.removeprefix("s3://").strip("/"), request["TrainingJobName"], "model"]
    return "s3://" + "/".join(part for part in parts if part)

"""`sagelaunch import` for TensorFlow requests: what the SDK's TensorFlow estimator injected.

Its distribution flags (`sagemaker_parameter_server_enabled`,
`sagemaker_multi_worker_mirrored_strategy_enabled`) are the strategies' to import
(strategies/tensorflow_flag.py); `model_dir` becomes the config's key only when plan cannot derive
it back: the SDK's default is OUTPUT_PATH/JOB_NAME/model (/opt/ml/model under MPI), where JOB_NAME
is the job plan names it after (the training job's own name, imported as a base that plan
timestamps again or as an exact job_name); a model_dir that names another job (an earlier one,
the estimator's own job in a tuning job named otherwise) is kept as written. A request without one
was planned with `model_dir: false`.
"""

from __future__ import annotations

from typing import Any


def is_tensorflow_image(uri: str) -> bool:
    return "/tensorflow-training" in uri or "/sagemaker-tensorflow" in uri


def tensorflow_settings(
    hps: dict[str, Any], request: dict[str, Any], job_name: str | None
) -> tuple[dict[str, Any], set[str]]:
    """(config keys, the hyperparameters they account for); ``job_name``: the job plan will
    derive the default model_dir from (None: it derives none this request could have)."""
    settings: dict[str, Any] = {}
    model_dir = hps.get("model_dir")
    if model_dir is None:
        settings["model_dir"] = False
    elif model_dir not in _sdk_defaults(hps, request, job_name):
        settings["model_dir"] = model_dir
    return settings, {"model_dir"}


def _sdk_defaults(hps: dict[str, Any], request: dict[str, Any], job_name: str | None) -> set[str]:
    """The estimator's _default_s3_path("model") that plan gives this request."""
    if hps.get("sagemaker_mpi_enabled") is True:
        return {"/opt/ml/model"}
    if job_name is None:
        return set()
    output = (request.get("OutputDataConfig") or {}).get("S3OutputPath", "")
    parts = [output.removeprefix("s3://").strip("/"), job_name, "model"]
    return {"s3://" + "/".join(part for part in parts if part)}

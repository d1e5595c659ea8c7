"""TensorFlow's ``model_dir`` under `local`: a folder of the run, as SDK local mode gives it.

The SDK's TensorFlow estimator passes ``--model_dir`` to the script unless told not to: on AWS
``OUTPUT_PATH/JOB_NAME/model`` in S3 (``/opt/ml/model`` under MPI); in local mode with local code,
``/opt/ml/shared/model`` (sagemaker-python-sdk v2, ``tensorflow/estimator.py``
``_default_s3_path``), inside the folder ``local/image.py`` creates once per job and mounts in
every container at ``/opt/ml/shared``. A local run does the same with the run's ``shared/model``
folder, one for all hosts, so a script that checkpoints to model_dir works instead of failing on an
``s3://`` placeholder. A model_dir the config sets (``model_dir:``, or
``local.hyperparameters.model_dir``: see variant.py) reaches the script unchanged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sagelaunch import hyperparameters as codec
from sagelaunch.config.model import LaunchConfig

HYPERPARAMETER = "model_dir"
SHARED = "shared"  # the run's stand-in for /opt/ml/shared


def folder(workdir: Path) -> Path:
    return workdir / SHARED / "model"


def local_request(request: dict[str, Any], config: LaunchConfig, workdir: Path) -> dict[str, Any]:
    """``request`` with the SDK's default model_dir replaced by the run's shared folder."""
    hyperparameters = request.get("HyperParameters", {})
    if config.framework != "tensorflow" or config.model_dir is not None:
        return request
    if HYPERPARAMETER not in hyperparameters:
        return request
    local = folder(workdir)
    local.mkdir(parents=True, exist_ok=True)
    replaced = {**hyperparameters, HYPERPARAMETER: codec.encode(str(local))}
    return {**request, "HyperParameters": replaced}


def warning(config: LaunchConfig) -> str | None:
    """A model_dir the config sets on S3 is passed as it is (as SDK local mode does): say so."""
    if config.framework != "tensorflow" or not isinstance(config.model_dir, str):
        return None
    if not config.model_dir.startswith("s3://"):
        return None
    return (
        f"model_dir {config.model_dir} is passed to the script as set: it writes there, in S3, "
        "from this machine; set local.hyperparameters.model_dir to a folder to keep it local"
    )

"""The config a local run plans: what AWS needs but a laptop does not, as placeholders.

A local run must work without a role, an output path, a region or S3 inputs, yet its
hyperparameters must be exactly what the SDK would send. So the request is planned from a copy of
the config whose missing AWS settings are placeholders, whose channels point at placeholder S3
prefixes (the data itself comes from channels.sources), and whose hyperparameters have
``local.hyperparameters`` merged over them. Nothing here is ever sent to AWS.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from sagelaunch.config.loader import LoadedConfig
from sagelaunch.config.model import Channel, LaunchConfig

PLACEHOLDER_ROLE = "arn:aws:iam::000000000000:role/sagelaunch-local"
PLACEHOLDER_REGION = "us-east-1"
PLACEHOLDER_BUCKET = "s3://sagelaunch-local"


def local_variant(loaded: LoadedConfig) -> LoadedConfig:
    config = loaded.config
    update = {
        "role": PLACEHOLDER_ROLE,
        "region": config.region or os.environ.get("AWS_REGION") or PLACEHOLDER_REGION,
        "output_path": config.output_path or f"{PLACEHOLDER_BUCKET}/output/",
        "inputs": {name: _plannable(name, ch) for name, ch in config.inputs.items()},
        "hyperparameters": {**config.hyperparameters, **config.local.hyperparameters},
        **_local_model_dir(config),
    }
    return dataclasses.replace(loaded, config=config.model_copy(update=update))


def _local_model_dir(config: LaunchConfig) -> dict[str, Any]:
    """The TensorFlow estimator overwrites a ``model_dir`` hyperparameter with its own argument
    (``hyperparameters()`` adds it last), so ``local.hyperparameters.model_dir`` would never reach
    the script: the estimator is told to pass none (``model_dir=False``) and the hyperparameter,
    merged above, goes as the user wrote it. SDK v3's ModelTrainer sends only the config's
    hyperparameters: no model_dir of the v2 estimator's (its default, nor the config's key)."""
    if config.framework != "tensorflow":
        return {}
    if config.sdk == "v3" or "model_dir" in config.local.hyperparameters:
        return {"model_dir": False}
    return {}


def _plannable(name: str, channel: Channel) -> Channel:
    if channel.uri is not None and not channel.uri.startswith("s3://"):
        return channel.model_copy(update={"uri": f"{PLACEHOLDER_BUCKET}/input/{name}/"})
    return channel

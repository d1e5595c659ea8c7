"""The TensorFlow entry point's hyperparameters: the shared vocabulary plus a few of its own.

Unknown keys are warned about and ignored (SageMaker passes keys for other tools too); bad values
fail before TensorFlow is imported, with a one-line UsageError that becomes the failure file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import shared_hparams as hp
import smenv

# One host's strategies (auto: what the container's environment says, see tf_cluster).
Strategy = Literal["auto", "one_device", "mirrored", "central_storage"]


@dataclass(frozen=True)
class TfConfig:
    """Every hyperparameter of a run, decoded and validated: the one owner of each option's
    default and choices (build_parser makes the options from these fields)."""

    max_steps: int = 0
    epochs: int = 1
    batch_size: int = 32
    lr: float = 0.05
    seed: int = 0
    checkpoint_every: int = 0
    hidden: int = 32
    features: int = 16
    data: Literal["synthetic", "channel"] = "synthetic"
    channel: str = "train"
    num_samples: int = 2048
    log_every: int = 10
    checkpoint_dir: Path = Path("checkpoints")
    keep_checkpoints: int = 2
    model_dir: str | None = None  # the SDK's --model_dir (S3, or /opt/ml/model under MPI)
    strategy: Strategy = "auto"
    loop: Literal["custom", "fit"] = "custom"


HELP = {
    "hidden": "MLP hidden units",
    "features": "synthetic: input features",
    "data": "synthetic data, or CSV files from a channel",
    "channel": "channel of CSV files",
    "num_samples": "synthetic: samples",
    "log_every": "steps between log lines",
    "checkpoint_dir": "where checkpoints go and resume from",
    "keep_checkpoints": "checkpoints kept",
    "model_dir": "set by the SDK (S3 or /opt/ml/model); the SavedModel goes to SM_MODEL_DIR/1",
    "strategy": "one host's tf.distribute strategy (auto: from the environment)",
    "loop": "custom: tf.GradientTape with strategy.run/reduce; fit: Keras fit with "
    "BackupAndRestore under the checkpoint dir",
}


def build_parser(env: smenv.SageMakerEnv) -> smenv.ArgumentParser:
    """The options of TfConfig, with its defaults and choices."""
    # allow_abbrev=False: an unrelated --batch must not silently become --batch_size.
    p = smenv.ArgumentParser(description=__doc__, allow_abbrev=False)
    hp.add_options(p, TfConfig, HELP, defaults={"checkpoint_dir": env.checkpoint_dir})
    return p


def parse_args(argv: Sequence[str], env: smenv.SageMakerEnv) -> TfConfig:
    args, _ = hp.parse_known(build_parser(env), argv)
    positive = ("hidden", "features", "num_samples", "log_every", "keep_checkpoints")
    hp.check_shared(args, at_least_one=positive)
    hp.decode_structured(args, TfConfig, env)  # dict-typed options, should TfConfig gain one
    return TfConfig(**vars(args))

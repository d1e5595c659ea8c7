"""The TensorFlow entry point's hyperparameters: the shared vocabulary plus a few of its own.

Unknown keys are warned about and ignored (SageMaker passes keys for other tools too); bad values
fail before TensorFlow is imported, with a one-line UsageError that becomes the failure file.

``--tf_distribute`` (one host's tf.distribute strategy) was once ``--strategy``, which everywhere
else in sagelaunch means a launch config's ``distribution.strategy``. The old name is still read,
as the new one (with a line on stderr saying so); both with different values is refused.
"""

from __future__ import annotations

import sys
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import shared_hparams as hp
import smenv

# One host's tf.distribute strategies (auto: what the container's environment says, see
# tf_cluster).
TfDistribute = Literal["auto", "one_device", "mirrored", "central_storage"]


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
    tf_distribute: TfDistribute = "auto"
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
    "tf_distribute": "one host's tf.distribute strategy (auto: from the environment)",
    "loop": "custom: tf.GradientTape with strategy.run/reduce; fit: Keras fit with "
    "BackupAndRestore under the checkpoint dir",
}


def build_parser(env: smenv.SageMakerEnv) -> smenv.ArgumentParser:
    """The options of TfConfig, with its defaults and choices."""
    # allow_abbrev=False: an unrelated --batch must not silently become --batch_size.
    p = smenv.ArgumentParser(description=__doc__, allow_abbrev=False)
    # tf_distribute defaults to None here, so that parse_args can tell it given from not given
    # (and compare it with its old name); parse_args makes None the field's default.
    defaults = {"checkpoint_dir": env.checkpoint_dir, "tf_distribute": None}
    hp.add_options(p, TfConfig, HELP, defaults=defaults)
    p.add_argument(
        "--strategy",
        dest="old_strategy",
        type=hp.text,
        choices=typing.get_args(TfDistribute),
        default=None,
        help="the old name of --tf_distribute, read as it",
    )
    return p


def parse_args(argv: Sequence[str], env: smenv.SageMakerEnv) -> TfConfig:
    args, _ = hp.parse_known(build_parser(env), argv)
    args.tf_distribute = _tf_distribute(args.tf_distribute, args.old_strategy)
    del args.old_strategy
    positive = ("hidden", "features", "num_samples", "log_every", "keep_checkpoints")
    hp.check_shared(args, at_least_one=positive)
    hp.decode_structured(args, TfConfig, env)  # dict-typed options, should TfConfig gain one
    return TfConfig(**vars(args))


def _tf_distribute(new: str | None, old: str | None) -> str:
    """--tf_distribute, or its old name --strategy read as it (saying so on stderr); the field's
    default when neither is given. Both with different values is refused, naming both."""
    if old is None:
        return TfConfig.tf_distribute if new is None else new
    if new is not None and new != old:
        raise smenv.UsageError(
            f"--strategy {old} and --tf_distribute {new} disagree: --strategy is the old name "
            "of --tf_distribute; give only --tf_distribute"
        )
    print(
        f"warning: --strategy is the old name of --tf_distribute: read as --tf_distribute {old}",
        file=sys.stderr,
    )
    return old

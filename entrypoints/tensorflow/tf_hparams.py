"""The TensorFlow entry point's hyperparameters: the shared vocabulary plus a few of its own.

Unknown keys are warned about and ignored (SageMaker passes keys for other tools too); bad values
fail before TensorFlow is imported, with a one-line UsageError that becomes the failure file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import shared_hparams as hp
import smenv

DATA_KINDS = ("synthetic", "channel")
# One host's strategies (auto: what the container's environment says, see tf_cluster).
STRATEGIES = ("auto", "one_device", "mirrored", "central_storage")
LOOPS = ("custom", "fit")


@dataclass(frozen=True)
class TfConfig:
    """Every hyperparameter of a run, decoded and validated."""

    max_steps: int = 0
    epochs: int = 1
    batch_size: int = 32
    lr: float = 0.05
    seed: int = 0
    checkpoint_every: int = 0
    hidden: int = 32
    features: int = 16
    data: str = "synthetic"
    channel: str = "train"
    num_samples: int = 2048
    log_every: int = 10
    checkpoint_dir: Path = Path("checkpoints")
    keep_checkpoints: int = 2
    model_dir: str | None = None  # the SDK's --model_dir (S3, or /opt/ml/model under MPI)
    strategy: str = "auto"
    loop: str = "custom"


def build_parser(env: smenv.SageMakerEnv) -> smenv.ArgumentParser:
    # allow_abbrev=False: an unrelated --batch must not silently become --batch_size.
    p = smenv.ArgumentParser(description=__doc__, allow_abbrev=False)
    hp.add_shared(p, batch_size=32, lr=0.05)
    p.add_argument("--hidden", type=hp.integer, default=32, help="MLP hidden units")
    p.add_argument("--features", type=hp.integer, default=16, help="synthetic: input features")
    p.add_argument("--data", type=hp.text, default="synthetic", choices=DATA_KINDS)
    p.add_argument("--channel", type=hp.text, default="train", help="channel of CSV files")
    p.add_argument("--num_samples", type=hp.integer, default=2048, help="synthetic: samples")
    p.add_argument("--log_every", type=hp.integer, default=10, help="steps between log lines")
    p.add_argument("--checkpoint_dir", type=hp.path, default=env.checkpoint_dir)
    p.add_argument("--keep_checkpoints", type=hp.integer, default=2, help="checkpoints kept")
    p.add_argument(
        "--model_dir",
        type=hp.text,
        default=None,
        help="set by the SDK (S3 or /opt/ml/model); the SavedModel goes to SM_MODEL_DIR/1",
    )
    p.add_argument(
        "--strategy",
        type=hp.text,
        default="auto",
        choices=STRATEGIES,
        help="one host's tf.distribute strategy (auto: from the environment)",
    )
    p.add_argument(
        "--loop",
        type=hp.text,
        default="custom",
        choices=LOOPS,
        help="custom: tf.GradientTape with strategy.run/reduce; fit: Keras fit with "
        "BackupAndRestore under the checkpoint dir",
    )
    return p


def parse_args(argv: Sequence[str], env: smenv.SageMakerEnv) -> TfConfig:
    args, _ = hp.parse_known(build_parser(env), argv)
    hp.check_shared(args)
    for name in ("hidden", "features", "num_samples", "log_every", "keep_checkpoints"):
        if getattr(args, name) < 1:
            raise smenv.UsageError(f"--{name} must be at least 1, got {getattr(args, name)}")
    return TfConfig(**vars(args))

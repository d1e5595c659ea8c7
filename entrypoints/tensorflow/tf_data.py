"""Training data for the TensorFlow entry point: a synthetic regression, or a channel of CSV files.

CSV rows are ``feature,...,feature,label`` (no header); every ``*.csv`` file of the channel is read,
in name order, so a sharded channel gives each host its own rows. Batches are drawn from a
per-epoch permutation seeded by ``--seed`` and the epoch, so every replica of every host computes
the same global batch and takes its own slice of it, and a resumed run sees the same batches.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

import smenv
from tf_hparams import TfConfig


@dataclass(frozen=True)
class Dataset:
    x: np.ndarray  # float32 [samples, features]
    y: np.ndarray  # float32 [samples, 1]

    @property
    def features(self) -> int:
        return int(self.x.shape[1])

    def steps_per_epoch(self, global_batch: int) -> int:
        return max(len(self.x) // global_batch, 1)

    def global_batch(self, step: int, global_batch: int, seed: int) -> tuple[np.ndarray, ...]:
        """The samples of optimizer step ``step`` (0-based), the same on every process."""
        per_epoch = self.steps_per_epoch(global_batch)
        epoch, offset = divmod(step, per_epoch)
        order = np.random.default_rng([seed, epoch]).permutation(len(self.x))
        index = np.resize(order[offset * global_batch :], global_batch)  # wraps a short dataset
        return self.x[index], self.y[index]


def load(cfg: TfConfig, env: smenv.SageMakerEnv) -> Dataset:
    if cfg.data == "channel":
        return _csv_channel(env, cfg.channel)
    return synthetic(cfg.num_samples, cfg.features, cfg.seed)


def synthetic(samples: int, features: int, seed: int) -> Dataset:
    """y = x·w + small noise: a fit whose loss falls quickly and visibly."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((samples, features)).astype(np.float32)
    w = rng.standard_normal((features, 1)).astype(np.float32)
    y = x @ w + 0.01 * rng.standard_normal((samples, 1)).astype(np.float32)
    return Dataset(x, y.astype(np.float32))


def _csv_channel(env: smenv.SageMakerEnv, name: str) -> Dataset:
    folder = env.channel(name)
    if folder is None:
        raise smenv.UsageError(f"--data channel: no channel {name!r} (SM_CHANNEL_{name.upper()})")
    files = sorted(Path(folder).rglob("*.csv"))
    if not files:
        raise smenv.UsageError(f"channel {name!r} ({folder}) has no *.csv files")
    rows = np.concatenate([np.loadtxt(f, delimiter=",", ndmin=2) for f in files])
    if rows.shape[1] < 2:
        raise smenv.UsageError("CSV rows need at least one feature and a label (last column)")
    return Dataset(rows[:, :-1].astype(np.float32), rows[:, -1:].astype(np.float32))

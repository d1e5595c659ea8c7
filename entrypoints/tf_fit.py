"""``--loop fit``: the same training as tf_train's GradientTape loop, through Keras ``fit``.

Same model, optimizer, loss and batches (tf_data's global batch of each step, in order), so the
per-step losses equal the custom loop's. Preemption is handled by Keras' BackupAndRestore under
``<checkpoint_dir>/backup``: a Keras epoch here is ``--checkpoint_every`` steps and the callback
backs up weights and optimizer at the end of each; a restarted worker restores the newest backup
and continues with the step after it (the data start there too), so a SIGKILL mid-run loses at
most the steps since the last backup.
"""

from __future__ import annotations

import json
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

import smenv
import tf_data
import tf_train
from tf_hparams import TfConfig


class StepLog(keras.callbacks.Callback):
    """Each step's own loss (Keras' ``loss`` log is a running mean: reset before every batch)."""

    def __init__(self, progress: tf_train.Progress, every: int, log_every: int) -> None:
        super().__init__()
        self.progress, self.every, self.log_every = progress, every, log_every
        self.epoch = 0

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        self.epoch = epoch

    def on_train_batch_begin(self, batch: int, logs: dict | None = None) -> None:
        self.model.reset_metrics()

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        step = self.epoch * self.every + batch + 1
        due = step == self.progress.total_steps or step % self.log_every == 0
        self.progress.report(step, float((logs or {})["loss"]), due)


def backed_up_epoch(backup_dir: Path) -> int:
    """The epoch BackupAndRestore will resume at (0: no backup yet)."""
    metadata = backup_dir / "training_metadata.json"
    if not metadata.is_file():
        return 0
    return int(json.loads(metadata.read_text())["epoch"])


def train_fit(
    strategy: tf.distribute.Strategy,
    cfg: TfConfig,
    data: tf_data.Dataset,
    progress: tf_train.Progress,
) -> keras.Model:
    total, every = progress.total_steps, cfg.checkpoint_every or progress.total_steps
    if total % every:
        raise smenv.UsageError(
            f"--loop fit backs up every --checkpoint_every {every} steps, one Keras epoch each; "
            f"pick a value that divides the {total} steps"
        )
    with strategy.scope():
        model = tf_train.build_model(data.features, cfg.hidden, cfg.seed)
        # jit_compile off: XLA would fuse the ops differently from the custom loop's graph.
        model.compile(optimizer=keras.optimizers.SGD(cfg.lr), loss="mse", jit_compile=False)
    backup_dir = cfg.checkpoint_dir / "backup"
    start_epoch = backed_up_epoch(backup_dir)
    progress.start_step = start_epoch * every
    if progress.start_step and progress.chief:
        print(f"resumed from step {progress.start_step} (BackupAndRestore, {backup_dir})")
    backup = keras.callbacks.BackupAndRestore(str(backup_dir), delete_checkpoint=False)
    model.fit(
        _batches(data, cfg, progress),
        epochs=total // every,
        steps_per_epoch=every,
        callbacks=[backup, StepLog(progress, every, cfg.log_every)],
        verbose=0,
        shuffle=False,
    )
    return model


def _batches(data: tf_data.Dataset, cfg: TfConfig, progress: tf_train.Progress) -> tf.data.Dataset:
    """Steps start+1 .. total, each the custom loop's global batch, in order."""
    steps = range(progress.start_step, progress.total_steps)
    pairs = [data.global_batch(step, progress.global_batch, cfg.seed) for step in steps]
    x = np.concatenate([p[0] for p in pairs]) if pairs else data.x[:0]
    y = np.concatenate([p[1] for p in pairs]) if pairs else data.y[:0]
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(progress.global_batch)

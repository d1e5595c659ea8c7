"""``--loop fit``: the same training as tf_train's GradientTape loop, through Keras ``fit``.

Same model, optimizer, loss and batches (tf_data's global batch of each step, in order), so the
per-step losses equal the custom loop's. Preemption is handled by Keras' BackupAndRestore under
``<checkpoint_dir>/backup``, so a SIGKILLed worker resumes mid-epoch, at the step after its last
backup, with the batches an uninterrupted run would have seen from there.

Why a Keras epoch is ``--checkpoint_every`` steps here rather than ``save_freq=N`` batches:
Keras 3's BackupAndRestore with an integer ``save_freq`` records the batch but restores only the
epoch (``_load_model`` reads ``metadata["epoch"]``), so a restart replays the interrupted epoch
from its first batch on weights that have already trained on part of it. Backing up at the end of
each short Keras epoch makes every backup an exact resume point; tf_data's epochs (the passes over
the data that ``--epochs`` counts) are independent of these, so the resume point falls anywhere
inside a data epoch.

Two changes to the callback make a SIGKILL at any moment safe (Backup): each file is written aside
and renamed into place (Keras writes ``latest.weights.h5`` in place: a kill mid-write would leave a
file no restart can load), and the step to resume at is the optimizer's step count saved in the
weights, not the epoch in ``training_metadata.json`` (a kill between Keras' two writes leaves that
a backup behind the weights). The backup is kept after a successful finish
(``delete_checkpoint=False``), as the custom loop keeps its checkpoints: a finished job that is
run again resumes at its last step instead of training from scratch, and a larger ``--max_steps``
continues it.
"""

from __future__ import annotations

import json
import os
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


class Backup(keras.callbacks.BackupAndRestore):
    """BackupAndRestore whose files are each replaced whole (a rename is atomic), so a SIGKILL
    during a backup leaves the previous one intact. (Overrides Keras' private ``_save_model``:
    keras is pinned in cli/constraints.txt, and test_train_tensorflow_strategies.py cuts a backup
    short to check that the override still takes effect.)"""

    def _save_model(self) -> None:
        folder = Path(self.backup_dir)
        folder.mkdir(parents=True, exist_ok=True)
        aside = folder / WRITING  # Keras wants the .weights.h5 suffix
        self.model.save_weights(str(aside), overwrite=True)
        os.replace(aside, self._weights_path)
        _write_metadata(folder, self._current_epoch, self._last_batch_seen)


WEIGHTS, METADATA, WRITING = "latest.weights.h5", "training_metadata.json", "writing.weights.h5"


def _write_metadata(folder: Path, epoch: int, batch: int = 0) -> None:
    aside = folder / f"{METADATA}.writing"
    aside.write_text(json.dumps({"epoch": epoch, "batch": batch}))
    os.replace(aside, folder / METADATA)


def resume_step(model: keras.Model, backup_dir: Path, every: int) -> int:
    """The step of the backup (0: none), restored into ``model``; the metadata is made to agree
    with the weights, which BackupAndRestore then restores again at the start of ``fit``."""
    weights = backup_dir / WEIGHTS
    if not weights.is_file():
        (backup_dir / METADATA).unlink(missing_ok=True)  # never without its weights, but be sure
        return 0
    model.optimizer.build(model.trainable_variables)  # its variables exist before they load
    model.load_weights(str(weights))
    step = int(model.optimizer.iterations.numpy())
    if step % every:
        raise smenv.UsageError(
            f"the backup in {backup_dir} is at step {step}, which --checkpoint_every {every} "
            "does not divide: resume with the --checkpoint_every it was made with"
        )
    _write_metadata(backup_dir, step // every)
    return step


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
    backup_dir = cfg.checkpoint_dir / "backup"
    with strategy.scope():
        model = tf_train.build_model(data.features, cfg.hidden, cfg.seed)
        # jit_compile off: XLA would fuse the ops differently from the custom loop's graph.
        model.compile(optimizer=keras.optimizers.SGD(cfg.lr), loss="mse", jit_compile=False)
        progress.start_step = resume_step(model, backup_dir, every)
    if progress.start_step > total:
        raise smenv.UsageError(
            f"the backup in {backup_dir} is at step {progress.start_step}, past this run's "
            f"{total} steps: raise --max_steps or --epochs, or start afresh"
        )
    if progress.start_step and progress.chief:
        print(
            f"resumed from step {progress.start_step} (BackupAndRestore, {backup_dir})", flush=True
        )
    if progress.start_step == total:  # finished before: fit would find no batches to start on
        return model
    backup = Backup(str(backup_dir), delete_checkpoint=False)
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

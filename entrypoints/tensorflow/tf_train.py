"""The Keras model, its checkpoints and the three training loops (synchronous, parameter servers,
Horovod-style collectives), each printing ``step=N train_loss=X samples_per_sec=Y``."""

from __future__ import annotations

import shutil
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

import smenv
import tf_data
from tf_hparams import TfConfig


def build_model(features: int, hidden: int, seed: int) -> keras.Model:
    keras.utils.set_random_seed(seed)
    return keras.Sequential(
        [
            keras.Input((features,)),
            keras.layers.Dense(hidden, activation="relu"),
            keras.layers.Dense(1),
        ]
    )


@dataclass
class Progress:
    """What the run did, for the log and metrics.json."""

    total_steps: int
    global_batch: int
    chief: bool = True  # only the chief prints
    start_step: int = 0
    losses: dict[int, float] = field(default_factory=dict)
    _since: float = field(default_factory=time.monotonic)
    _since_step: int = 0

    def report(self, step: int, loss: float, log: bool) -> None:
        self.losses[step] = loss
        if not (log and self.chief):
            return
        elapsed = max(time.monotonic() - self._since, 1e-9)
        # Counted from the resume point: the steps before it were not run by this process.
        rate = (step - max(self._since_step, self.start_step)) * self.global_batch / elapsed
        print(f"step={step} train_loss={loss:.6f} samples_per_sec={rate:.1f}", flush=True)
        self._since, self._since_step = time.monotonic(), step


# Where a parameter-server job's checkpoints are read and written: the chief's own disk.
CHIEF_CPU = "/job:chief/replica:0/task:0/device:CPU:0"


class Checkpoints:
    """tf.train.CheckpointManager under the checkpoint dir (SageMaker syncs it to S3, and every
    host starts with its contents). Workers that are not the chief write to a scratch dir of
    their own, removed after each save (MWMS saves are collective: every worker saves, one copy
    is kept); every worker restores the chief's newest checkpoint.

    ``io_device``: the one device that reads and writes the files. Under ParameterServerStrategy
    the variables live on the parameter servers, and by default each server writes its shard to
    the checkpoint dir of its own host and one of them merges the shards: on separate instances
    (each with its own /opt/ml/checkpoints) the merge finds the other hosts' shards missing
    ("part-00000-of-00003 did not exist"). With the chief's CPU every shard goes through the
    chief, into the chief's checkpoint dir."""

    def __init__(
        self,
        state: tf.train.Checkpoint,
        root: Path,
        keep: int,
        chief: bool,
        tag: str,
        io_device: str | None = None,
    ):
        self.root, self.scratch = root, None if chief else root / f".{tag}"
        self.manager = tf.train.CheckpointManager(state, str(self.scratch or root), keep)
        self.state, self.chief = state, chief
        self.options = tf.train.CheckpointOptions(experimental_io_device=io_device)

    def restore(self) -> int:
        """The step of the newest checkpoint restored (0: none)."""
        newest = tf.train.latest_checkpoint(str(self.root))
        if not newest:
            return 0
        self.state.restore(newest, options=self.options)
        step = int(self.state.step.numpy())
        if self.chief:
            print(f"resumed from step {step} ({newest})", flush=True)
        return step

    def save(self, step: int) -> None:
        self.state.step.assign(step)
        self.manager.save(checkpoint_number=step, options=self.options)
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)


def _due(step: int, every: int, total: int) -> bool:
    return step == total or (every > 0 and step % every == 0)


def _replica_loss(model: keras.Model, x: tf.Tensor, y: tf.Tensor, global_batch: int) -> tf.Tensor:
    per_example = tf.reduce_mean(tf.square(model(x, training=True) - y), axis=-1)
    return tf.nn.compute_average_loss(per_example, global_batch_size=global_batch)


def train_synchronous(
    strategy: tf.distribute.Strategy,
    cfg: TfConfig,
    data: tf_data.Dataset,
    ckpt: Callable[[tf.train.Checkpoint], Checkpoints],
    progress: Progress,
) -> keras.Model:
    """One replica per device of every host; Keras' optimizer sums the gradients across them."""
    replicas = strategy.num_replicas_in_sync
    model, optimizer, checkpoints = _restored(strategy, cfg, data, ckpt, progress)
    if replicas > 1:
        _check_same_start(strategy, progress.start_step)

    @tf.function
    def train_step(x: tf.distribute.DistributedValues, y: tf.distribute.DistributedValues):
        def replica_step(xs: tf.Tensor, ys: tf.Tensor) -> tf.Tensor:
            with tf.GradientTape() as tape:
                loss = _replica_loss(model, xs, ys, progress.global_batch)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
            return loss

        losses = strategy.run(replica_step, args=(x, y))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)

    for step in range(progress.start_step + 1, progress.total_steps + 1):
        x, y = data.global_batch(step - 1, progress.global_batch, cfg.seed)
        loss = train_step(_split(strategy, x, replicas), _split(strategy, y, replicas))
        progress.report(step, float(loss), _due(step, cfg.log_every, progress.total_steps))
        if cfg.checkpoint_every and step % cfg.checkpoint_every == 0:
            checkpoints.save(step)
    return model


def _restored(
    strategy: tf.distribute.Strategy,
    cfg: TfConfig,
    data: tf_data.Dataset,
    ckpt: Callable[[tf.train.Checkpoint], Checkpoints],
    progress: Progress,
) -> tuple[keras.Model, keras.optimizers.Optimizer, Checkpoints]:
    """The model and optimizer under ``strategy``, restored from the newest checkpoint (the step
    to resume after goes to ``progress.start_step``)."""
    with strategy.scope():
        model = build_model(data.features, cfg.hidden, cfg.seed)
        optimizer = keras.optimizers.SGD(cfg.lr)
        optimizer.build(model.trainable_variables)
        step_var = tf.Variable(0, dtype=tf.int64, trainable=False)
    checkpoints = ckpt(tf.train.Checkpoint(model=model, optimizer=optimizer, step=step_var))
    progress.start_step = checkpoints.restore()
    return model, optimizer, checkpoints


def _check_same_start(strategy: tf.distribute.Strategy, start: int) -> None:
    """Every replica must resume from the same step, or the all-reduces would pair different
    steps (or wait forever). Equal iff n·Σs² = (Σs)², which every worker computes alike."""
    n = strategy.num_replicas_in_sync
    values = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.constant([start, start * start], tf.float64)
    )
    total, squares = strategy.reduce(tf.distribute.ReduceOp.SUM, values, axis=None).numpy()
    if n * squares != total * total:
        raise smenv.UsageError(
            f"the workers found different checkpoints (this one: step {start}); every host needs "
            "the chief's checkpoint dir, as SageMaker's checkpoint_s3_uri sync provides: give "
            "the hosts one --checkpoint_dir, or start afresh"
        )


def _split(strategy: tf.distribute.Strategy, batch: np.ndarray, replicas: int):
    """Each replica's slice of the global batch (replica ids are global across hosts)."""
    per_replica = len(batch) // replicas
    return strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.constant(batch[ctx.replica_id_in_sync_group * per_replica :][:per_replica])
    )


def train_parameter_servers(
    strategy: tf.distribute.Strategy,
    coordinator: object,
    cfg: TfConfig,
    data: tf_data.Dataset,
    ckpt: Callable[[tf.train.Checkpoint], Checkpoints],
    progress: Progress,
) -> keras.Model:
    """The chief schedules steps on the workers (asynchronously); variables live on the ps."""
    model, optimizer, checkpoints = _restored(strategy, cfg, data, ckpt, progress)
    x, y, batch = data.x, data.y, cfg.batch_size

    def dataset() -> tf.data.Dataset:
        return tf.data.Dataset.from_tensor_slices((x, y)).shuffle(len(x)).repeat().batch(batch)

    iterator = iter(coordinator.create_per_worker_dataset(dataset))  # type: ignore[attr-defined]

    @tf.function
    def worker_step(batches: object) -> tf.Tensor:
        def replica_step(xs: tf.Tensor, ys: tf.Tensor) -> tf.Tensor:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(xs, training=True) - ys))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
            return loss

        xs, ys = next(batches)  # type: ignore[call-overload]
        return strategy.run(replica_step, args=(xs, ys))

    for step in range(progress.start_step + 1, progress.total_steps + 1):
        result = coordinator.schedule(worker_step, args=(iterator,))  # type: ignore[attr-defined]
        log = _due(step, cfg.log_every, progress.total_steps)
        save = cfg.checkpoint_every and step % cfg.checkpoint_every == 0
        if log or save:
            coordinator.join()  # type: ignore[attr-defined]
            progress.report(step, float(result.fetch()), log)
        if save:
            checkpoints.save(step)
    return model


def train_collective(
    library: types.ModuleType,
    cfg: TfConfig,
    data: tf_data.Dataset,
    ckpt: Callable[[tf.train.Checkpoint], Checkpoints],
    progress: Progress,
) -> keras.Model:
    """Horovod (under mpirun) or SMDDP: one process per GPU, gradients averaged by the library."""
    rank, size = library.rank(), library.size()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[library.local_rank()], "GPU")
    model = build_model(data.features, cfg.hidden, cfg.seed)
    optimizer = keras.optimizers.SGD(cfg.lr * size)
    optimizer.build(model.trainable_variables)
    checkpoints = ckpt(tf.train.Checkpoint(model=model, optimizer=optimizer, step=tf.Variable(0)))
    progress.start_step = checkpoints.restore()

    @tf.function
    def train_step(xs: tf.Tensor, ys: tf.Tensor, first: bool) -> tf.Tensor:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(xs, training=True) - ys))
        tape = library.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        if first:  # everyone starts from rank 0's weights (restored or fresh)
            library.broadcast_variables(model.variables, root_rank=0)
            library.broadcast_variables(optimizer.variables, root_rank=0)
        return library.allreduce(loss)

    for step in range(progress.start_step + 1, progress.total_steps + 1):
        x, y = data.global_batch(step - 1, progress.global_batch, cfg.seed)
        mine = slice(rank * cfg.batch_size, (rank + 1) * cfg.batch_size)
        loss = train_step(x[mine], y[mine], step == progress.start_step + 1)
        progress.report(step, float(loss), _due(step, cfg.log_every, progress.total_steps))
        if cfg.checkpoint_every and step % cfg.checkpoint_every == 0:
            checkpoints.save(step)
    return model


def save_model(model: keras.Model, cfg: TfConfig, features: int, model_dir: Path) -> Path:
    """A SavedModel under model_dir/1 (TensorFlow Serving's numbered version folder), exported
    from a plain copy of the weights, so that no strategy's variables end up in the graph."""
    plain = build_model(features, cfg.hidden, cfg.seed)
    plain.set_weights(model.get_weights())
    serving = tf.Module()
    serving.model = plain
    serving.serve = tf.function(
        lambda x: {"prediction": plain(x)},
        input_signature=[tf.TensorSpec([None, features], tf.float32, name="x")],
    )
    target = model_dir / "1"
    tf.saved_model.save(serving, str(target), signatures={"serving_default": serving.serve})
    return target

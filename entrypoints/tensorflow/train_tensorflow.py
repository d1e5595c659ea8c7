"""Train a small Keras MLP with the distribution the SageMaker TensorFlow container sets up.

The strategy comes from the environment alone (tf_cluster explains the mapping): TF_CONFIG with
parameter servers -> ParameterServerStrategy (SageMaker's ``master`` is TF2's ``chief``),
TF_CONFIG with workers only -> MultiWorkerMirroredStrategy, ``sagemaker_mpi_enabled`` -> Horovod
(under the container's mpirun), SMDDP's TensorFlow API, else MirroredStrategy on one host
(OneDeviceStrategy on a CPU). The data are a synthetic regression or a channel of CSV files.

The chief prints ``step=N train_loss=X samples_per_sec=Y`` lines (the default metric definitions
match them), checkpoints to the checkpoint dir with tf.train.CheckpointManager and resumes from
the newest one, writes ``metrics.json`` to SM_OUTPUT_DATA_DIR and a SavedModel to
``SM_MODEL_DIR/1``. Errors go to the ``failure`` file, as SageMaker shows them.

Hyperparameters (shared by every entry point): --max_steps --epochs --batch_size --lr --seed
--checkpoint_every; and --hidden --features --data --channel --num_samples --log_every
--checkpoint_dir --keep_checkpoints --tf_distribute (one host's strategy, once --strategy, a name
still read) --loop. Unknown keys warn; bad values fail before any work.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import shared_outputs
import smenv
import tf_cluster
import tf_hparams

if TYPE_CHECKING:  # TensorFlow loads only after the hyperparameters are checked
    import types

    import keras

    import tf_data
    import tf_train

# TensorFlow's C++ start-up chatter would bury the metric lines; errors still show.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def main(argv: Sequence[str]) -> int:
    env = smenv.current()
    cfg = tf_hparams.parse_args(argv, env)  # before TensorFlow loads: bad values fail fast
    who = tf_cluster.role(env.environ, env.framework_params, env.num_gpus)
    import tf_data
    import tf_strategy
    import tf_train

    if who.kind == tf_cluster.PS_WORKER:
        tf_strategy.serve_as_worker(who)
        return 0
    data = tf_data.load(cfg, env)
    library = None
    if who.kind in (tf_cluster.HOROVOD, tf_cluster.SMDDP):
        library = tf_strategy.collective_library(who.kind)
        library.init()
    chief = library.rank() == 0 if library else who.is_chief
    model, progress = _train(who, cfg, data, library, chief)
    if chief:
        saved = tf_train.save_model(model, cfg, data.features, env.model_dir)
        _write_metrics(env, who, cfg, progress, str(saved))
        print(f"saved the model to {saved}", flush=True)
    return 0


def _train(
    who: tf_cluster.Role,
    cfg: tf_hparams.TfConfig,
    data: tf_data.Dataset,
    library: types.ModuleType | None,
    chief: bool,
) -> tuple[keras.Model, tf_train.Progress]:
    """The loop for this role: parameter servers, a Horovod-style library, or synchronous."""
    import tf_strategy
    import tf_train

    if cfg.loop == "fit" and who.kind not in (tf_cluster.MIRRORED, tf_cluster.ONE_DEVICE):
        raise smenv.UsageError(
            f"--loop fit runs on one host; this job's distribution is {who.kind}: use --loop custom"
        )

    def checkpoints(state: tf_train.tf.train.Checkpoint) -> tf_train.Checkpoints:
        tag = f"worker-{who.task_index}" if library is None else f"rank-{library.rank()}"
        io_device = tf_train.CHIEF_CPU if who.kind == tf_cluster.PS_CHIEF else None
        return tf_train.Checkpoints(
            state, cfg.checkpoint_dir, cfg.keep_checkpoints, chief, tag, io_device
        )

    if who.kind == tf_cluster.PS_CHIEF:
        strategy, coordinator = tf_strategy.parameter_server(who)
        workers = len((who.cluster or {}).get("worker", []))
        # Each scheduled step is one batch on whichever worker is free (asynchronous training).
        progress = _progress(cfg, data, cfg.batch_size, chief)
        _announce(who, f"ParameterServerStrategy: {workers} worker(s)", progress)
        model = tf_train.train_parameter_servers(
            strategy, coordinator, cfg, data, checkpoints, progress
        )
    elif library is not None:
        progress = _progress(cfg, data, cfg.batch_size * library.size(), chief)
        _announce(who, f"{who.kind}: {library.size()} processes", progress)
        model = tf_train.train_collective(library, cfg, data, checkpoints, progress)
    else:
        strategy = tf_strategy.synchronous(who, cfg.tf_distribute)
        replicas = strategy.num_replicas_in_sync
        progress = _progress(cfg, data, cfg.batch_size * replicas, chief)
        loop = ", Keras fit" if cfg.loop == "fit" else ""
        _announce(who, f"{type(strategy).__name__}: {replicas} replica(s){loop}", progress)
        if cfg.loop == "fit":
            import tf_fit

            model = tf_fit.train_fit(strategy, cfg, data, progress)
        else:
            model = tf_train.train_synchronous(strategy, cfg, data, checkpoints, progress)
    return model, progress


def _progress(
    cfg: tf_hparams.TfConfig, data: tf_data.Dataset, global_batch: int, chief: bool
) -> tf_train.Progress:
    import tf_train

    steps = cfg.max_steps or cfg.epochs * data.steps_per_epoch(global_batch)
    return tf_train.Progress(total_steps=steps, global_batch=global_batch, chief=chief)


def _announce(who: tf_cluster.Role, what: str, progress: tf_train.Progress) -> None:
    if not progress.chief:
        return
    renamed = ", ".join(f"SageMaker's {a} is TF2's {b}" for a, b in who.sagemaker_roles.items())
    steps = f"{progress.total_steps} steps of {progress.global_batch} samples"
    print(f"{what}; {steps}" + (f" ({renamed})" if renamed else ""), flush=True)


def _write_metrics(
    env: smenv.SageMakerEnv,
    who: tf_cluster.Role,
    cfg: tf_hparams.TfConfig,
    progress: tf_train.Progress,
    saved: str,
) -> None:
    metrics = {
        "strategy": who.kind if cfg.tf_distribute == "auto" else cfg.tf_distribute,
        "loop": cfg.loop,
        "steps": progress.total_steps,
        "global_batch": progress.global_batch,
        "resumed_from_step": progress.start_step,
        "losses": {str(step): loss for step, loss in sorted(progress.losses.items())},
        "saved_model": saved,
    }
    shared_outputs.write_metrics(env.output_data_dir, metrics)


if __name__ == "__main__":
    sys.exit(smenv.run(main))

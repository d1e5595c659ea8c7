"""TensorFlow rules: which strategies its container runs, and on which versions and instances."""

from __future__ import annotations

from collections.abc import Iterator

from sagelaunch.catalog import sdk_data
from sagelaunch.catalog.versions import numbers, version_of
from sagelaunch.checks.rules.registry import error, rule
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.config.model import LaunchConfig
from sagelaunch.errors import Problem
from sagelaunch.strategies import registry
from sagelaunch.strategies.base import offered


def _is_tensorflow(config: LaunchConfig) -> bool:
    return config.framework == "tensorflow"


def _runs(framework: str) -> list[str]:
    """The strategies this framework's container runs: the default, then its own, then shared."""
    runs = [s for s in registry.strategies() if framework in s.frameworks]
    return [
        s.name for s in sorted(runs, key=lambda s: (s.name != registry.DEFAULT, len(s.frameworks)))
    ]


@rule
def tensorflow_strategy(loaded: LoadedConfig) -> Iterator[Problem]:
    """The TensorFlow container runs parameter servers, MWMS, mpirun (SMP v1's launcher too: the
    SDK's TensorFlow estimator takes smdistributed.modelparallel with mpi) or SMDDP (its
    training.py); torchrun is PyTorch's (SMP v2 too: strategies/smp.py). The PyTorch container
    has no runner for parameter_server or multi_worker_mirrored (the SDK's flags would be ignored
    and every host train alone)."""
    config = loaded.config
    strategy = config.distribution.strategy
    runs = registry.of(config).frameworks
    if _is_tensorflow(config) and "tensorflow" not in runs:
        yield error(
            loaded,
            ("distribution", "strategy"),
            f"the TensorFlow container runs {offered(_runs('tensorflow'))}, not {strategy}",
        )
    if config.framework == "pytorch" and runs == {"tensorflow"}:
        yield error(
            loaded,
            ("distribution", "strategy"),
            f"{strategy} is a TensorFlow strategy: the PyTorch container ignores it; "
            "use torchrun for PyTorch data parallelism",
        )


@rule
def horovod_needs_mpi(loaded: LoadedConfig) -> Iterator[Problem]:
    """Horovod runs under mpirun, which the container starts for the script only with a strategy
    that runs Horovod (Strategy.runs_horovod: mpi, sagemaker_mpi_enabled); the entry point's
    --horovod fails anywhere else."""
    config = loaded.config
    wanted = config.hyperparameters.get("horovod")
    if wanted not in (None, False, "false", "False", 0) and not registry.of(config).runs_horovod:
        yield error(
            loaded,
            ("hyperparameters", "horovod"),
            "Horovod runs under mpirun, which the container starts only with "
            "distribution.strategy: mpi; set it (processes_per_host = GPUs per host)",
        )


@rule
def tensorflow_script_mode(loaded: LoadedConfig) -> Iterator[Problem]:
    """The SDK v2 runs script mode only: for TensorFlow up to its _HIGHEST_LEGACY_MODE_ONLY_VERSION
    (1.10) the estimator raises unless image_uri is given (and legacy mode is gone)."""
    config = loaded.config
    version = version_of(config)
    if not _is_tensorflow(config) or version is None or config.image_uri:
        return
    highest = sdk_data.version_constant(
        "tensorflow/estimator.py", "_HIGHEST_LEGACY_MODE_ONLY_VERSION"
    )
    if version <= numbers(highest):
        yield error(
            loaded,
            ("framework_version",),
            f"TensorFlow {config.framework_version} images run only the legacy (framework) mode "
            f"that SDK v2 dropped; script mode needs TensorFlow above {highest} (e.g. 1.11)",
        )


@rule
def model_dir_for_tensorflow(loaded: LoadedConfig) -> Iterator[Problem]:
    """model_dir is an argument of the SDK's TensorFlow estimator only."""
    config = loaded.config
    if config.model_dir is not None and not _is_tensorflow(config):
        yield error(
            loaded,
            ("model_dir",),
            f"model_dir applies to framework tensorflow, not {config.framework}; "
            "read SM_MODEL_DIR in the script instead",
        )


_TPU_NAMES = ("tpu", "tpustrategy", "tpu_strategy")
_ONE_HOST_STRATEGIES = ("one_device", "mirrored", "central_storage")
# The TF entry point's one-host tf.distribute strategy, then its old name (still read as it).
_TF_DISTRIBUTE_NAMES = ("tf_distribute", "strategy")


def _tf_distribute_hyperparameter(config: LaunchConfig) -> tuple[str, str]:
    """The hyperparameter that names a tf.distribute strategy (tf_distribute, else its old name
    strategy) and its value, lower-cased; ("tf_distribute", "") when neither is set."""
    hyperparameters = config.hyperparameters or {}
    for key in _TF_DISTRIBUTE_NAMES:
        if key in hyperparameters:
            return key, str(hyperparameters[key]).strip('"').lower()
    return _TF_DISTRIBUTE_NAMES[0], ""


@rule
def tensorflow_tpu_strategy(loaded: LoadedConfig) -> Iterator[Problem]:
    """TPUStrategy needs Cloud TPUs; SageMaker's training instance types (ml.*) have GPUs,
    Trainium or CPUs and no TPU, so a script that builds a TPUStrategy fails at start."""
    config = loaded.config
    key, name = _tf_distribute_hyperparameter(config)
    if _is_tensorflow(config) and name in _TPU_NAMES:
        yield error(
            loaded,
            ("hyperparameters", key),
            "SageMaker has no TPU instances (TPUStrategy runs on Google Cloud TPUs only): use "
            "tf_distribute: mirrored on a multi-GPU instance, or distribution.strategy "
            "multi_worker_mirrored across instances",
        )


@rule
def tensorflow_one_host_strategy(loaded: LoadedConfig) -> Iterator[Problem]:
    """The TF entry point's --tf_distribute one_device|mirrored|central_storage (old name
    --strategy) are single-host strategies; it refuses them when the container set up workers
    (TF_CONFIG, mpirun, SMDDP), and on 2+ instances without a distribution every host would
    train alone."""
    config = loaded.config
    key, name = _tf_distribute_hyperparameter(config)
    if not _is_tensorflow(config) or name not in _ONE_HOST_STRATEGIES:
        return
    strategy, count = config.distribution.strategy, config.compute.instance_count
    alone = not registry.distributed(config)
    if alone and count == 1:
        return
    where = f"{count} instances" if alone else f"strategy {strategy}"
    yield error(
        loaded,
        ("hyperparameters", key),
        f"{key}: {name} trains on one host, not with {where}: drop the hyperparameter "
        "(auto follows distribution.strategy, e.g. multi_worker_mirrored)",
    )

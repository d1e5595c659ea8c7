"""TensorFlow rules: which strategies its container runs, and on which versions and instances."""

from __future__ import annotations

import re
from collections.abc import Iterator

from sagelaunch.config import facts, sdk_data
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.config.model import LaunchConfig
from sagelaunch.config.rules import error, offered, rule, warning
from sagelaunch.config.strategies import smp_version
from sagelaunch.errors import Problem

TENSORFLOW_STRATEGIES = ("none", "parameter_server", "multi_worker_mirrored", "mpi", "smddp", "smp")
TENSORFLOW_ONLY = ("parameter_server", "multi_worker_mirrored")


def _version(config: LaunchConfig) -> tuple[int, ...] | None:
    """The framework version as numbers (an alias such as "2.9" compares like 2.9.0)."""
    return _numbers(config.framework_version) if config.framework_version else None


def _numbers(text: str) -> tuple[int, ...]:
    numbers = tuple(int(n) for n in re.findall(r"\d+", text)[:3])
    return numbers + (0,) * (3 - len(numbers))


def _is_tensorflow(config: LaunchConfig) -> bool:
    return config.framework == "tensorflow"


@rule
def tensorflow_strategy(loaded: LoadedConfig) -> Iterator[Problem]:
    """The TensorFlow container runs parameter servers, MWMS, mpirun (SMP v1's launcher too: the
    SDK's TensorFlow estimator takes smdistributed.modelparallel with mpi) or SMDDP (its
    training.py); torchrun and SMP v2 are PyTorch's. The PyTorch container has no runner for
    parameter_server or multi_worker_mirrored (the SDK's flags would be ignored and every host
    train alone)."""
    config = loaded.config
    strategy = config.distribution.strategy
    if _is_tensorflow(config) and strategy not in TENSORFLOW_STRATEGIES:
        yield error(
            loaded,
            ("distribution", "strategy"),
            f"the TensorFlow container runs {offered(TENSORFLOW_STRATEGIES)}, not {strategy}",
        )
    if _is_tensorflow(config) and smp_version(config) == 2:
        yield error(
            loaded,
            ("distribution", "smp", "version"),
            "SMP v2 is PyTorch's (torch.sagemaker); TensorFlow runs SMP v1 (smp.version: 1)",
        )
    if config.framework == "pytorch" and strategy in TENSORFLOW_ONLY:
        yield error(
            loaded,
            ("distribution", "strategy"),
            f"{strategy} is a TensorFlow strategy: the PyTorch container ignores it; "
            "use torchrun for PyTorch data parallelism",
        )


@rule
def multi_worker_mirrored_version(loaded: LoadedConfig) -> Iterator[Problem]:
    """MultiWorkerMirroredStrategy needs TensorFlow >= 2.9: older containers never build its
    TF_CONFIG (the SDK's docs; data/tensorflow.json)."""
    config = loaded.config
    version = _version(config)
    if config.distribution.strategy != "multi_worker_mirrored" or version is None:
        return
    floor = facts.load("tensorflow")["multi_worker_mirrored_min_version"]
    if version < _numbers(floor):
        yield error(
            loaded,
            ("framework_version",),
            f"multi_worker_mirrored needs TensorFlow {floor} or later (older containers set no "
            f"TF_CONFIG for it), not {config.framework_version}",
        )


@rule
def tensorflow_smddp_versions(loaded: LoadedConfig) -> Iterator[Problem]:
    """The SMDDP library supports TensorFlow only in the versions the SDK lists
    (fw_utils.SM_DATAPARALLEL_SUPPORTED_FRAMEWORK_VERSIONS: 2.3 to 2.11; it dropped TF >= 2.12),
    so an image_uri does not help either."""
    config = loaded.config
    if not _is_tensorflow(config) or config.distribution.strategy != "smddp":
        return
    supported = sdk_data.fw_constant("SM_DATAPARALLEL_SUPPORTED_FRAMEWORK_VERSIONS")["tensorflow"]
    if config.framework_version and config.framework_version not in supported:
        yield error(
            loaded,
            ("framework_version",),
            f"the SMDDP library supports TensorFlow {offered(supported)} only (the SDK's list), "
            f"not {config.framework_version}; use strategy: multi_worker_mirrored or mpi",
        )


@rule
def parameter_server_one_host(loaded: LoadedConfig) -> Iterator[Problem]:
    """Advice: the container starts parameter servers only with more than one host
    (training.py: `sagemaker_parameter_server_enabled and len(env.hosts) > 1`)."""
    config = loaded.config
    if config.distribution.strategy == "parameter_server" and config.compute.instance_count == 1:
        yield warning(
            loaded,
            ("distribution", "strategy"),
            "parameter_server with one instance starts no parameter server (the container "
            "runs the script alone); set instance_count >= 2 or strategy: none",
        )


@rule
def horovod_needs_mpi(loaded: LoadedConfig) -> Iterator[Problem]:
    """Horovod runs under mpirun, which the container starts only for the mpi strategy
    (sagemaker_mpi_enabled); the entry point's --horovod fails anywhere else."""
    config = loaded.config
    wanted = config.hyperparameters.get("horovod")
    if wanted not in (None, False, "false", "False", 0) and config.distribution.strategy != "mpi":
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
    version = _version(config)
    if not _is_tensorflow(config) or version is None or config.image_uri:
        return
    highest = sdk_data.version_constant(
        "tensorflow/estimator.py", "_HIGHEST_LEGACY_MODE_ONLY_VERSION"
    )
    if version <= _numbers(highest):
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


def _strategy_hyperparameter(config: LaunchConfig) -> str:
    return str((config.hyperparameters or {}).get("strategy", "")).strip('"').lower()


@rule
def tensorflow_tpu_strategy(loaded: LoadedConfig) -> Iterator[Problem]:
    """TPUStrategy needs Cloud TPUs; SageMaker's training instance types (ml.*) have GPUs,
    Trainium or CPUs and no TPU, so a script that builds a TPUStrategy fails at start."""
    config = loaded.config
    if _is_tensorflow(config) and _strategy_hyperparameter(config) in _TPU_NAMES:
        yield error(
            loaded,
            ("hyperparameters", "strategy"),
            "SageMaker has no TPU instances (TPUStrategy runs on Google Cloud TPUs only): use "
            "strategy: mirrored on a multi-GPU instance, or distribution.strategy "
            "multi_worker_mirrored across instances",
        )


@rule
def tensorflow_one_host_strategy(loaded: LoadedConfig) -> Iterator[Problem]:
    """The TF entry point's --strategy one_device|mirrored|central_storage are single-host
    strategies; it refuses them when the container set up workers (TF_CONFIG, mpirun, SMDDP),
    and on 2+ instances without a distribution every host would train alone."""
    config = loaded.config
    name = _strategy_hyperparameter(config)
    if not _is_tensorflow(config) or name not in _ONE_HOST_STRATEGIES:
        return
    strategy, count = config.distribution.strategy, config.compute.instance_count
    if strategy == "none" and count == 1:
        return
    where = f"strategy {strategy}" if strategy != "none" else f"{count} instances"
    yield error(
        loaded,
        ("hyperparameters", "strategy"),
        f"strategy: {name} trains on one host, not with {where}: drop the hyperparameter "
        "(auto follows distribution.strategy, e.g. multi_worker_mirrored)",
    )

"""Compatibility rules: what the service and the containers need, checked before AWS is touched.

The SDK checks little (sagemaker-facts §1.3), so each rule here is a small named function that
yields located problems saying how to fix the config. `check` runs them all; tests run each one
by name, once where it fires and once where it stays quiet.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from sagelaunch.config import facts
from sagelaunch.config.images import sdk_has_smddp_image, tool_known_image
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.config.model import LaunchConfig
from sagelaunch.errors import Problem

Rule = Callable[[LoadedConfig], Iterator[Problem]]
RULES: dict[str, Rule] = {}

# The SDK appends "-YYYY-MM-DD-HH-MM-SS-mmm" (24 characters) to the base job name.
JOB_NAME_SUFFIX_LEN = 24
MAX_JOB_NAME = 63
MAX_RUN_SECONDS = 28 * 86400
MAX_KEEP_ALIVE = 3600
_ROLE_ARN = re.compile(r"^arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+$")
_S3_URI = re.compile(r"^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/.*)?$")
_CHANNEL_NAME = re.compile(r"^[A-Za-z0-9.\-_]{1,64}$")
_SMP_V1_CHOICES = {
    "pipeline": ["simple", "interleaved", "_only_forward"],
    "placement_strategy": ["spread", "cluster"],
    "optimize": ["speed", "memory"],
}
_SMP_V1_POSITIVE = ("microbatches", "partitions", "active_microbatches")
_SMP_V1_BOOLS = ("auto_partition", "contiguous", "load_partition", "horovod", "ddp")
_TORCH_DISTRIBUTED = {"torchrun", "smp"}  # smddp adds it on p5-class instances


def rule(func: Rule) -> Rule:
    RULES[func.__name__] = func
    return func


def check(loaded: LoadedConfig) -> list[Problem]:
    """Every rule's findings, errors and warnings, in file order."""
    found = [problem for func in RULES.values() for problem in func(loaded)]
    return sorted(found, key=lambda p: (p.line, p.col, p.path))


# --- helpers -------------------------------------------------------------------------------------


def _error(loaded: LoadedConfig, path: tuple, message: str) -> Problem:
    return loaded.problem(path, message)


def _warning(loaded: LoadedConfig, path: tuple, message: str) -> Problem:
    return loaded.problem(path, message, severity="warning")


def _kind(config: LaunchConfig) -> str:
    return facts.instance_kind(config.compute.instance_type)


def _smp_version(config: LaunchConfig) -> int | None:
    if config.distribution.strategy != "smp":
        return None
    return config.distribution.smp.version if config.distribution.smp else 2


def uses_torch_distributed(config: LaunchConfig) -> bool:
    """Whether the request enables torch_distributed (torchrun in the container)."""
    strategy = config.distribution.strategy
    if strategy == "smddp":
        return config.compute.instance_type in facts.load("instances")["smddp_with_torchrun"]
    return strategy == "torchrun" or (strategy == "smp" and _smp_version(config) == 2)


def _offered(versions: list[str]) -> str:
    return ", ".join(versions)


# --- framework, versions, images -----------------------------------------------------------------


@rule
def entry_point_present(loaded: LoadedConfig) -> Iterator[Problem]:
    config = loaded.config
    if config.framework == "pytorch" and not config.entry_point:
        yield _error(
            loaded, ("framework",), "pytorch jobs need entry_point (e.g. train_pytorch.py)"
        )
        return
    if config.entry_point and not (loaded.source_dir / config.entry_point).is_file():
        yield _error(
            loaded,
            ("entry_point",),
            f"{config.entry_point} not found in {loaded.source_dir}: fix entry_point or source_dir",
        )


@rule
def framework_version_offered(loaded: LoadedConfig) -> Iterator[Problem]:
    config = loaded.config
    if config.image_uri or _kind(config) == "trainium" or _smp_version(config) == 2:
        return  # Trainium and SMP v2 images have their own tables (rules below)
    if config.framework == "pytorch":
        offered = facts.load("frameworks")["pytorch"]["training_images"]
        if facts.pytorch_version(config.framework_version) not in offered:
            yield _error(
                loaded,
                ("framework_version",),
                f"no SageMaker PyTorch training image for {config.framework_version!r}; "
                f"offered: {_offered(list(offered))} (or set image_uri)",
            )
    else:
        xgb = facts.load("frameworks")["xgboost"]
        offered = xgb["builtin"] if config.is_builtin_algorithm else xgb["script_mode"]
        if config.framework_version not in offered:
            yield _error(
                loaded,
                ("framework_version",),
                f"unknown XGBoost container version {config.framework_version!r}; "
                f"offered: {_offered(offered)}",
            )


@rule
def py_version_offered(loaded: LoadedConfig) -> Iterator[Problem]:
    config = loaded.config
    if not config.py_version or config.image_uri:
        return
    if config.framework == "xgboost":
        offered = facts.load("frameworks")["xgboost"]["py_versions"]
    elif _smp_version(config) == 2:
        smp = facts.load("frameworks")["pytorch"]["smp_v2"]
        offered = [smp[config.framework_version]] if config.framework_version in smp else []
    else:
        images = facts.load("frameworks")["pytorch"]["training_images"]
        offered = images.get(facts.pytorch_version(config.framework_version), [])
    if offered and config.py_version not in offered:
        yield _error(
            loaded,
            ("py_version",),
            f"{config.py_version} is not offered for {config.framework} "
            f"{config.framework_version}; offered: {_offered(offered)} (or omit py_version)",
        )


@rule
def strategy_for_framework(loaded: LoadedConfig) -> Iterator[Problem]:
    config = loaded.config
    if config.framework == "xgboost" and config.distribution.strategy != "none":
        yield _error(
            loaded,
            ("distribution", "strategy"),
            "XGBoost distributes through its own collective across hosts; the SDK silently "
            "drops a distribution here — use strategy: none and set compute.instance_count",
        )


@rule
def smp_block_matches_strategy(loaded: LoadedConfig) -> Iterator[Problem]:
    distribution = loaded.config.distribution
    if distribution.smp and distribution.strategy != "smp":
        yield _error(
            loaded,
            ("distribution", "smp"),
            f"smp settings apply only with strategy: smp (strategy is {distribution.strategy})",
        )
    if distribution.processes_per_host and distribution.strategy not in {"mpi", "smp"}:
        yield _warning(
            loaded,
            ("distribution", "processes_per_host"),
            "processes_per_host is used by mpi and SMP v1 only; torchrun starts one per GPU",
        )


# --- SMDDP ---------------------------------------------------------------------------------------


@rule
def smddp_instance_type(loaded: LoadedConfig) -> Iterator[Problem]:
    config = loaded.config
    if config.distribution.strategy != "smddp":
        return
    instances = facts.load("instances")
    allowed = instances["smddp_supported"] + instances["smddp_with_torchrun"]
    if config.compute.instance_type not in allowed:
        yield _error(
            loaded,
            ("compute", "instance_type"),
            f"SMDDP runs only on {_offered(allowed)} (not {config.compute.instance_type}); "
            "use strategy: torchrun for NCCL data parallelism elsewhere",
        )


@rule
def smddp_image(loaded: LoadedConfig) -> Iterator[Problem]:
    config = loaded.config
    if config.distribution.strategy != "smddp" or config.image_uri or sdk_has_smddp_image(config):
        return
    if tool_known_image(config, config.region) is None:
        yield _error(
            loaded,
            ("framework_version",),
            f"the SDK supports SMDDP up to PyTorch 2.2.0 and no SMDDP image is known for "
            f"{config.framework_version}: set image_uri to an SMDDP-enabled training image",
        )


# --- Trainium ------------------------------------------------------------------------------------


@rule
def trainium_strategy(loaded: LoadedConfig) -> Iterator[Problem]:
    config = loaded.config
    if _kind(config) == "trainium" and config.distribution.strategy not in {"none", "torchrun"}:
        yield _error(
            loaded,
            ("distribution", "strategy"),
            f"Trainium supports only torchrun (torch_distributed), not "
            f"{config.distribution.strategy}",
        )


@rule
def trainium_image(loaded: LoadedConfig) -> Iterator[Problem]:
    config = loaded.config
    if _kind(config) != "trainium" or config.image_uri:
        return
    if tool_known_image(config, config.region) is None:
        known = _offered(list(facts.load("images")["neuronx"]))
        yield _error(
            loaded,
            ("framework_version",),
            f"Trainium needs a neuronx image and none is known for PyTorch "
            f"{config.framework_version} (known: {known}): set image_uri",
        )


# --- torchrun and SMP ----------------------------------------------------------------------------


@rule
def torchrun_instance_and_version(loaded: LoadedConfig) -> Iterator[Problem]:
    config = loaded.config
    if not uses_torch_distributed(config) or config.image_uri or _kind(config) == "trainium":
        return
    if _kind(config) == "cpu":
        yield _error(
            loaded,
            ("compute", "instance_type"),
            f"{config.distribution.strategy} (torch_distributed) runs on GPU and Trainium "
            f"instances only, not {config.compute.instance_type}; use strategy: none or mpi on CPU",
        )
        return
    if _smp_version(config) == 2:
        return
    pytorch = facts.load("frameworks")["pytorch"]
    version = config.framework_version
    if version not in pytorch["torch_distributed_gpu"]:
        yield _error(
            loaded,
            ("framework_version",),
            f"torchrun on GPU needs one of {_offered(pytorch['torch_distributed_gpu'])} "
            f"(SDK list), not {version!r}",
        )


@rule
def torchrun_entry_point_is_python(loaded: LoadedConfig) -> Iterator[Problem]:
    config = loaded.config
    entry_point = config.entry_point
    if uses_torch_distributed(config) and entry_point and not entry_point.endswith(".py"):
        yield _error(
            loaded,
            ("entry_point",),
            "torchrun runs Python scripts only: entry_point must end in .py",
        )


@rule
def smp_v2_version(loaded: LoadedConfig) -> Iterator[Problem]:
    config = loaded.config
    if _smp_version(config) != 2 or config.image_uri:
        return
    supported = facts.load("frameworks")["pytorch"]["smp_v2"]
    if config.framework_version not in supported:
        yield _error(
            loaded,
            ("framework_version",),
            f"SMP v2 images exist for PyTorch {_offered(list(supported))}, not "
            f"{config.framework_version!r} (or set image_uri)",
        )
    if _kind(config) != "gpu":
        yield _error(
            loaded,
            ("compute", "instance_type"),
            "SMP v2 needs GPU instances (p4d, p4de, p5, p5e, p5en)",
        )


@rule
def smp_v1_parameters(loaded: LoadedConfig) -> Iterator[Problem]:
    config = loaded.config
    if _smp_version(config) != 1:
        return
    params = config.distribution.smp.parameters if config.distribution.smp else {}
    at = ("distribution", "smp", "parameters")
    yield from _smp_v1_values(loaded, params, at)
    if "p5" in config.compute.instance_type:
        yield _error(
            loaded,
            ("compute", "instance_type"),
            "SMP v1 does not run on p5-class instances; use SMP v2 (smp.version: 2)",
        )
    partitions = params.get("partitions")
    if "pipeline" in params and not partitions:
        yield _error(loaded, at, "pipeline parallelism needs partitions (number of stages)")
    procs = config.distribution.processes_per_host or facts.accelerators_per_host(
        config.compute.instance_type
    )
    world = procs * config.compute.instance_count
    if isinstance(partitions, int) and partitions > 0 and world % partitions:
        yield _error(
            loaded,
            (*at, "partitions"),
            f"partitions={partitions} must divide the world size {world} "
            f"(processes_per_host {procs} x instance_count {config.compute.instance_count})",
        )


def _smp_v1_values(loaded: LoadedConfig, params: dict, at: tuple) -> Iterator[Problem]:
    for key, choices in _SMP_V1_CHOICES.items():
        if key in params and params[key] not in choices:
            yield _error(loaded, (*at, key), f"must be one of {', '.join(choices)}")
    for key in _SMP_V1_POSITIVE:
        value = params.get(key)
        if key in params and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            yield _error(loaded, (*at, key), "must be a positive integer")
    for key in _SMP_V1_BOOLS:
        if key in params and not isinstance(params[key], bool):
            yield _error(loaded, (*at, key), "must be true or false")
    if params.get("ddp") and params.get("horovod"):
        yield _error(loaded, at, "ddp and horovod cannot both be enabled")


# --- compute, spot, data -------------------------------------------------------------------------


@rule
def instance_type_known(loaded: LoadedConfig) -> Iterator[Problem]:
    instance_type = loaded.config.compute.instance_type
    if not re.match(r"^ml\.[a-z0-9-]+\.[a-z0-9]+$", instance_type):
        yield _error(
            loaded,
            ("compute", "instance_type"),
            f"{instance_type!r} is not a SageMaker instance type (e.g. ml.p4d.24xlarge)",
        )
    elif facts.instance(instance_type) is None:
        yield _warning(
            loaded,
            ("compute", "instance_type"),
            f"{instance_type} is not in sagelaunch's catalog; its limits are not checked",
        )


@rule
def run_time_ranges(loaded: LoadedConfig) -> Iterator[Problem]:
    compute = loaded.config.compute
    if not 1 <= compute.max_run <= MAX_RUN_SECONDS:
        yield _error(loaded, ("compute", "max_run"), "must be between 1 second and 28 days")
    if not 0 <= compute.keep_alive <= MAX_KEEP_ALIVE:
        yield _error(loaded, ("compute", "keep_alive"), "must be between 0 and 3600 seconds")


@rule
def spot_max_wait(loaded: LoadedConfig) -> Iterator[Problem]:
    compute = loaded.config.compute
    if compute.spot and compute.spot.max_wait < compute.max_run:
        yield _error(
            loaded,
            ("compute", "spot", "max_wait"),
            f"max_wait ({compute.spot.max_wait}s) must be >= max_run ({compute.max_run}s)",
        )


@rule
def spot_without_checkpoint(loaded: LoadedConfig) -> Iterator[Problem]:
    config = loaded.config
    if config.compute.spot and not config.checkpoint:
        yield _warning(
            loaded,
            ("compute", "spot"),
            "spot without checkpoint: an interrupted job restarts from step 0; "
            "add checkpoint.s3_uri",
        )


@rule
def sharded_single_instance(loaded: LoadedConfig) -> Iterator[Problem]:
    config = loaded.config
    if config.compute.instance_count > 1:
        return
    for name, channel in config.inputs.items():
        if channel.distribution == "sharded":
            yield _warning(
                loaded,
                ("inputs", name, "distribution"),
                "sharded with one instance is the same as replicated",
            )


@rule
def xgboost_dask_gpu(loaded: LoadedConfig) -> Iterator[Problem]:
    config = loaded.config
    if str(config.hyperparameters.get("use_dask_gpu_training", "")).lower() != "true":
        return
    if config.compute.instance_count > 1:
        for name, channel in config.inputs.items():
            if channel.distribution != "replicated":
                yield _error(
                    loaded,
                    ("inputs", name, "distribution"),
                    "Dask GPU training requires FullyReplicated data: use distribution: replicated",
                )
    if _kind(config) != "gpu":
        yield _error(
            loaded, ("compute", "instance_type"), "use_dask_gpu_training needs a GPU instance"
        )


@rule
def channels_well_formed(loaded: LoadedConfig) -> Iterator[Problem]:
    config = loaded.config
    for name, channel in config.inputs.items():
        if not _CHANNEL_NAME.match(name):
            yield _error(
                loaded, ("inputs", name), "channel names use letters, digits, '.', '-', '_'"
            )
        if channel.uri and channel.uri.startswith("file://"):
            yield _warning(
                loaded, ("inputs", name, "uri"), "file:// inputs work for local runs only"
            )
        elif channel.uri and not _S3_URI.match(channel.uri):
            yield _error(loaded, ("inputs", name, "uri"), f"not an S3 URI: {channel.uri!r}")
        if channel.file_system and not config.network.subnets:
            yield _error(
                loaded,
                ("inputs", name, "file_system"),
                "FSx/EFS inputs need network.subnets and network.security_group_ids in its VPC",
            )
    for name in config.local.inputs:
        if name not in config.inputs:
            yield _error(loaded, ("local", "inputs", name), f"no input channel named {name!r}")


@rule
def s3_uris_well_formed(loaded: LoadedConfig) -> Iterator[Problem]:
    config = loaded.config
    uris = {
        ("output_path",): config.output_path,
        ("code_location",): config.code_location,
        ("checkpoint", "s3_uri"): config.checkpoint.s3_uri if config.checkpoint else None,
    }
    for path, uri in uris.items():
        if uri is not None and not _S3_URI.match(uri):
            yield _error(loaded, path, f"not an S3 URI: {uri!r} (expected s3://bucket/prefix)")


@rule
def role_is_arn(loaded: LoadedConfig) -> Iterator[Problem]:
    role = loaded.config.role
    if role is None:
        return
    if role.startswith("$"):
        yield _error(
            loaded,
            ("role",),
            "environment references are not expanded; leave role unset to use $SAGELAUNCH_ROLE",
        )
    elif not _ROLE_ARN.match(role):
        yield _error(
            loaded,
            ("role",),
            f"{role!r} is not an IAM role ARN (arn:aws:iam::<account>:role/<name>)",
        )


@rule
def job_name_length(loaded: LoadedConfig) -> Iterator[Problem]:
    name = loaded.config.name
    limit = MAX_JOB_NAME - JOB_NAME_SUFFIX_LEN
    if len(name) > limit:
        yield _error(
            loaded,
            ("name",),
            f"{len(name)} characters; at most {limit} leave room for the 24-character "
            "unique suffix (SageMaker job names are at most 63)",
        )


@rule
def hyperparameters_not_reserved(loaded: LoadedConfig) -> Iterator[Problem]:
    for key in loaded.config.hyperparameters:
        if key.startswith("sagemaker_"):
            yield _error(
                loaded,
                ("hyperparameters", key),
                "sagemaker_* hyperparameters are set by the SDK from distribution/compute",
            )

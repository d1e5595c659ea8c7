"""The SM_* environment the SageMaker training toolkit computes for one host's tree.

A re-implementation of ``sagemaker_training.environment.Environment().to_env_vars()`` (toolkit 5.x,
``environment.py`` / ``mapping.py`` / ``params.py``), not an import of it: the toolkit reads its
base directory once at import time and pulls in boto3. tests/local checks this module against the
toolkit itself, host by host. What the toolkit learns from the machine (CPUs, GPUs, Neuron cores,
smddprun) comes from ``Machine``; what it learns from the container's environment variables comes
from ``container_env``, so the test can show the toolkit the very same facts. (Its boto3 region
lookup feeds only SAGEMAKER_REGION, never an SM_* variable; the planned region is used for it.)

Deliberately not emulated: the PyTorch toolkit's NCCL_SOCKET_IFNAME=eth0 and EFA variables, which
would break NCCL on a workstation whose interface has another name.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sagelaunch.hyperparameters import decode_hyperparameters
from sagelaunch.local.tree import GROUP, HostTree

SAGEMAKER_PREFIX = "sagemaker_"
# params.SAGEMAKER_HYPERPARAMETERS: framework keys that are neither user nor "additional" params.
TOOLKIT_KEYS = (
    "sagemaker_program",
    "sagemaker_submit_directory",
    "sagemaker_enable_cloudwatch_metrics",
    "sagemaker_region",
    "sagemaker_container_log_level",
    "sagemaker_job_name",
    "default_user_module_name",
    "_tuning_objective_metric",
    "sagemaker_s3_output",
)
# Any of these in the framework params puts the host's group in the distribution groups.
_DISTRIBUTION_FLAGS = (
    "sagemaker_mpi_enabled",
    "sagemaker_parameter_server_enabled",
    "sagemaker_distributed_dataparallel_enabled",
    "sagemaker_pytorch_ddp_enabled",
    "sagemaker_pytorch_xla_multi_worker_enabled",
    "sagemaker_multi_worker_mirrored_strategy_enabled",
    "sagemaker_torch_distributed_enabled",
)
# What the framework containers set in their image (Dockerfile ENV), read by the toolkit.
TRAINING_MODULES = {
    "pytorch": "sagemaker_pytorch_container.training:main",
    "xgboost": "sagemaker_xgboost_container.training:main",
    "tensorflow": "sagemaker_tensorflow_container.training:main",
}
INFO = 20  # logging.INFO, the toolkit's default log level


@dataclass(frozen=True)
class Machine:
    """The facts the toolkit asks the machine for (the same for every emulated host)."""

    num_cpus: int
    num_gpus: int
    neuron_cores: int
    smddprun: bool
    smddpmprun: bool

    @classmethod
    def detect(cls) -> Machine:
        return cls(
            num_cpus=os.cpu_count() or 1,
            num_gpus=_count_gpus(),
            neuron_cores=_count_neuron_cores(),
            smddprun=shutil.which("smddprun") is not None,
            smddpmprun=shutil.which("smddpmprun") is not None,
        )

    def num_neurons(self, instance_type: str) -> int:
        # The toolkit hard-codes trn2.48xlarge instead of asking neuron-ls.
        return 64 if "trn2.48xlarge" in instance_type else self.neuron_cores


def _count_gpus() -> int:
    output = _command_output(["nvidia-smi", "--list-gpus"])
    return sum(1 for line in output.split("\n") if line.startswith("GPU "))


def _count_neuron_cores() -> int:
    output = _command_output(["neuron-ls", "-j"])
    try:
        devices = json.loads(output) if output else []
    except json.JSONDecodeError:
        return 0
    return sum(int(device.get("nc_count", 0)) for device in devices)


def _command_output(command: list[str]) -> str:
    try:
        return subprocess.run(
            command, capture_output=True, text=True, check=True, timeout=30
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def split_hyperparameters(decoded: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(framework, user): ``sagemaker_*`` and the toolkit's own keys vs the script's."""
    framework = {
        k: v for k, v in decoded.items() if k in TOOLKIT_KEYS or k.startswith(SAGEMAKER_PREFIX)
    }
    user = {k: v for k, v in decoded.items() if k not in framework}
    return framework, user


def user_args(user_hyperparameters: Mapping[str, Any]) -> list[str]:
    """The script's command line, as the toolkit's ``mapping.to_cmd_args`` builds it."""
    args: list[str] = []
    for key in sorted(user_hyperparameters):
        name = str(key)
        args.append(f"--{name}" if len(name) > 1 else f"-{name}" if name else "")
        args.append(_arg_value(user_hyperparameters[key]))
    return args


def _arg_value(value: Any) -> str:
    if hasattr(value, "items"):
        return ",".join(f"{k}={v}" for k, v in sorted(value.items()))
    return "" if value is None else str(value)


def training_environment(
    tree: HostTree,
    *,
    hyperparameters: Mapping[str, str],
    resources: Mapping[str, Any],
    channels: Mapping[str, Any],
    machine: Machine,
    container_env: Mapping[str, str],
) -> dict[str, Any]:
    """``dict(Environment())``: every property of the toolkit's Environment, for SM_TRAINING_ENV."""
    base = str(tree.root)
    framework, user = split_hyperparameters(decode_hyperparameters(hyperparameters))
    additional = {k: v for k, v in framework.items() if k not in TOOLKIT_KEYS}
    program = container_env.get("SAGEMAKER_PROGRAM")
    module_name = program if program is not None else str(framework.get("sagemaker_program"))
    instance_type = resources.get("current_instance_type", "local")
    group = resources.get("current_group_name", GROUP)
    hosts = list(resources["hosts"])
    groups = list(resources.get("instance_groups", []))
    distribution_groups = additional.get(
        "sagemaker_distribution_instance_groups",
        [group] if any(additional.get(flag, False) for flag in _DISTRIBUTION_FLAGS) else [],
    )
    distribution_hosts = (
        [h for g in groups if g["instance_group_name"] in distribution_groups for h in g["hosts"]]
        if groups
        else list(hosts)
    )
    master = distribution_hosts[0] if distribution_hosts else hosts[0]
    mp_parameters = container_env.get("SM_HP_MP_PARAMETERS")
    output = os.path.join(base, "output")
    return {
        "additional_framework_parameters": additional,
        "channel_input_dirs": {c: os.path.join(base, "input", "data", c) for c in channels},
        "current_host": resources["current_host"],
        "current_instance_group": group,
        "current_instance_group_hosts": next(
            (g["hosts"] for g in groups if g["instance_group_name"] == group), []
        ),
        "current_instance_type": instance_type,
        "distribution_hosts": distribution_hosts,
        "distribution_instance_groups": distribution_groups,
        "framework_module": container_env.get("SAGEMAKER_TRAINING_MODULE"),
        "hosts": hosts,
        "hyperparameters": user,
        "input_config_dir": os.path.join(base, "input", "config"),
        "input_data_config": dict(channels),
        "input_dir": os.path.join(base, "input"),
        "instance_groups": [g["instance_group_name"] for g in groups],
        "instance_groups_dict": {g["instance_group_name"]: g for g in groups},
        "is_hetero": len(groups) > 1,
        "is_master": resources["current_host"] == master,
        "is_modelparallel_enabled": mp_parameters and mp_parameters != "{}",
        "is_smddpmprun_installed": machine.smddpmprun,
        "is_smddprun_installed": machine.smddprun,
        "job_name": container_env.get("TRAINING_JOB_NAME"),
        "log_level": framework.get("sagemaker_container_log_level", INFO),
        "master_hostname": master,
        "model_dir": os.path.join(base, "model"),
        "module_dir": str(framework.get("sagemaker_submit_directory", os.path.join(base, "code"))),
        "module_name": module_name[:-3] if module_name.endswith(".py") else module_name,
        "network_interface_name": resources.get("network_interface_name", "eth0"),
        "num_cpus": machine.num_cpus,
        "num_gpus": machine.num_gpus,
        "num_neurons": machine.num_neurons(instance_type),
        "output_data_dir": os.path.join(output, "data"),
        "output_dir": output,
        "output_intermediate_dir": os.path.join(output, "intermediate"),
        "resource_config": dict(resources),
        "topology": resources.get("topology", []),
        "user_entry_point": program or framework.get("sagemaker_program"),
    }


def sm_variables(training_env: Mapping[str, Any]) -> dict[str, str]:
    """``Environment.to_env_vars()`` for that environment: the SM_* variables."""
    env = training_env
    values: dict[str, Any] = {
        "hosts": env["hosts"],
        "network_interface_name": env["network_interface_name"],
        "hps": env["hyperparameters"],
        "user_entry_point": env["user_entry_point"],
        "framework_params": env["additional_framework_parameters"],
        "resource_config": env["resource_config"],
        "input_data_config": env["input_data_config"],
        "output_data_dir": env["output_data_dir"],
        "channels": sorted(env["channel_input_dirs"]),
        **{
            key: env[key]
            for key in (
                "current_host",
                "current_instance_type",
                "current_instance_group",
                "current_instance_group_hosts",
                "instance_groups",
                "instance_groups_dict",
                "distribution_instance_groups",
                "is_hetero",
                "module_name",
                "log_level",
                "framework_module",
                "input_dir",
                "input_config_dir",
                "output_dir",
                "num_cpus",
                "num_gpus",
                "num_neurons",
                "model_dir",
                "module_dir",
            )
        },
        "training_env": dict(env),
        "user_args": user_args(env["hyperparameters"]),
        "output_intermediate_dir": env["output_intermediate_dir"],
    }
    if env["topology"]:
        values["topology"] = env["topology"]
    values.update({f"channel_{name}": path for name, path in env["channel_input_dirs"].items()})
    values.update({f"hp_{key}": value for key, value in env["hyperparameters"].items()})
    return {f"SM_{str(key).upper()}": _env_value(value) for key, value in values.items()}


def _env_value(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("latin1")
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


# Variables a launcher or a real job sets; a local run starts each host without them.
_FOREIGN = re.compile(
    r"^(SM_.*|TRAINING_JOB_NAME|SAGEMAKER_(BASE_DIR|PROGRAM|SUBMIT_DIRECTORY|TRAINING_MODULE)|"
    r"RANK|LOCAL_RANK|WORLD_SIZE|LOCAL_WORLD_SIZE|GROUP_RANK|ROLE_RANK|ROLE_WORLD_SIZE|"
    r"MASTER_ADDR|MASTER_PORT|TORCHELASTIC_.*|OMPI_.*|PMI_.*)$"
)


def without_job_variables(inherited: Mapping[str, str]) -> dict[str, str]:
    """This shell's environment minus what a launcher or a real SageMaker job would set."""
    return {k: v for k, v in inherited.items() if not _FOREIGN.match(k)}


# Set on every host process of a local run; the shipped entry points read it (smenv.py).
LOCAL_RUN_VARIABLE = "SAGELAUNCH_LOCAL_RUN"


def home_variables(home: Path) -> dict[str, str]:
    """The host's home folder, in the run folder, and the folders libraries derive from it for
    their caches and settings (matplotlib's font cache, Keras's keras.json, torch hub, pip, ...):
    a local run writes nothing in the user's home. In the container HOME is the image's own
    (/root in the framework images), never the user's; here it is the host's private one, as the
    sandbox sets it, with or without a sandbox."""
    return {
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "KERAS_HOME": str(home / ".keras"),
        "MPLCONFIGDIR": str(home / ".config" / "matplotlib"),
    }


def process_environment(
    inherited: Mapping[str, str],
    *,
    home: Path | None = None,
    container_env: Mapping[str, str],
    sm: Mapping[str, str],
    training_env: Mapping[str, Any],
    job_name: str,
    region: str,
    code_dir: str,
    extra: Mapping[str, str],
) -> dict[str, str]:
    """A host process's whole environment: this shell's (minus launcher and job variables), the
    job's Environment and image variables, the SM_* variables, and what the toolkit exports
    besides them. TRAINING_JOB_NAME is the job's name, as SageMaker (and the SDK's local mode)
    set it in every job; LOCAL_RUN_VARIABLE tells the shipped entry points that this is a local
    run (where a library the job enabled but this machine lacks is a warning, not an error).
    ``home``: the host's home folder (`home_variables`); the job's Environment may still set
    any of those variables."""
    env = without_job_variables(inherited)
    if home is not None:
        env.update(home_variables(home))
    env.update(container_env)
    env.update(sm)
    env.update(
        {
            # Side effects of the toolkit's Environment() that the script inherits.
            "CURRENT_HOST": str(training_env["current_host"]),
            "SAGEMAKER_JOB_NAME": job_name,
            "TRAINING_JOB_NAME": job_name,
            LOCAL_RUN_VARIABLE: "1",
            "SAGEMAKER_REGION": region,
            "PYTHONPATH": os.pathsep.join(filter(None, [code_dir, inherited.get("PYTHONPATH")])),
            "PYTHONUNBUFFERED": "1",  # as the framework images set it: logs stream as they come
            # In the image the job's python is the first on PATH: a train.sh calling ``python``
            # must get this interpreter (with torch), not the machine's.
            "PATH": os.pathsep.join(
                filter(None, [str(Path(sys.executable).parent), inherited.get("PATH")])
            ),
            **extra,
        }
    )
    return env

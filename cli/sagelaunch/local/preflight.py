"""Before a local run: what cannot run here fails fast, before planning; the emulated hosts, the
launcher and the sandbox are settled (`prepare`), and the torchrun agents that import torch while
the request is planned start (`warm_start`)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sagelaunch.config.loader import LoadedConfig
from sagelaunch.config.model import LaunchConfig
from sagelaunch.errors import UsageError
from sagelaunch.local import (
    channels,
    environment,
    group_hosts,
    horovod,
    launchers,
    sandbox,
    tree,
    warm,
)
from sagelaunch.local.options import Options
from sagelaunch.local.variant import local_variant
from sagelaunch.plan import topology
from sagelaunch.strategies import registry
from sagelaunch.strategies.base import TORCHRUN

MAX_DEFAULT_HOSTS = 2


@dataclass(frozen=True)
class Prepared:
    """A config checked for a local run, the variant of it that gets planned, and the cluster.

    Everything the run reads of the job reads `config` (the user's, as checked); `plannable` is
    only what is planned (local.variant: placeholders for role, region and output path where a
    laptop has none, local.hyperparameters laid over the job's) and what the run reads from that
    request (the model_dir it was planned with)."""

    loaded: LoadedConfig
    plannable: LoadedConfig
    sources: dict[str, channels.Source]
    hosts: list[str]
    launch: launchers.Launch
    cluster: list[group_hosts.LocalHost]  # every host's instance group (one group when homogeneous)
    sandbox: sandbox.Sandbox  # the isolation the hosts' processes run in

    @property
    def config(self) -> LaunchConfig:
        """The job's config, as the user wrote it and the rules checked it."""
        return self.loaded.config


def prepare(loaded: LoadedConfig, options: Options) -> Prepared:
    """Fail fast, before planning, on what cannot run here; settle hosts and launcher."""
    config = loaded.config
    if config.is_builtin_algorithm:
        raise UsageError(
            "the built-in XGBoost algorithm runs only in its own container",
            "run the script-mode equivalent: --set entry_point=train_xgboost.py",
        )
    if config.framework == "huggingface" and config.base_framework != "pytorch":
        raise UsageError(
            f"sagelaunch local runs Hugging Face PyTorch jobs only: no Hugging Face TensorFlow "
            f"image (transformers {config.transformers_version} with TensorFlow "
            f"{config.tensorflow_version}) is stored with it",
            "plan and submit it, or run the script under framework: tensorflow with "
            "transformers in its requirements.txt",
        )
    cluster = _cluster(config, options)
    strategy = registry.of(config)
    strategy.check_local(config)
    horovod.check(config.base_framework, strategy.runs_horovod, loaded.source_dir)
    launch = launchers.choose(
        topology.placement(config).launcher,  # plan.topology's, before the plan exists
        strategy.name,
        options.processes_per_host or _processes_per_host(config),
    )
    sources = channels.sources(loaded)
    names = [host.name for host in cluster]
    isolation = sandbox.choose(config.local.sandbox)
    return Prepared(loaded, local_variant(loaded), sources, names, launch, cluster, isolation)


def _cluster(config: LaunchConfig, options: Options) -> list[group_hosts.LocalHost]:
    """The emulated hosts: every group's (capped per group) or N hosts of one group."""
    if config.compute.groups:
        return group_hosts.local_hosts(config, options.hosts or config.local.hosts)
    count = host_count(config.local.hosts, config.compute.instance_count, options.hosts)
    instance_type = config.compute.instance_type
    return [
        group_hosts.LocalHost(n, tree.GROUP, instance_type, True) for n in tree.host_names(count)
    ]


def agents_needed(prepared: Prepared) -> int:
    """The torchrun agents this run starts early (one per host), or 0 for another launcher (or
    in a sandbox: an agent already running cannot enter one)."""
    if prepared.launch.kind != TORCHRUN or prepared.sandbox.isolated:
        return 0
    return len(prepared.hosts)


@contextmanager
def warm_start(
    prepared: Prepared, started: list[subprocess.Popen[bytes]] | None = None
) -> Iterator[list[subprocess.Popen[bytes]]]:
    """Start torchrun agents now, to import torch while the request is planned (warm.py);
    ``started``: agents already importing (a rerun's guess, warm_hint.py), used first."""
    inherited = environment.without_job_variables(os.environ)
    with warm.agents(agents_needed(prepared), inherited, started or []) as agents:
        yield agents


def _processes_per_host(config: LaunchConfig) -> int:
    """local.processes_per_host when the config sets it, else distribution.processes_per_host
    (mpi, smp v1: the count the container's mpirun starts per host), else 1."""
    local = config.local
    if "processes_per_host" in local.model_fields_set:
        return local.processes_per_host
    return config.distribution.processes_per_host or local.processes_per_host


def host_count(config_hosts: int | None, instance_count: int, requested: int | None) -> int:
    return requested or config_hosts or min(instance_count, MAX_DEFAULT_HOSTS)

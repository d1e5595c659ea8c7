"""TF_CONFIG per emulated host, as the SageMaker TensorFlow container builds it.

The container (sagemaker-tensorflow-training, ``training.py``) writes these cluster specs:

- parameter servers (``sagemaker_parameter_server_enabled`` and more than one host): the first
  host is the one ``master``, the others are ``worker`` (port 2222 each), and every host also runs
  a parameter server, ``ps`` (port 2223), started by the container beside the script. The ps
  process gets the same cluster; its task is ``{"type": "ps", "index": host index}``.
- MultiWorkerMirroredStrategy (``sagemaker_multi_worker_mirrored_strategy_enabled``): every host
  is a ``worker`` on port 8890.

The ports are fixed in the container, where each host has its own address. Where each emulated
host has a network of its own (network.py), so it is here: the TF_CONFIG is the container's, as
it is. Where the hosts share this machine's, every host is 127.0.0.1, and a fixed port would
collide between hosts, with a rerun's TIME_WAIT and with a second run at once, so each
(host, port) pair of the container gets a free loopback port of its own per run: the TF_CONFIG
equals the container's with ``algo-N:PORT`` replaced by ``127.0.0.1:FREE`` (tests/local checks
exactly that against the toolkit's own builders).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sagelaunch.config.model import LaunchConfig
from sagelaunch.config.paths import shipped_source_dir
from sagelaunch.local import ports, supervisor

# The container's fixed ports (training.py).
WORKER_PORT = 2222  # master and worker tasks under parameter servers
PS_PORT = 2223
MWMS_PORT = 8890
PS_FLAG = "sagemaker_parameter_server_enabled"
MWMS_FLAG = "sagemaker_multi_worker_mirrored_strategy_enabled"


@dataclass(frozen=True)
class Addresses:
    """Where each of the container's ``host:port`` addresses listens in this local run."""

    local: dict[str, str]  # "algo-1:2222" -> "127.0.0.1:40001"

    @classmethod
    def allocate(
        cls, hosts: list[str], container_ports: tuple[int, ...], own_network: bool = False
    ) -> Addresses:
        """The container's addresses, each its own where the hosts have their own networks."""
        if own_network:
            return cls({f"{h}:{p}": f"{h}:{p}" for h in hosts for p in container_ports})
        return cls(
            {
                f"{host}:{port}": f"{ports.LOOPBACK}:{ports.free_port()}"
                for host in hosts
                for port in container_ports
            }
        )

    def translate(self, tf_config: dict[str, Any]) -> dict[str, Any]:
        """The container's TF_CONFIG with every address replaced by its local one."""
        cluster = {
            job: [self.local[address] for address in addresses]
            for job, addresses in tf_config["cluster"].items()
        }
        return {**tf_config, "cluster": cluster}


def parameter_server_config(hosts: list[str], current: str, *, ps_task: bool) -> dict[str, Any]:
    """The container's ``_build_tf_config_for_ps``: master, workers and one ps per host."""
    masters, workers = hosts[:1], hosts[1:]
    cluster: dict[str, list[str]] = {"master": _at(masters, WORKER_PORT)}
    if len(hosts) > 1:
        cluster["ps"] = _at(hosts, PS_PORT)
    if workers:
        cluster["worker"] = _at(workers, WORKER_PORT)
    if ps_task:
        if len(hosts) < 2:
            raise ValueError("no parameter servers with one host")
        task = {"index": hosts.index(current), "type": "ps"}
    elif current == hosts[0]:
        task = {"index": 0, "type": "master"}
    else:
        task = {"index": workers.index(current), "type": "worker"}
    return {"cluster": cluster, "environment": "cloud", "task": task}


def mwms_config(hosts: list[str], current: str) -> dict[str, Any]:
    """The container's ``_build_tf_config_for_mwms``: every host a worker."""
    return {
        "cluster": {"worker": _at(hosts, MWMS_PORT)},
        "environment": "cloud",
        "task": {"index": hosts.index(current), "type": "worker"},
    }


def _at(hosts: list[str], port: int) -> list[str]:
    return [f"{host}:{port}" for host in hosts]


def applies(config: LaunchConfig) -> bool:
    return config.framework == "tensorflow"


def parameter_server_script() -> Path:
    """The container's parameter-server process, shipped with sagelaunch's entry points."""
    return shipped_source_dir("tensorflow") / "tf_parameter_server.py"


@dataclass(frozen=True)
class TfCluster:
    """What each emulated host runs for a TensorFlow job: the worker's TF_CONFIG, and the
    parameter server's when the container starts one."""

    # the container's flag it builds a cluster for (PS_FLAG or MWMS_FLAG; None: no cluster): the
    # container decides by the hyperparameters the SDK wrote, not by a strategy's name
    flag: str | None
    addresses: Addresses

    @classmethod
    def for_job(
        cls, framework_params: dict[str, Any], hosts: list[str], own_network: bool = False
    ) -> TfCluster:
        """The container's choice (training.train): parameter servers only with 2+ hosts."""
        if framework_params.get(PS_FLAG) and len(hosts) > 1:
            ps_ports = (WORKER_PORT, PS_PORT)
            return cls(PS_FLAG, Addresses.allocate(hosts, ps_ports, own_network))
        if framework_params.get(MWMS_FLAG):
            return cls(MWMS_FLAG, Addresses.allocate(hosts, (MWMS_PORT,), own_network))
        return cls(None, Addresses({}))

    def worker_tf_config(self, hosts: list[str], current: str) -> str | None:
        if self.flag == PS_FLAG:
            built = parameter_server_config(hosts, current, ps_task=False)
        elif self.flag == MWMS_FLAG:
            built = mwms_config(hosts, current)
        else:
            return None
        return json.dumps(self.addresses.translate(built))

    def ps_tf_config(self, hosts: list[str], current: str) -> str | None:
        if self.flag != PS_FLAG:
            return None
        built = parameter_server_config(hosts, current, ps_task=True)
        return json.dumps(self.addresses.translate(built))

    def worker_environment(
        self, env: dict[str, str], hosts: list[str], current: str
    ) -> dict[str, str]:
        """The script's environment: TF_CONFIG as the container exports it (none without a
        cluster, and never one inherited from this shell)."""
        env = {key: value for key, value in env.items() if key != "TF_CONFIG"}
        tf_config = self.worker_tf_config(hosts, current)
        return {**env, "TF_CONFIG": tf_config} if tf_config else env

    def parameter_servers(
        self, env: dict[str, str], hosts: list[str], current: str, cwd: Path, log: Path
    ) -> list[supervisor.HostProcess]:
        """The ps process the container starts on ``current`` beside its worker (or none)."""
        tf_config = self.ps_tf_config(hosts, current)
        if tf_config is None:
            return []
        return [
            supervisor.HostProcess(
                f"{current}-ps",
                [sys.executable, str(parameter_server_script())],
                cwd,
                {**env, "TF_CONFIG": tf_config},
                log.with_name(f"{current}-ps.log"),
                auxiliary=True,
            )
        ]

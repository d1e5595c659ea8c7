"""Which tf.distribute strategy this process runs, read from the environment the container sets.

The SageMaker TensorFlow container (sagemaker-tensorflow-training) tells a script how it is
distributed only through its environment:

- ``TF_CONFIG`` with a ``ps`` job (``sagemaker_parameter_server_enabled``, 2+ hosts): parameter
  servers. SageMaker writes TF1-style roles: one ``master`` (the first host), ``worker`` (the other
  hosts), and a ``ps`` task on every host that the container starts itself. TF2's
  ParameterServerStrategy has no ``master``: its coordinator is the ``chief``. So ``master`` is
  renamed ``chief`` (same address, index 0): the first host coordinates through
  ClusterCoordinator and runs no training steps itself, each ``worker`` host runs a TF server that
  executes the steps the chief schedules, and the ``ps`` tasks hold the variables. A worker's
  script serves until the chief is gone, as the container's own wait for the master does.
- ``TF_CONFIG`` with workers only (``sagemaker_multi_worker_mirrored_strategy_enabled``):
  MultiWorkerMirroredStrategy, one replica set per host, gradients all-reduced.
- ``sagemaker_mpi_enabled`` in the framework parameters (the container runs mpirun): Horovod.
- ``sagemaker_distributed_dataparallel_enabled``: SMDDP's TensorFlow API (TF 2.3-2.11 images).
- otherwise one host: MirroredStrategy over its GPUs, OneDeviceStrategy on a CPU.

Standard library only, so the choice can be checked without TensorFlow.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import smenv

PS_CHIEF = "ps_chief"  # coordinates parameter-server training (SageMaker's master)
PS_WORKER = "ps_worker"  # serves the steps the chief schedules
MULTI_WORKER = "multi_worker_mirrored"
HOROVOD = "horovod"
SMDDP = "smddp"
MIRRORED = "mirrored"  # one host, every local GPU
ONE_DEVICE = "one_device"  # one host, CPU


@dataclass(frozen=True)
class Role:
    """This process's part in the job, with the TF2 cluster it belongs to (None: no cluster)."""

    kind: str
    cluster: dict[str, list[str]] | None = None
    task_type: str | None = None
    task_index: int = 0
    sagemaker_roles: dict[str, str] = field(default_factory=dict)  # TF1 name -> TF2 name used

    @property
    def is_chief(self) -> bool:
        """The process that logs, checkpoints and saves the model."""
        if self.kind == PS_WORKER:
            return False
        return self.task_type in (None, "chief") or (
            self.task_type == "worker" and self.task_index == 0
        )

    @property
    def chief_address(self) -> str | None:
        return (self.cluster or {}).get("chief", [None])[0]


def tf2_cluster(tf_config: Mapping[str, Any]) -> tuple[dict[str, list[str]], str, int]:
    """SageMaker's TF_CONFIG in TF2 terms: ``master`` becomes ``chief`` (see the module doc)."""
    cluster = {str(job): list(addresses) for job, addresses in tf_config["cluster"].items()}
    task = tf_config.get("task", {})
    task_type, task_index = str(task.get("type", "worker")), int(task.get("index", 0))
    if "master" in cluster:
        cluster["chief"] = cluster.pop("master")
        if task_type == "master":
            task_type = "chief"
    return cluster, task_type, task_index


def role(environ: Mapping[str, str], framework_params: Mapping[str, object], gpus: int) -> Role:
    """The strategy the container's setup asks for (see the module doc)."""
    raw = environ.get("TF_CONFIG")
    if raw:
        try:
            tf_config = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise smenv.UsageError(f"TF_CONFIG is not valid JSON: {exc}") from None
        cluster, task_type, index = tf2_cluster(tf_config)
        renamed = {"master": "chief"} if "master" in tf_config.get("cluster", {}) else {}
        if "ps" in cluster:
            if task_type == "ps":
                raise smenv.UsageError("this script is the worker; the container runs the ps")
            kind = PS_CHIEF if task_type == "chief" else PS_WORKER
            return Role(kind, cluster, task_type, index, renamed)
        return Role(MULTI_WORKER, cluster, task_type, index, renamed)
    if _enabled(framework_params, "sagemaker_mpi_enabled"):
        return Role(HOROVOD)
    if _enabled(framework_params, "sagemaker_distributed_dataparallel_enabled"):
        return Role(SMDDP)
    return Role(MIRRORED if gpus > 0 else ONE_DEVICE)


def _enabled(params: Mapping[str, object], key: str) -> bool:
    value = params.get(key, False)
    return smenv.parse_bool(str(value)) if value not in (None, "") else False


def wait_until_down(address: str, *, poll_s: float = 0.5, start_timeout_s: float = 600.0) -> None:
    """Block until nothing listens at ``address`` any more, after it has listened once (the
    container's ``_wait_until_master_is_down``, without curl)."""
    host, port = address.rsplit(":", 1)
    seen, deadline = False, time.monotonic() + start_timeout_s
    while True:
        up = _listening(host, int(port))
        if seen and not up:
            return
        seen = seen or up
        if not seen and time.monotonic() > deadline:
            raise smenv.UsageError(f"the chief at {address} never came up")
        time.sleep(poll_s)


def _listening(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=2):
            return True
    except OSError:
        return False

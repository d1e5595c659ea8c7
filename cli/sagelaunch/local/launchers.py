"""The container's launcher per strategy, as one command per emulated host.

- ``none`` (and XGBoost): ``python entry.py ARGS`` on every host, as the toolkit's ProcessRunner.
- ``torchrun``, ``smddp``, ``smp`` v2: one ``torchrun`` per host with ``--nnodes/--node_rank`` and
  the master at 127.0.0.1, as TorchDistributedRunner (SMDDP needs GPUs and EFA; on this machine the
  entry point picks its fallback backend and says so).
- ``mpi``, ``smp`` v1: Open MPI's ``mpirun`` on the first host starting every rank, as the toolkit's
  MasterRunner (the other hosts only wait there); without Open MPI, the torchrun equivalent.

Commands use this interpreter (``sys.executable``), so the venv's torch and xgboost run.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass

LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class Launch:
    kind: str  # python | torchrun | mpirun
    processes_per_host: int
    warning: str | None = None


def choose(topology_launcher: str, strategy: str, processes_per_host: int) -> Launch:
    """The launcher for the planned topology (plan.topology.launcher)."""
    if topology_launcher in {"python", "xgboost"}:
        ignored = f"{strategy} runs one process per host; processes_per_host is ignored"
        return Launch("python", 1, ignored if processes_per_host > 1 else None)
    if topology_launcher == "mpirun" and strategy != "smddp":
        if open_mpi_available():
            return Launch("mpirun", processes_per_host)
        return Launch(
            "torchrun",
            processes_per_host,
            f"{strategy}: Open MPI's mpirun is not installed here; "
            "running the torchrun equivalent (same ranks and world size)",
        )
    return Launch("torchrun", processes_per_host)


def open_mpi_available() -> bool:
    if shutil.which("mpirun") is None:
        return False
    try:
        version = subprocess.run(
            ["mpirun", "--version"], capture_output=True, text=True, timeout=10
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "Open MPI" in version or "OpenRTE" in version


def host_command(
    launch: Launch,
    *,
    entry_point: str,
    args: list[str],
    host_index: int,
    host_count: int,
    master_port: int,
) -> list[str] | None:
    """The command host ``host_index`` runs in its code/ folder (None: it only waits)."""
    script = [entry_point, *args]
    if launch.kind == "python":
        return [sys.executable, *script]
    if launch.kind == "mpirun":
        if host_index != 0:
            return None
        ranks = launch.processes_per_host * host_count
        return [
            *("mpirun", "--allow-run-as-root", "--oversubscribe", "--tag-output"),
            *("-np", str(ranks), sys.executable, *script),
        ]
    return [
        *(sys.executable, "-m", "torch.distributed.run"),
        *("--nnodes", str(host_count), "--nproc_per_node", str(launch.processes_per_host)),
        *("--node_rank", str(host_index), "--master_addr", LOOPBACK),
        *("--master_port", str(master_port), *script),
    ]

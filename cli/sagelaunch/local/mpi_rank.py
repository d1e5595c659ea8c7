"""Start one MPI rank as a process of its own emulated host, then become the real command.

    python -I -S mpi_rank.py RANKS_FILE -- python train.py ARGS

mpirun (see mpi.py) or its daemon on the rank's host (mpi_agent.py: already in that host's
network, where each host has its own) starts every rank of a local run on this one machine; rank
r belongs to host r // processes_per_host (``--map-by slot``). This wrapper moves into that
host's code folder, applies the host's environment (its /opt/ml paths, SM_CURRENT_HOST,
SM_TRAINING_ENV ...) over the first host's that mpirun passed, sets the host-local rank and size
(on a shared network Open MPI would count the whole machine), and execs the command, inside the
host's sandbox when the run has them (the ``bwrap ... --`` prefix in the ranks file): the entry
point sees what it would see in the container, its own host's /opt/ml included.

Run by path with the standard library only (no sagelaunch import), so each rank pays only a bare
interpreter start before the exec.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

# mpi_agent.py's, for mpirun's agents: not the job's.
AGENT_VARIABLES = {"SAGELAUNCH_MPI_RANKS", "SAGELAUNCH_MPI_PYTHON", "SAGELAUNCH_MPI_AGENT"}


def world_rank(environ: dict[str, str]) -> int:
    """This rank as Open MPI (or MPICH/Hydra) exported it."""
    for name in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"):
        if name in environ:
            return int(environ[name])
    raise SystemExit("mpi_rank.py: not started by mpirun (no OMPI_COMM_WORLD_RANK)")


def _host(plan: dict[str, Any], environ: dict[str, str]) -> dict[str, Any]:
    """This rank's host in the plan (``--map-by slot``: rank // processes_per_host)."""
    host: dict[str, Any] = plan["hosts"][world_rank(environ) // int(plan["processes_per_host"])]
    return host


def rank_environment(plan: dict[str, Any], environ: dict[str, str]) -> tuple[str, dict[str, str]]:
    """(working directory, environment) of this rank on its emulated host."""
    rank = world_rank(environ)
    per_host = int(plan["processes_per_host"])
    host = _host(plan, environ)
    env = {k: v for k, v in environ.items() if k not in {*host["unset"], *AGENT_VARIABLES}}
    env.update(host["env"])
    local = str(rank % per_host)
    env.update(
        OMPI_COMM_WORLD_LOCAL_RANK=local,
        OMPI_COMM_WORLD_NODE_RANK=local,
        OMPI_COMM_WORLD_LOCAL_SIZE=str(per_host),
    )
    return str(host["cwd"]), env


def rank_command(plan: dict[str, Any], environ: dict[str, str], command: list[str]) -> list[str]:
    """``command`` inside this rank's host sandbox: the host's ``bwrap ... --`` prefix, which
    sagelaunch computed (sandbox.rank_entry), or none when the sandbox is off."""
    return [*_host(plan, environ).get("sandbox", []), *command]


def main(argv: list[str]) -> None:
    if len(argv) < 4 or argv[2] != "--":
        raise SystemExit("usage: mpi_rank.py RANKS_FILE -- COMMAND [ARGS...]")
    with open(argv[1], encoding="utf-8") as handle:
        plan = json.load(handle)
    cwd, env = rank_environment(plan, dict(os.environ))
    os.chdir(cwd)
    command = rank_command(plan, dict(os.environ), argv[3:])
    os.execve(command[0], command, env)


if __name__ == "__main__":
    main(sys.argv)

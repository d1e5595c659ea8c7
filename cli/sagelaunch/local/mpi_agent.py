"""Put an MPI job's launcher or daemon on its emulated host: that host's network and host name.

    python -I -S mpi_agent.py --ranks RANKS_FILE HOST PROGRAM ARGS...   (sagelaunch: mpirun)
    python -I -S mpi_agent.py HOST COMMAND LINE...                      (PRRTE, in place of ssh)

In the container the first host runs ``mpirun --host algo-1:P,algo-2:P``, and PRRTE starts its
daemon (prted) on each other host over SSH. Here, where each host has a network namespace of its
own (network.py), sagelaunch starts mpirun through the first form, on the first host; mpirun's
launch agent (``plm_rsh_agent``, see mpi.py) is the second form, which PRRTE runs as it would
run ``ssh HOST COMMAND LINE``: the words joined by spaces and run by /bin/sh, as sshd runs
them. Both move into HOST's network namespace and the run's user namespace, through the host's
namespace holder (netns_keeper.py; its pid in the ranks file), and into a UTS namespace named
HOST, so that PRRTE finds itself on ``algo-1`` and its daemon on ``algo-2``. Each rank then
enters its host's sandbox (mpi_rank.py); the daemon itself stays outside it, as mpirun does
(sandbox.outside): from inside a sandbox no other host's namespaces can be entered.

PRRTE splits the agent's command at spaces, so the agent is given no file name: the first form
puts the ranks file's path in the environment, which mpirun passes on to every agent it starts.
Run by path with the standard library only, as mpi_rank.py: no sagelaunch import.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import socket
import sys

RANKS_VARIABLE = "SAGELAUNCH_MPI_RANKS"  # also in mpi_rank.py, which keeps it from the ranks
# This interpreter and this file, for the launch-agent line PRRTE runs (mpi.py `_agent`), where a
# path with a space cannot be written; also in mpi_rank.py, which keeps them from the ranks.
PYTHON_VARIABLE = "SAGELAUNCH_MPI_PYTHON"
SELF_VARIABLE = "SAGELAUNCH_MPI_AGENT"
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNS = 0x00020000
MS_REC, MS_PRIVATE = 0x4000, 0x40000
MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x2, 0x4, 0x8
PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)


def holder(ranks_file: str, host: str) -> int:
    """The pid whose namespaces are ``host``'s (the ranks file's, see mpi.write_ranks_file)."""
    with open(ranks_file, encoding="utf-8") as handle:
        plan = json.load(handle)
    for entry in plan["hosts"]:
        if entry["name"] == host and entry.get("holder"):
            return int(entry["holder"])
    raise SystemExit(f"mpi_agent.py: {host} is not a host of this job with a network of its own")


def enter(pid: int, host: str) -> None:
    """Into ``pid``'s user namespace (unless already there: mpirun's agents are) and network
    namespace, then a UTS namespace of ``host``'s name. A user namespace is entered only while
    single-threaded, which this script is."""
    for kind, flag in (("user", CLONE_NEWUSER), ("net", CLONE_NEWNET)):
        target = f"/proc/{pid}/ns/{kind}"
        if os.stat(target).st_ino == os.stat(f"/proc/self/ns/{kind}").st_ino:
            continue
        descriptor = os.open(target, os.O_RDONLY)
        try:
            if _libc.setns(descriptor, flag) != 0:
                raise OSError(ctypes.get_errno(), f"mpi_agent.py: cannot enter {host}'s {kind}")
        finally:
            os.close(descriptor)
    if _libc.unshare(CLONE_NEWUTS) != 0:
        raise OSError(ctypes.get_errno(), "mpi_agent.py: no UTS namespace")
    socket.sethostname(host)


def die_with_parent() -> None:
    """SIGKILL when the parent goes, as netns_keeper.die_with_parent."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() == 1:
        os._exit(1)


def run_daemon(command: list[str]) -> int:
    """``command`` (the daemon's shell line) in a PID namespace of its own; its exit code. The
    daemon daemonizes (the toolkit's ``plm_rsh_no_tree_spawn``), out of this agent's reach but
    not of its namespace's first process, which waits for every process in it and takes them
    all along when it dies, the host's ranks included: it dies with this agent, and this agent
    with mpirun (which dies with sagelaunch). So a kill -9 of sagelaunch leaves nothing even
    where the daemon misses mpirun's end (its lifeline: the run's bridge may be gone first).
    The agent stays while the daemon runs, as ssh does for an attached one, and ignores the
    run's SIGTERM: the daemon gets its own, and stops its ranks gracefully."""
    if _libc.unshare(CLONE_NEWPID) != 0:
        raise OSError(ctypes.get_errno(), "mpi_agent.py: no PID namespace")
    first = os.fork()
    if first == 0:
        die_with_parent()
        _own_proc()
        os._exit(_reap(command))
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    _, status = os.waitpid(first, 0)
    return os.waitstatus_to_exitcode(status) % 256


def _own_proc() -> None:
    """/proc of the new PID namespace, in a mount namespace of its own: the daemon and the
    ranks' bwrap find themselves in /proc by their own pids (in the machine's /proc, bwrap
    fails: "open /proc/23/ns/ns failed")."""
    if _libc.unshare(CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "mpi_agent.py: no mount namespace")
    mounts = [(None, b"/", None, MS_REC | MS_PRIVATE), (b"proc", b"/proc", b"proc", MS_NOSUID)]
    for source, target, kind, flags in mounts:
        if _libc.mount(source, target, kind, flags | (MS_NODEV | MS_NOEXEC if kind else 0), None):
            raise OSError(ctypes.get_errno(), f"mpi_agent.py: cannot mount {target.decode()}")


def _reap(command: list[str]) -> int:
    """As the PID namespace's first process: run ``command``, then wait for every process the
    namespace gets (the daemon, once it leaves the shell) until none is left; the shell's code."""
    shell = os.fork()
    if shell == 0:
        try:
            os.execv(command[0], command)
        finally:
            os._exit(127)
    code = 0
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            return code
        if pid == shell:
            code = os.waitstatus_to_exitcode(status) % 256


def main(argv: list[str]) -> None:
    if len(argv) >= 5 and argv[1] == "--ranks":
        ranks_file, host = argv[2], argv[3]
        os.environ[RANKS_VARIABLE] = os.path.abspath(ranks_file)
        os.environ[PYTHON_VARIABLE] = sys.executable
        os.environ[SELF_VARIABLE] = os.path.abspath(__file__)
        enter(holder(ranks_file, host), host)
        os.execvp(argv[4], argv[4:])  # mpirun, which dies with sagelaunch (its preexec_fn)
    if len(argv) < 3 or RANKS_VARIABLE not in os.environ:
        raise SystemExit(
            "usage: mpi_agent.py --ranks RANKS_FILE HOST PROGRAM [ARGS...] | HOST COMMAND..."
            f" (the second with {RANKS_VARIABLE} set)"
        )
    die_with_parent()
    enter(holder(os.environ[RANKS_VARIABLE], argv[1]), argv[1])
    sys.exit(run_daemon(["/bin/sh", "-c", " ".join(argv[2:])]))


if __name__ == "__main__":
    main(sys.argv)

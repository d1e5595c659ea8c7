"""The run's network, made inside the run's own user namespace (see network.py, which starts it).

    unshare --user --map-root-user --net --kill-child -- python -I -S netns_keeper.py N

Root of a user namespace of its own (never of the machine), it builds what a container engine
builds for N containers: a bridge in the run's network namespace and, per host, a network
namespace holding one end of a veth pair (``eth0``, with the host's address; the other end on
the bridge) and its loopback. Each namespace is held by a child process that only waits; their
process ids go out as one JSON line on stdout (``{"holders": [...]}``), and sagelaunch enters
a host's namespaces through its holder (``nsenter``). When stdin closes (sagelaunch is done, or
dead: every process here also dies with its parent), the keeper exits and its holders with it.

Run by path with the standard library only, as mpi_rank.py: no sagelaunch import.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys

CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
BRIDGE = "br0"
INTERFACE = "eth0"  # the host's side, as the container's
PREFIX = 16
_libc = ctypes.CDLL(None, use_errno=True)


def address(index: int) -> str:
    """Host ``index``'s address (from 0) on the bridge: 198.18.0.0/16, a range set aside for
    network tests (RFC 2544), so it never meets a network the machine is on."""
    return f"198.18.{index // 254}.{index % 254 + 1}"


def die_with_parent() -> None:
    """SIGKILL when the parent goes, whichever way it goes (kill -9 included). Also sagelaunch's
    preexec_fn for every process a run starts: there the parent is the thread that started it."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() == 1:  # the parent was gone before the request took
        os._exit(1)


def hold_namespace() -> int:
    """A child in a new network namespace that waits until it is killed; its pid."""
    ready, told = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(ready)
        die_with_parent()
        if _libc.unshare(CLONE_NEWNET) != 0:
            os._exit(1)
        os.write(told, b"1")
        os.close(told)
        while True:
            signal.pause()
    os.close(told)
    answer = os.read(ready, 1)
    os.close(ready)
    if answer != b"1":
        raise OSError(f"a network namespace could not be made (errno {ctypes.get_errno()})")
    return pid


def ip(commands: list[str], pid: int | None = None) -> None:
    """``ip -batch`` of ``commands``, in ``pid``'s network namespace when given."""
    enter = ["nsenter", f"--net=/proc/{pid}/ns/net"] if pid is not None else []
    done = subprocess.run(
        [*enter, "ip", "-batch", "-"],
        input="\n".join(commands) + "\n",
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise OSError(f"ip: {done.stderr.strip() or done.stdout.strip()}")


def build(count: int) -> list[int]:
    """The bridge and ``count`` host namespaces on it; their holders' pids."""
    ip(["link set lo up", f"link add {BRIDGE} type bridge", f"link set {BRIDGE} up"])
    holders = []
    for index in range(count):
        pid = hold_namespace()
        veth = f"h{index}"
        ip([f"link add {veth} type veth peer name {INTERFACE} netns {pid}",
            f"link set {veth} master {BRIDGE} up"])  # fmt: skip
        ip(["link set lo up", f"addr add {address(index)}/{PREFIX} dev {INTERFACE}",
            f"link set {INTERFACE} up"], pid)  # fmt: skip
        holders.append(pid)
    return holders


def main(argv: list[str]) -> int:
    die_with_parent()
    try:
        holders = build(int(argv[1]))
    except (OSError, ValueError, IndexError) as error:
        print(json.dumps({"error": str(error)}), flush=True)
        return 1
    print(json.dumps({"holders": holders}), flush=True)
    sys.stdin.read()  # until sagelaunch closes it, or dies
    for pid in holders:  # gone before the keeper is: nothing of the run outlives its end
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""Ports for one local run, chosen free on loopback per run so that reruns never collide.

A fixed port (torchrun's 29500, XGBoost's 9099) stays in TIME_WAIT for a minute after a run, and
two runs at once would want the same one. A port the kernel picks (``bind(0)``) is no better: it
comes from the ephemeral range, which the kernel also hands to every outgoing connection, so
between our choice and the job's ``listen()`` another process's ``connect()`` may take it
(seen under load: torch's TCPStore failing with EADDRINUSE). So a listening port comes from
below the ephemeral range, where the kernel never assigns one on its own, and is leased for a
while, so that two sagelaunch processes (two runs at once, a test suite's workers) never choose
the same port before either listens on it.

The lease is a UDP socket this process binds to the same port on loopback: the jobs listen on
TCP, which is a port space of its own, and a second process's bind of the same UDP port fails
until the lease is given up. Nothing is written anywhere: the kernel releases a lease when its
socket is closed, which happens when the lease lapses, or when the process ends in any way
(exit, Ctrl-C, SIGTERM, even SIGKILL), so no lease ever outlives its run. (Earlier versions
leased through lock files in the temporary directory that nothing removed; the lapsed ones
are cleared once per process.)
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

LOOPBACK = "127.0.0.1"
# The XGBoost entry point reads its tracker port here when no tracker_port hyperparameter is
# given (absent in the container: 9099 there). It uses this port and the next one.
TRACKER_PORT_VARIABLE = "SAGELAUNCH_XGBOOST_TRACKER_PORT"

_LOWEST = 20_000  # above the registered services people run on a workstation
_EPHEMERAL = Path("/proc/sys/net/ipv4/ip_local_port_range")
_EPHEMERAL_DEFAULT = 32_768  # Linux's default start; macOS's range starts higher (49152)
# A chosen port is bound within seconds; the lease outlives that by far, then lapses by itself.
_LEASE_S = 300
_ATTEMPTS = 2_000

_held: dict[int, tuple[socket.socket, float]] = {}  # port -> (its lease, when it was taken)
_lock = threading.Lock()  # a sweep's trials choose ports from several threads
_legacy_cleared = False


def free_port() -> int:
    """A port no socket on loopback holds now, leased to this process."""
    with _lock:
        _prepare()
        for port in _candidates():
            if _take(port, port):
                return port
    raise OSError(f"no free port on {LOOPBACK} below {_ephemeral_start()}")


def free_port_pair() -> int:
    """A port p with p and p + 1 both free and leased (XGBoost's tracker restarts on p + 1)."""
    with _lock:
        _prepare()
        for port in _candidates():
            if _take(port, port + 1):
                return port
    raise OSError(f"no two consecutive free ports on {LOOPBACK} below {_ephemeral_start()}")


def release(port: int) -> None:
    """Give up this process's lease of ``port`` now (it lapses by itself otherwise)."""
    with _lock:
        held = _held.pop(port, None)
    if held:
        held[0].close()


def held() -> list[int]:
    """The ports this process leases now."""
    with _lock:
        return sorted(_held)


def _take(first: int, last: int) -> bool:
    """Lease ports ``first``..``last`` if every one is unleased and free, else none of them."""
    leases: list[socket.socket] = []
    for port in range(first, last + 1):
        lease = _lease(port)
        if lease is not None:
            leases.append(lease)
        if lease is None or not _bindable(port):
            for taken in leases:
                taken.close()
            return False
    now = time.monotonic()
    _held.update({first + i: (lease, now) for i, lease in enumerate(leases)})
    return True


def _lease(port: int) -> socket.socket | None:
    """The lease of ``port`` (a UDP socket bound to it), or None while someone holds it."""
    if port in _held:
        return None
    lease = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        lease.bind((LOOPBACK, port))
    except OSError:
        lease.close()
        return None
    return lease


def _prepare() -> None:
    """Let this process's lapsed leases go; the first time, clear the old lease files."""
    global _legacy_cleared
    now = time.monotonic()
    for port, (lease, taken) in list(_held.items()):
        if now - taken >= _LEASE_S:
            lease.close()
            del _held[port]
    if not _legacy_cleared:
        _legacy_cleared = True
        clear_legacy_leases()


def _candidates() -> Iterator[int]:
    """Ports below the ephemeral range, from a random start so that callers spread out."""
    top = _ephemeral_start() - 1  # the last port tried is top - 1, so port + 1 stays below
    span = top - _LOWEST
    start = random.randrange(span)
    for offset in range(min(_ATTEMPTS, span)):
        yield _LOWEST + (start + offset) % span


def _ephemeral_start() -> int:
    try:
        return int(_EPHEMERAL.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return _EPHEMERAL_DEFAULT


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind((LOOPBACK, port))
        except OSError:
            return False
    return True


# --- the lease files of earlier versions ---------------------------------------------------------


def legacy_lease_dir() -> Path:
    """Where earlier versions kept a lock file per leased port (one folder per user)."""
    return Path(tempfile.gettempdir()) / f"sagelaunch-ports-{os.getuid()}"


def clear_legacy_leases() -> None:
    """Remove the old lease files whose lease lapsed or whose process is gone (none of them was
    ever removed), then their folder once it is empty. A file another process has locked, or
    one a live process leased less than a lease ago, stays."""
    folder = legacy_lease_dir()
    try:
        entries = list(folder.iterdir())
    except OSError:
        return
    for path in entries:
        with contextlib.suppress(OSError), path.open("r") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # being written by an earlier version's process right now
            fresh = time.time() - os.fstat(handle.fileno()).st_mtime < _LEASE_S
            if not (fresh and _alive(handle.read().strip())):
                path.unlink()
    with contextlib.suppress(OSError):
        folder.rmdir()  # only when empty


def _alive(pid_text: str) -> bool:
    try:
        pid = int(pid_text)
        if pid <= 0:
            return False
        os.kill(pid, 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True  # another user's process: alive
    return True

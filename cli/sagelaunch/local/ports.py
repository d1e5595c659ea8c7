"""Ports for one local run, chosen free on loopback per run so that reruns never collide.

A fixed port (torchrun's 29500, XGBoost's 9099) stays in TIME_WAIT for a minute after a run, and
two runs at once would want the same one. A port the kernel picks (``bind(0)``) is no better: it
comes from the ephemeral range, which the kernel also hands to every outgoing connection, so
between our choice and the job's ``listen()`` another process's ``connect()`` may take it
(seen under load: torch's TCPStore failing with EADDRINUSE). So a listening port comes from
below the ephemeral range, where the kernel never assigns one on its own, and is leased for a
while through a lock file, so that two sagelaunch processes (two runs at once, a test suite's
workers) never choose the same port before either listens on it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

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


def free_port() -> int:
    """A port no socket on loopback holds now, leased to this caller."""
    for port in _candidates():
        if _lease(port) and _bindable(port):
            return port
    raise OSError(f"no free port on {LOOPBACK} below {_ephemeral_start()}")


def free_port_pair() -> int:
    """A port p with p and p + 1 both free and leased (XGBoost's tracker restarts on p + 1)."""
    for port in _candidates():
        if _lease(port) and _lease(port + 1) and _bindable(port) and _bindable(port + 1):
            return port
    raise OSError(f"no two consecutive free ports on {LOOPBACK} below {_ephemeral_start()}")


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


def _lease(port: int) -> bool:
    """Take ``port``'s lease unless another process holds a live one (lock file's mtime)."""
    path = _lease_dir() / str(port)
    with _locked(path) as handle:
        if handle is None:
            return False
        held = os.fstat(handle.fileno())
        if held.st_size and time.time() - held.st_mtime < _LEASE_S:
            return False
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))  # size > 0 and a fresh mtime: leased
    return True


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[TextIO | None]:
    """``path`` open for writing under an exclusive lock, or None while another holds it."""
    with path.open("a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield None
            return
        yield handle


def _lease_dir() -> Path:
    """One folder per user in the temporary directory: sagelaunch's own, never the user's."""
    folder = Path(tempfile.gettempdir()) / f"sagelaunch-ports-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder

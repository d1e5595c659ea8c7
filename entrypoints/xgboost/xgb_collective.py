"""XGBoost's tracker and collective, the same way across the versions the containers ship.

SageMaker's 1.7-1 container has XGBoost 1.7, whose tracker is pure Python (``start(n_workers)``,
``worker_envs()``, ``join()``) and whose workers take upper-case ``DMLC_*`` arguments; 2.1 and
later (3.0-5 has 3.x) have a native tracker (``start()``, ``worker_args()``, ``wait_for()``) and
lower-case ``dmlc_*`` arguments. Everything that differs lives here, detected by feature rather
than by version string (2.0 goes the 1.7 way).

Ranks follow the host order: every worker passes its index as the task id and the tracker sorts by
task, so rank 0 is the first host on every run, not whichever connected first.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

# The tracker gives up when not every worker has joined (or left) within this time, so a host
# that died before connecting fails the job instead of holding it until MaxRuntimeInSeconds.
BOOTSTRAP_TIMEOUT_S = 1800
# Workers retry a tracker that is not listening yet; 3.x waits 2 s longer after each try,
# so 15 tries cover about four minutes of hosts starting at different times.
CONNECT_RETRIES = 15
# After an error, how long the tracker's host waits for the other hosts to leave the group.
SHUTDOWN_GRACE_S = 60
# The kernel's tables of TCP sockets, where a tracker on this machine shows as listening.
_SOCKET_TABLES = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))
_LISTEN = "0A"  # the state column's value for a listening socket
_LOOK_EVERY_S = 0.02

log = logging.getLogger(__name__)


def _native_tracker() -> bool:
    from xgboost.tracker import RabitTracker

    return hasattr(RabitTracker, "worker_args")


def resolve(host: str, timeout_s: float = 300.0) -> str:
    """The IP address of a host name; SageMaker's ``algo-N`` names can take a while to resolve
    when the job starts, so keep trying (as the container's ``wait_hostname_resolution`` does)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return str(socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)[0][4][0])
        except socket.gaierror:
            if time.monotonic() > deadline:
                raise
            time.sleep(1.0)


def wait_for_local_tracker(tracker_ip: str, port: int, timeout_s: float = 240.0) -> None:
    """On one machine (``sagelaunch local``: the tracker is on loopback), wait until the tracker
    listens before joining. A worker that finds no tracker tries again only after XGBoost's
    back-off (3.x: 2 s, then 4 s more), which a busy laptop, where hosts start in any order,
    turns into seconds of waiting for nothing.

    Looked up in the kernel's socket table, never by connecting: a connection that sends no
    handshake fails XGBoost 2's tracker ("Failed to initialize worker proxy") and hangs 1.7's.
    On SageMaker the tracker is on another host and the worker relies on XGBoost's retries;
    so it does where there is no /proc, or after ``timeout_s``."""
    if not ipaddress.ip_address(tracker_ip).is_loopback or not _SOCKET_TABLES[0].exists():
        return
    if _listening(port):
        return
    log.info("waiting for the tracker to listen on %s:%d", tracker_ip, port)
    deadline = time.monotonic() + timeout_s
    while not _listening(port) and time.monotonic() < deadline:
        time.sleep(_LOOK_EVERY_S)


def _listening(port: int) -> bool:
    wanted = f":{port:04X}"
    for table in _SOCKET_TABLES:
        with contextlib.suppress(OSError):
            for row in table.read_text().splitlines()[1:]:
                fields = row.split()
                if fields[1].endswith(wanted) and fields[3] == _LISTEN:
                    return True
    return False


def task_id(index: int) -> str:
    """Zero-padded, so that trackers sorting ids as strings (1.7 does) keep the host order."""
    return f"{index:06d}"


class Tracker:
    """XGBoost's tracker for ``n_workers`` workers, listening on ``host_ip:port`` once built.

    As a context manager it waits on exit until every worker has left the group, so no worker
    finds the tracker gone while it shuts down; after an error only for ``SHUTDOWN_GRACE_S``.
    """

    def __init__(self, host_ip: str, port: int, n_workers: int) -> None:
        from xgboost.tracker import RabitTracker

        self._tracker: Any
        if _native_tracker():
            self._tracker = RabitTracker(
                n_workers=n_workers,
                host_ip=host_ip,
                port=port,
                sortby="task",
                timeout=BOOTSTRAP_TIMEOUT_S,
            )
            self._tracker.start()
        else:
            self._tracker = RabitTracker(
                host_ip=host_ip, n_workers=n_workers, port=port, sortby="task"
            )
            self._tracker.start(n_workers)

    def wait(self, timeout_s: int | None = None) -> None:
        """Block until every worker has left the group (3.x raises after ``timeout_s``)."""
        if hasattr(self._tracker, "wait_for"):
            self._tracker.wait_for(timeout_s)
        elif self._tracker.thread is not None:
            self._tracker.thread.join(timeout_s)

    def __enter__(self) -> Tracker:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *_: object) -> None:
        if exc_type is None:
            self.wait()
            return
        with contextlib.suppress(Exception):  # the job fails anyway; its own error matters
            self.wait(SHUTDOWN_GRACE_S)


def worker_args(tracker_ip: str, port: int, index: int) -> dict[str, str | int]:
    """``collective.init``'s arguments for task ``index`` of the tracker at ``tracker_ip:port``."""
    if _native_tracker():
        return {
            "dmlc_tracker_uri": tracker_ip,
            "dmlc_tracker_port": port,
            "dmlc_task_id": task_id(index),
            "dmlc_retry": CONNECT_RETRIES,
        }
    return {
        "DMLC_TRACKER_URI": tracker_ip,
        "DMLC_TRACKER_PORT": port,
        "DMLC_TASK_ID": task_id(index),
        "DMLC_WORKER_CONNECT_RETRY": CONNECT_RETRIES,
    }


@contextlib.contextmanager
def joined(tracker_ip: str, port: int, index: int) -> Iterator[None]:
    """Be worker ``index`` of the group at ``tracker_ip:port`` for the body of the ``with``.

    On an error the worker still leaves the group properly: its peers' next collective call then
    fails at once instead of waiting, and XGBoost 3 crashes at exit when a group is left open.
    """
    from xgboost import collective

    wait_for_local_tracker(tracker_ip, port)
    # CommunicatorContext for the arguments it completes (the NCCL path of GPU builds).
    collective.init(**collective.CommunicatorContext(**worker_args(tracker_ip, port, index)).args)
    try:
        rank = collective.get_rank()
        if rank != index:
            raise RuntimeError(f"the tracker made worker {index} rank {rank}; ranks follow hosts")
        yield
    except BaseException:
        with contextlib.suppress(Exception):  # keep the error that brought us here
            collective.finalize()
        raise
    collective.finalize()


def allreduce_max(values: np.ndarray) -> np.ndarray:
    """Element-wise maximum over all workers (int64 and float64 work in every version)."""
    from xgboost import collective

    return np.asarray(collective.allreduce(np.ascontiguousarray(values), collective.Op.MAX))


def broadcast(value: Any, root: int = 0) -> Any:
    """``value`` from worker ``root`` on every worker (XGBoost pickles it; None is fine too)."""
    from xgboost import collective

    return collective.broadcast([value], root)[0]

"""The container's Rabit helpers (``sagemaker_xgboost_container.distributed``), as its script-mode
examples call them: ``wait_hostname_resolution(hosts)`` and ``rabit_run(exec_fun, args,
include_in_training, hosts, current_host, ...)``, with the ``Rabit`` context manager beneath.

Same contract as the container's module: the tracker on the lexicographically first host, ranks in
host order; a first group of every host agrees which hosts have data, a host without any leaves
(exit 0), and the hosts with data train in a second group on the next port, ``exec_fun(**args)``
getting ``is_master`` when ``update_rabit_args``. Built on the shipped XGBoost entry point's own
tracker and collective code (``xgb_collective``, the same file), which works across XGBoost 1.7,
2.x and 3.x and waits for a tracker on this machine without a handshake-less connection (that
fails XGBoost 2's tracker).

Locally, host names resolve in each host's sandbox as in the container; where a run has no
sandbox, a host of the job (SM_HOSTS) that does not resolve is this machine's loopback, as every
emulated host is. The first port is the container's 9099 unless given; under ``sagelaunch local``
the run's own leased pair (``SAGELAUNCH_XGBOOST_TRACKER_PORT``), so two runs at once never meet.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from typing import Any

from _stand_in_hosts import LOOPBACK, address, wait_hostname_resolution

from sagemaker_xgboost_container import xgb_collective

__all__ = ["LOCAL_HOSTNAME", "Rabit", "RabitHelper", "rabit_run", "wait_hostname_resolution"]

LOCAL_HOSTNAME = "127.0.0.1"  # the container's name for this machine when a run has no hosts
CONTAINER_PORT = 9099
PORT_VARIABLE = "SAGELAUNCH_XGBOOST_TRACKER_PORT"

log = logging.getLogger(__name__)


def rabit_run(
    exec_fun: Callable[..., Any],
    args: dict[str, Any],
    include_in_training: bool,
    hosts: list[str],
    current_host: str,
    first_port: int | None = None,
    second_port: int | None = None,
    max_connect_attempts: int | None = None,
    connect_retry_timeout: int = 3,
    update_rabit_args: bool = False,
) -> None:
    """``exec_fun(**args)`` inside a group of the hosts that have training data."""
    with Rabit(hosts, current_host, port=first_port) as everyone:
        records = everyone.synchronize(
            {"host": current_host, "include_in_training": include_in_training}
        )
        port = everyone.master_port
    with_data = [record["host"] for record in records if record["include_in_training"]]
    if not include_in_training:
        log.warning("Host %s not being used for distributed training.", current_host)
        sys.exit(0)
    if len(with_data) > 1:
        with Rabit(with_data, current_host, port=second_port or port + 1) as cluster:
            if update_rabit_args:
                args.update({"is_master": cluster.is_master})
            exec_fun(**args)
    elif len(with_data) == 1:
        if update_rabit_args:
            args.update({"is_master": True})
        exec_fun(**args)
    else:
        raise RuntimeError("No hosts received training data.")


class RabitHelper:
    """What a group's member knows: its rank, whether it is the master, the tracker's port."""

    def __init__(self, is_master: bool, current_host: str, master_port: int) -> None:
        self.is_master = is_master
        self.current_host = current_host
        self.master_port = master_port
        self.rank, self.world_size = 0, 1
        if xgb_collective_initialised():
            from xgboost import collective

            self.rank, self.world_size = collective.get_rank(), collective.get_world_size()

    def synchronize(self, data: Any) -> list[Any]:
        """Every member's ``data``, in rank order, on every member."""
        if self.world_size == 1:
            return [data]
        return [
            xgb_collective.broadcast(data if rank == self.rank else None, rank)
            for rank in range(self.world_size)
        ]


def xgb_collective_initialised() -> bool:
    from xgboost import collective

    return bool(collective.is_distributed())


class Rabit:
    """A group of ``hosts`` (sorted; the first runs the tracker) for the body of a ``with``."""

    def __init__(
        self,
        hosts: list[str],
        current_host: str | None = None,
        master_host: str | None = None,
        port: int | None = None,
        max_connect_attempts: int | None = None,
        connect_retry_timeout: int = 3,
    ) -> None:
        # max_connect_attempts and connect_retry_timeout are the container's own arguments,
        # accepted as it accepts them; the wait for the tracker is xgb_collective's (no
        # handshake-less connection, which fails XGBoost 2's tracker).
        self.hosts = sorted(hosts)
        self.current_host = current_host or LOOPBACK
        self.master_host = master_host or self.hosts[0]
        self.is_master_host = self.current_host == self.master_host
        self.port = port or int(os.environ.get(PORT_VARIABLE) or CONTAINER_PORT)
        self._tracker: xgb_collective.Tracker | None = None
        self._member: Any = None

    def start(self) -> RabitHelper:
        if len(self.hosts) > 1:
            tracker_ip = address(self.master_host)
            if self.is_master_host:
                self._tracker = xgb_collective.Tracker(tracker_ip, self.port, len(self.hosts))
            index = self.hosts.index(self.current_host)
            self._member = xgb_collective.joined(tracker_ip, self.port, index)
            self._member.__enter__()
        return RabitHelper(self.is_master_host, self.current_host, self.port)

    def stop(self, *error: Any) -> None:
        """Leave the group; the tracker's host then waits until every member has left (after
        an error, ``error`` being ``sys.exc_info()``'s three, only for a grace period)."""
        error = error or (None, None, None)
        if self._member is not None:
            self._member.__exit__(*error)
            self._member = None
        if self._tracker is not None:
            self._tracker.__exit__(*error)
            self._tracker = None

    def __enter__(self) -> RabitHelper:
        return self.start()

    def __exit__(self, *error: Any) -> None:
        self.stop(*error)

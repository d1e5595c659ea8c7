"""Host names as the containers' libraries resolve them, for sagelaunch's stand-ins.

In each emulated host's sandbox every host of the job resolves (its /etc/hosts), as in the
container. Where a local run has no sandbox, a host of the job (SM_HOSTS) that does not resolve is
this machine's loopback, as every emulated host is; other names fail as they would anywhere.
"""

from __future__ import annotations

import json
import os
import socket
import time

LOOPBACK = "127.0.0.1"
RESOLVE_TIMEOUT_S = 15 * 60  # the containers' DNS retries give up after 15 minutes


def job_hosts() -> list[str]:
    return list(json.loads(os.environ.get("SM_HOSTS", "[]")))


def address(host: str) -> str:
    """``host``'s address: resolved, or loopback for a host of this local job that has no name."""
    try:
        return socket.gethostbyname(host)
    except OSError:
        if host in job_hosts():
            return LOOPBACK
        raise


def wait_hostname_resolution(hosts: list[str]) -> None:
    """Until every name in ``hosts`` resolves (the containers retry while the cluster boots)."""
    for host in hosts:
        deadline = time.monotonic() + RESOLVE_TIMEOUT_S
        while True:
            try:
                address(host)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(1.0)

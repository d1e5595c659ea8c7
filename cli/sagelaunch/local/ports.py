"""Ports for one local run, chosen free on loopback per run so that reruns never collide.

A fixed port (torchrun's 29500, XGBoost's 9099) stays in TIME_WAIT for a minute after a run, and
two runs at once would want the same one; the kernel's ephemeral choice avoids both.
"""

from __future__ import annotations

import socket

LOOPBACK = "127.0.0.1"
# The XGBoost entry point reads its tracker port here when no tracker_port hyperparameter is
# given (absent in the container: 9099 there). It uses this port and the next one.
TRACKER_PORT_VARIABLE = "SAGELAUNCH_XGBOOST_TRACKER_PORT"


def free_port() -> int:
    """A port no socket on loopback holds now."""
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


def free_port_pair(attempts: int = 100) -> int:
    """A port p with p and p + 1 both free (XGBoost's tracker restarts on p + 1)."""
    for _ in range(attempts):
        with socket.socket() as first:
            first.bind((LOOPBACK, 0))
            port = int(first.getsockname()[1])
            if port >= 65535:
                continue
            with socket.socket() as second:
                try:
                    second.bind((LOOPBACK, port + 1))
                except OSError:
                    continue
            return port
    raise OSError("no two consecutive free ports on 127.0.0.1")

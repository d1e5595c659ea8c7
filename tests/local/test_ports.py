"""Listening ports for local runs: never from the kernel's ephemeral range (which outgoing
connections share, so a port chosen there can be taken before the job listens: EADDRINUSE), and
never the same one for two processes choosing at once."""

from __future__ import annotations

import socket
import subprocess
import sys

from sagelaunch.local import ports

CHOOSE = "from sagelaunch.local import ports; print(*(ports.free_port() for _ in range(200)))"


def _ephemeral_start() -> int:
    with open("/proc/sys/net/ipv4/ip_local_port_range") as handle:
        return int(handle.read().split()[0])


def test_ports_come_from_below_the_ephemeral_range():
    chosen = [ports.free_port() for _ in range(50)] + [ports.free_port_pair() + 1]
    assert all(1024 < port < _ephemeral_start() for port in chosen)


def test_two_processes_choosing_at_once_never_get_the_same_port():
    runs = [
        subprocess.Popen([sys.executable, "-c", CHOOSE], stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    first, second = ({int(p) for p in run.communicate()[0].split()} for run in runs)
    assert len(first) == len(second) == 200 and not first & second


def test_a_port_in_use_is_never_chosen(monkeypatch):
    with socket.socket() as held:
        held.bind((ports.LOOPBACK, 0))
        taken = held.getsockname()[1]
        # taken is tried first (an ephemeral port: nobody leased it), then its neighbours
        monkeypatch.setattr(ports, "_candidates", lambda: iter([taken, taken + 1, taken + 2]))
        assert ports.free_port() in (taken + 1, taken + 2)

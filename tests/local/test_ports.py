"""Listening ports for local runs: never from the kernel's ephemeral range (which outgoing
connections share, so a port chosen there can be taken before the job listens: EADDRINUSE), and
never the same one for two processes choosing at once."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile

import pytest

from sagelaunch.local import ports

# Choose 200 ports, say which, and hold them until stdin closes (as a run holds them while its
# job starts listening): the choices of processes alive at once never meet.
CHOOSE = (
    "import sys; from sagelaunch.local import ports\n"
    "print(*(ports.free_port() for _ in range(200)), flush=True)\n"
    "sys.stdin.read()\n"
)


def _ephemeral_start() -> int:
    with open("/proc/sys/net/ipv4/ip_local_port_range") as handle:
        return int(handle.read().split()[0])


def test_ports_come_from_below_the_ephemeral_range():
    chosen = [ports.free_port() for _ in range(50)] + [ports.free_port_pair() + 1]
    assert all(1024 < port < _ephemeral_start() for port in chosen)


def choosing(env: dict[str, str] | None = None) -> subprocess.Popen:
    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    return subprocess.Popen([sys.executable, "-c", CHOOSE], text=True, env=env, **pipes)


def chosen(run: subprocess.Popen) -> set[int]:
    assert run.stdout is not None
    return {int(port) for port in run.stdout.readline().split()}


def test_two_processes_choosing_at_once_never_get_the_same_port():
    runs = [choosing() for _ in range(2)]
    first, second = (chosen(run) for run in runs)
    for run in runs:
        run.communicate("")
    assert len(first) == len(second) == 200 and not first & second


def test_a_port_in_use_is_never_chosen(monkeypatch):
    with socket.socket() as held:
        held.bind((ports.LOOPBACK, 0))
        taken = held.getsockname()[1]
        # taken is tried first (an ephemeral port: nobody leased it), then its neighbours
        monkeypatch.setattr(ports, "_candidates", lambda: iter([taken, taken + 1, taken + 2]))
        assert ports.free_port() in (taken + 1, taken + 2)


def leasable(port: int) -> bool:
    """True when no process holds ``port``'s lease (its UDP port on loopback)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.bind((ports.LOOPBACK, port))
        except OSError:
            return False
    return True


@pytest.mark.parametrize("ending", [signal.SIGINT, signal.SIGTERM, None])
def test_a_process_leaves_no_lease_behind_however_it_ends(tmp_path, ending):
    """Interrupted, terminated or at its normal exit: its ports are free to lease at once, and
    nothing was written (the temporary directory is this test's own)."""
    run = choosing(env={**os.environ, "TMPDIR": str(tmp_path)})
    taken = chosen(run)
    assert len(taken) == 200 and not any(leasable(port) for port in taken)
    if ending is None:
        run.communicate("")
    else:
        run.send_signal(ending)
        run.communicate()
    assert all(leasable(port) for port in taken)
    assert list(tmp_path.iterdir()) == []


def test_a_lease_is_given_up_on_release_or_when_it_lapses(monkeypatch):
    port = ports.free_port()
    assert port in ports.held() and not leasable(port)
    ports.release(port)
    assert port not in ports.held() and leasable(port)
    pair = ports.free_port_pair()
    assert {pair, pair + 1} <= set(ports.held())
    monkeypatch.setattr(ports, "_LEASE_S", 0)  # every lease lapses at the next choice
    ports.free_port()
    assert pair not in ports.held() and leasable(pair) and leasable(pair + 1)


def test_old_lease_files_of_dead_processes_are_cleared(tmp_path, monkeypatch):
    """Earlier versions left a lock file per leased port that nothing removed (hundreds from
    dead pids): the lapsed and the dead ones go, then their folder; a live fresh one stays."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folder = ports.legacy_lease_dir()
    folder.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    (folder / "20001").write_text(dead)  # a dead pid's lease, still fresh
    (folder / "20002").write_text(str(os.getpid()))  # a live one, lapsed long ago
    os.utime(folder / "20002", (0, 0))
    (folder / "20003").write_text(str(os.getpid()))  # live and fresh: an old version's run
    ports.clear_legacy_leases()
    assert [p.name for p in folder.iterdir()] == ["20003"]
    (folder / "20003").write_text(dead)
    ports.clear_legacy_leases()
    assert not folder.exists()

"""Each emulated host's network is its own, as each instance of a job has one (network.py): two
hosts bind the same fixed port on 0.0.0.0 and reach each other by host name; a job without
network isolation reaches this machine's loopback services (a moto endpoint), one with
``network.isolation: true`` reaches nothing but its peers. Where the namespaces cannot be made,
the hosts share this machine's network, and the run says so."""

from __future__ import annotations

import shutil
import socket
import threading

import pytest

from sagelaunch.local import network, sandbox
from tests.local.conftest import clean_env, pytorch_config, run_local

NAMESPACES = sandbox.choose("auto").isolated and shutil.which("ip") is not None
needs_own = pytest.mark.skipif(not NAMESPACES, reason="no user/network namespaces here")
needs_pasta = pytest.mark.skipif(shutil.which("pasta") is None, reason="no pasta (passt) here")

# Every host listens on 0.0.0.0:12345 (a fixed port, as a script-written TF_CONFIG has it), then
# tells each other host its name there and waits to hear from all of them.
PEERS = """\
import json, os, socket, threading, time

hosts = json.loads(os.environ["SM_HOSTS"])
me = os.environ["SM_CURRENT_HOST"]
server = socket.socket()
server.bind(("0.0.0.0", 12345))
server.listen()
heard = []

def listen():
    for _ in hosts[1:]:
        connection, _ = server.accept()
        heard.append(connection.recv(64).decode())

listener = threading.Thread(target=listen)
listener.start()
for peer in hosts:
    if peer == me:
        continue
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection((peer, 12345), timeout=5).sendall(me.encode())
            break
        except OSError:
            assert time.monotonic() < deadline, f"{peer} not reachable"
            time.sleep(0.1)
listener.join(60)
print(f"{me} at {socket.gethostbyname(me)} heard {sorted(heard)}", flush=True)
"""

# Says whether this machine's service (PORT, on its 127.0.0.1) is there, and where the job is
# isolated, whether any route out is.
REACH = """\
import os, socket

def reach(address):
    try:
        socket.create_connection(address, timeout=5).close()
        return "reached"
    except OSError as error:
        return type(error).__name__

print("machine:", reach(("127.0.0.1", int(os.environ["PORT"]))), flush=True)
if os.environ.get("NO_ROUTE_EXPECTED"):  # only then: nothing may leave this machine
    print("route out:", reach(("198.51.100.1", 9)), flush=True)  # TEST-NET-2, never routed
"""


def _config(write_config, script: str, **over):
    return write_config(
        pytorch_config(
            entry_point="job.py", source_dir="code", local=over.pop("local", {"hosts": 2}), **over
        ),
        code={"job.py": script},
    )


@pytest.mark.slow
@needs_own
@needs_pasta
def test_hosts_bind_one_fixed_port_each_and_reach_each_other_by_name(write_config, tmp_path):
    config = _config(write_config, PEERS, distribution={"strategy": "none"})
    done = run_local(config, "--workdir", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "network: each host's own" in " ".join(done.stderr.split())
    logs = {h: (tmp_path / "run" / "logs" / f"{h}.log").read_text() for h in ("algo-1", "algo-2")}
    assert "algo-1 at 198.18.0.1 heard ['algo-2']" in logs["algo-1"]
    assert "algo-2 at 198.18.0.2 heard ['algo-1']" in logs["algo-2"]


@pytest.fixture
def machine_service():
    """A TCP service on this machine's loopback (as a moto server is), accepting for the test."""
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                server.accept()[0].close()
            except OSError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    server.close()


@pytest.mark.slow
@needs_own
@pytest.mark.parametrize(
    ("isolation", "machine"),
    [
        pytest.param(False, "reached", marks=needs_pasta),  # through pasta's loopback forward
        (True, "ConnectionRefusedError"),  # its own loopback, where nothing listens
    ],
)
def test_network_isolation_reaches_nothing_outside(
    write_config, tmp_path, machine_service, isolation, machine
):
    config = _config(
        write_config,
        REACH,
        distribution={"strategy": "none"},
        network={"isolation": isolation},
        local={"hosts": 1},
    )
    env = clean_env(PORT=str(machine_service), **({"NO_ROUTE_EXPECTED": "1"} if isolation else {}))
    done = run_local(config, "--workdir", str(tmp_path / "run"), env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    log = (tmp_path / "run" / "logs" / "algo-1.log").read_text()
    assert f"machine: {machine}" in log
    if isolation:  # no default route: ENETUNREACH at once, nothing sent
        assert "route out: OSError" in log


def test_the_fallback_says_what_is_missing(monkeypatch):
    """Without pasta a job that needs the outside keeps the shared network, and says why; a job
    with network isolation needs no pasta; without a sandbox there are no namespaces."""
    monkeypatch.setattr(network.shutil, "which", lambda tool: None if tool == "pasta" else tool)
    shared = network.choose(isolated=True, isolation=False)
    assert not shared.own and "apt install passt" in shared.reason
    assert network.choose(isolated=True, isolation=True).own
    assert not network.choose(isolated=False, isolation=False).own
    isolated = network.choose(isolated=True, isolation=True)
    said = network.warning(isolated, network.HostNetwork(network.MACHINE, isolated.reason))
    assert said is not None and "network.isolation is not emulated" in said


@needs_own
def test_namespaces_that_cannot_be_made_fall_back_to_the_machines_network(monkeypatch, tmp_path):
    monkeypatch.setattr(network, "KEEPER", tmp_path / "missing.py")
    choice = network.Choice(True, isolation=True)
    with network.hosts_network(choice, ["algo-1"], tmp_path) as made:
        assert not made.own and "could not be made" in made.reason
        assert made.enter("algo-1") == []

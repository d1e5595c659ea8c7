"""Each emulated host's network, as each instance of a SageMaker job has its own.

With a sandbox (sandbox.py), every host runs in a network namespace of its own, built as a
rootless container engine builds one, inside the run's own user namespace (netns_keeper.py):

- the hosts sit on a private bridge, each at its own address (198.18.0.N, ``eth0``), so each has
  the whole port space (two hosts bind ``0.0.0.0:12345``) and ``algo-N`` (the sandbox's
  /etc/hosts) is that host, as in the container;
- outbound traffic goes as SageMaker lets it: a job without network isolation reaches what this
  machine reaches through ``pasta`` (user-mode networking, Debian's ``passt`` package), which
  also forwards the machine's own loopback services (a moto endpoint at 127.0.0.1) into each
  host; a job with ``network.isolation: true`` gets no outbound route at all, only its peers.

An MPI job's hosts get theirs too: mpirun runs in the first host's, and its launch agent starts
each other host's daemon in that host's, as the container's ssh does (mpi.py, mpi_agent.py).

Where this cannot be made (no sandbox, no ``ip``/``nsenter``/``unshare``, no ``pasta`` for a job
that needs the outside), the hosts share this machine's network, each at a loopback address of
its own, and the run says once what behaves differently.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from sagelaunch.local import netns_keeper
from sagelaunch.local.netns_keeper import die_with_parent

OWN = "own"  # a network namespace per host
MACHINE = "machine"  # the machine's, shared by every host
KEEPER = Path(__file__).with_name("netns_keeper.py")
PASTA_INTERFACE = "ext0"  # the outbound interface (eth0 is the job's own, as in the container)
_START_TIMEOUT_S = 20.0
_TOOLS = ("unshare", "nsenter", "ip")


@dataclass(frozen=True)
class HostNetwork:
    """The network in effect for one run: each host's holder process (whose namespaces a host
    process enters) and address; or the machine's, with the reason."""

    mode: str = MACHINE
    reason: str = ""
    holders: dict[str, int] = field(default_factory=dict)
    addresses: dict[str, str] = field(default_factory=dict)
    outbound: bool = True  # False: network isolation, the hosts reach only each other

    @property
    def own(self) -> bool:
        return self.mode == OWN

    def enter(self, host: str) -> list[str]:
        """The prefix that runs a command in ``host``'s network (none on the machine's)."""
        if not self.own:
            return []
        target = str(self.holders[host])
        return ["nsenter", "-t", target, "--user", "--net", "--preserve-credentials", "--"]

    def describe(self) -> str:
        if self.own:
            out = "pasta to this machine's network" if self.outbound else "none (network.isolation)"
            return f"each host's own (a private bridge, algo-N at its address); outbound: {out}"
        return f"this machine's, shared by every host ({self.reason})"


@dataclass(frozen=True)
class Choice:
    """What a run will try: its own namespaces (with pasta when it needs the outside), or not."""

    own: bool
    reason: str = ""
    pasta: str | None = None
    isolation: bool = False


def choose(isolated: bool, isolation: bool) -> Choice:
    """Own namespaces where the sandbox runs and the tools are here, whatever the launcher
    (mpirun's daemons enter their hosts' networks as every other launcher's processes do:
    mpi_agent.py)."""
    if not isolated:
        return Choice(False, "no sandbox", isolation=isolation)
    missing = [tool for tool in _TOOLS if shutil.which(tool) is None]
    if missing:
        why = f"no {', '.join(missing)} here (iproute2, util-linux)"
        return Choice(False, why, isolation=isolation)
    pasta = shutil.which("pasta")
    if pasta is None and not isolation:
        return Choice(
            False, "no pasta here for outbound traffic (Debian/Ubuntu: apt install passt)"
        )
    return Choice(True, pasta=pasta, isolation=isolation)


def warning(choice: Choice, network: HostNetwork) -> str | None:
    """The one line a run shows where its hosts share the machine's network for a reason this
    machine can change, or where that loses the network isolation the job asked for."""
    if network.own:
        return None
    isolation = (
        "; network.isolation is not emulated: the job reaches this machine's network"
        if choice.isolation
        else ""
    )
    return (
        f"the hosts share this machine's network ({network.reason}): a fixed port binds on one "
        f"host only, and a host's 127.0.0.1 is every host's{isolation}"
    )


@contextmanager
def hosts_network(choice: Choice, names: list[str], folder: Path) -> Iterator[HostNetwork]:
    """The hosts' network for the run's duration (its helpers' files in ``folder``); the
    machine's when the namespaces cannot be made (the reason then in the network)."""
    if not choice.own:
        yield HostNetwork(MACHINE, choice.reason)
        return
    try:
        keeper, holders = _start_keeper(len(names))
    except OSError as error:
        yield HostNetwork(MACHINE, f"its namespaces could not be made: {error}")
        return
    pastas: list[subprocess.Popen[bytes]] = []
    try:
        if not choice.isolation:
            assert choice.pasta is not None
            pastas = _connect_outside(choice.pasta, holders, folder)
    except OSError as error:
        _stop(keeper)
        yield HostNetwork(MACHINE, f"its outbound link could not be made: {error}")
        return
    addresses = {name: netns_keeper.address(i) for i, name in enumerate(names)}
    by_host = dict(zip(names, holders, strict=True))
    try:
        yield HostNetwork(OWN, holders=by_host, addresses=addresses, outbound=not choice.isolation)
    finally:
        _end(pastas)
        _stop(keeper)


def _start_keeper(count: int) -> tuple[subprocess.Popen[str], list[int]]:
    """netns_keeper.py in a new user and network namespace; the holders' pids it reports."""
    command = ["unshare", "--user", "--map-root-user", "--net", "--kill-child", "--"]
    command += [sys.executable, "-I", "-S", str(KEEPER), str(count)]
    keeper = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=die_with_parent,
    )
    assert keeper.stdout is not None
    ready, _, _ = select.select([keeper.stdout], [], [], _START_TIMEOUT_S)
    line = keeper.stdout.readline() if ready else ""
    try:
        answer = json.loads(line) if line else {}
    except json.JSONDecodeError:
        answer = {}
    if "holders" not in answer:
        _stop(keeper)
        why = answer.get("error") or (keeper.stderr.read().strip() if keeper.stderr else "")
        raise OSError(why or "the namespace keeper did not start")
    return keeper, [int(pid) for pid in answer["holders"]]


def _connect_outside(pasta: str, holders: list[int], folder: Path) -> list[subprocess.Popen[bytes]]:
    """One pasta per host: an outbound route, and the machine's loopback ports forwarded into
    the host's (``-T auto``: those bound on this machine, rescanned every second). Each runs in
    the foreground as sagelaunch's child, so it dies with sagelaunch (it would not end with its
    namespace), and is ready once it writes its pid file."""
    runas = f"{os.getuid()}:{os.getgid()}"  # as root pasta would become nobody, who cannot enter
    options = ["--foreground", "--quiet", "--runas", runas, "--config-net", "-I", PASTA_INTERFACE]
    options += ["-T", "auto", "-U", "auto", "-t", "none", "-u", "none"]
    folder.mkdir(parents=True, exist_ok=True)
    started = []
    for pid in holders:
        ready = folder / f"pasta-{pid}.pid"
        ready.unlink(missing_ok=True)
        command = [pasta, *options, "--pid", str(ready), str(pid)]
        proc = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=die_with_parent,
        )
        started.append((proc, ready))
    try:
        for proc, ready in started:
            _wait_ready(proc, ready)
    except OSError:
        _end([proc for proc, _ in started])
        raise
    return [proc for proc, _ in started]


def _wait_ready(proc: subprocess.Popen[bytes], ready: Path) -> None:
    deadline = time.monotonic() + _START_TIMEOUT_S
    while not (ready.is_file() and ready.read_text().strip()):
        if proc.poll() is not None:
            said = proc.stderr.read().decode(errors="replace").strip() if proc.stderr else ""
            raise OSError(f"pasta: {said.splitlines()[-1] if said else f'exit {proc.returncode}'}")
        if time.monotonic() > deadline:
            raise OSError(f"pasta: not ready within {_START_TIMEOUT_S:g} s")
        time.sleep(0.01)


def _end(procs: list[subprocess.Popen[bytes]]) -> None:
    """pasta keeps no state worth a graceful stop: killed at once, the run ends sooner."""
    for proc in procs:
        proc.kill()
    for proc in procs:
        proc.wait()


def _stop(keeper: subprocess.Popen[str]) -> None:
    """Close the keeper's input: it exits, and its namespaces' holders (and pastas) with it."""
    if keeper.poll() is None:
        try:
            assert keeper.stdin is not None
            keeper.stdin.close()
            keeper.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            keeper.kill()
    keeper.wait()

"""Ctrl-C (SIGINT) and SIGTERM on `sagelaunch local`: every host's processes stop (torchrun's
workers and what they started included), nothing outlives the run, its folder is unlocked and kept,
and the exit code is a stopped job's (4). sagelaunch killed outright (kill -9) or its terminal
closed (SIGHUP): nothing of the run is left, as a container's processes end with it; nor is a
daemon a script started, once its host ends.

What is left is found by the token every process of the run inherits (``_survivors``), not by
the pids the scripts report: in a host's PID namespace those are the namespace's own numbers."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from sagelaunch.local import sandbox
from sagelaunch.local.supervisor import GRACE_VARIABLE
from tests.local.conftest import (
    clean_env,
    local_command,
    pytorch_config,
    run_local,
    survivors,
    wait_until,
)

# Each process (torchrun's worker) starts a child of its own, says so, then sleeps until killed.
# A rerun (the `release` file exists) ends at once.
SLEEPER = """\
import os, signal, subprocess, sys, time
from pathlib import Path

gate = Path(os.environ["GATE"])  # in the run folder: the one place a sandboxed script may write
gate.mkdir(exist_ok=True)
if (gate / "release").exists():
    sys.exit(0)
host = os.environ["SM_CURRENT_HOST"]
if os.environ.get("OUTLIVE_SIGTERM"):  # say it came, and go on sleeping
    signal.signal(signal.SIGTERM, lambda *_: (gate / (host + ".term")).write_text(""))
if os.environ.get("SAVE_ON_SIGTERM"):  # a checkpoint saved in the grace period, when told to

    def save(*_):
        (gate / (host + ".term")).write_text("")
        while not (gate / "save").exists():
            time.sleep(0.05)
        (gate / (host + ".saved")).write_text("")
        sys.exit(0)

    signal.signal(signal.SIGTERM, save)
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
ready = gate / (host + ".ready")
ready.write_text(f"{os.getpid()} {child.pid}")
time.sleep(600)
"""
HOSTS = ("algo-1", "algo-2")
# Where this kernel gives each host a PID namespace (CI's does); the fallback has none.
PID_NAMESPACES = pytest.mark.skipif(
    not sandbox.choose("auto").pid_namespace, reason="no PID namespaces here"
)


def _start(config: Path, workdir: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        local_command(config, "--workdir", str(workdir)),
        cwd=config.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # the test's own signals reach sagelaunch only
    )


def _wait_until_running(run: subprocess.Popen[str], gate: Path) -> None:
    """Until every host's script has said it runs, its child started (a file each, polled)."""
    wait_until(
        lambda: all((gate / f"{host}.ready").is_file() for host in HOSTS), run, "hosts ready"
    )
    for host in HOSTS:
        ready = gate / f"{host}.ready"
        wait_until(ready.read_text, run, f"{host}'s pids")


def _gone_within(token: str, seconds: float) -> list[int]:
    """The run's processes still alive ``seconds`` after it was cut off (none, once gone)."""
    deadline = time.monotonic() + seconds
    while survivors(token) and time.monotonic() < deadline:
        time.sleep(0.1)
    return survivors(token)


# A shell entry point whose python runs as its child (the toolkit runs it with /bin/sh).
SHELL_SLEEPER = """\
#!/bin/sh
python sleep.py "$@"
"""


def _sleeper_config(write_config, tmp_path, strategy: str, entry_point: str):
    gate = tmp_path / "run" / "gate"  # the script makes it
    config = write_config(
        pytorch_config(
            entry_point=entry_point,
            source_dir="code",
            distribution={"strategy": strategy},
            local={"hosts": 2},
        ),
        code={"sleep.py": SLEEPER, "sleep.sh": SHELL_SLEEPER},
    )
    return config, gate


@pytest.fixture
def sleeper(write_config, tmp_path):
    return _sleeper_config(write_config, tmp_path, "torchrun", "sleep.py")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("strategy", "entry_point", "signum"),
    [
        ("torchrun", "sleep.py", signal.SIGINT),  # torchrun's workers
        ("torchrun", "sleep.py", signal.SIGTERM),
        ("mpi", "sleep.py", signal.SIGINT),  # mpirun's ranks
        ("none", "sleep.sh", signal.SIGINT),  # a shell's children
    ],
)
def test_interrupt_stops_every_host_and_releases_the_folder(
    write_config, tmp_path, strategy, entry_point, signum
):
    config, gate = _sleeper_config(write_config, tmp_path, strategy, entry_point)
    token = uuid.uuid4().hex
    env = clean_env(GATE=str(gate), RUN_TOKEN=token)
    workdir = tmp_path / "run"
    run = _start(config, workdir, env)
    try:
        _wait_until_running(run, gate)
        os.kill(run.pid, signum)
        out, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert run.returncode == 4, out[-2000:] + err[-2000:]
    assert survivors(token) == []
    assert "local run interrupted" in err
    for host in HOSTS:  # one line per host, the run's files kept and named
        assert f"{host}: stopped" in err
        assert (workdir / host / "input" / "config" / "resourceconfig.json").is_file()
    assert (workdir / "logs" / "algo-1.log").is_file()  # mpirun's ranks all log there
    assert f"kept in {workdir}" in " ".join(err.split())
    assert "Traceback" not in err  # torchrun's, while it stops, went to the logs only
    (gate / "release").write_text("")
    # The folder is free again: a rerun in it claims its lock and clears it. Run without a
    # launcher (its lock and clearing are any run's), so that the rerun starts no torchrun agents
    # or mpirun (seconds of torch imports each) for a script that exits at once: a process of the
    # interrupted run still holding the lock would carry RUN_TOKEN, which survivors() rules out.
    again = run_local(
        config, "--workdir", str(workdir), "--set", "distribution.strategy=none", env=env
    )
    assert again.returncode == 0, again.stderr[-3000:]


@pytest.mark.slow
def test_sigterm_handlers_get_the_grace_period_in_the_sandbox(sleeper, tmp_path):
    """A worker's SIGTERM handler saves before it exits, as SageMaker's stop allows: the run waits
    for it. (bwrap, given SIGTERM, died at once and took torchrun's agent and the grace period
    with it: the workers were SIGKILLed within a second.)"""
    config, gate = sleeper
    token = uuid.uuid4().hex
    env = clean_env(GATE=str(gate), RUN_TOKEN=token, SAVE_ON_SIGTERM="1")
    env[GRACE_VARIABLE] = "300"  # the handlers finish when the test says, however loaded
    run = _start(config, tmp_path / "run", env)
    try:
        _wait_until_running(run, gate)
        os.kill(run.pid, signal.SIGINT)
        wait_until(
            lambda: all((gate / f"{host}.term").is_file() for host in HOSTS), run, "SIGTERM heard"
        )
        assert run.poll() is None  # still in its grace period, whoever runs the hosts
        (gate / "save").write_text("")
        out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert run.returncode == 4, out[-2000:] + err[-2000:]
    assert [(gate / f"{host}.saved").is_file() for host in HOSTS] == [True, True], err
    assert survivors(token) == []


@pytest.mark.slow
def test_a_second_interrupt_kills_at_once(sleeper, tmp_path):
    config, gate = sleeper
    token = uuid.uuid4().hex
    # Scripts that outlive SIGTERM hold the first stop for the whole grace period, made long so
    # that the second Ctrl-C lands inside it however loaded the machine is.
    env = clean_env(GATE=str(gate), RUN_TOKEN=token, OUTLIVE_SIGTERM="1")
    env[GRACE_VARIABLE] = "300"
    run = _start(config, tmp_path / "run", env)
    try:
        _wait_until_running(run, gate)
        os.kill(run.pid, signal.SIGINT)
        while not (gate / "algo-1.term").is_file():  # the first stop has begun
            assert run.poll() is None, run.communicate()
            time.sleep(0.05)
        os.kill(run.pid, signal.SIGINT)
        out, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert run.returncode == 4, out[-2000:] + err[-2000:]
    assert "killed at once (second interrupt)" in err, err
    assert survivors(token) == []


@pytest.mark.slow
@PID_NAMESPACES
@pytest.mark.parametrize(
    ("strategy", "signum"),
    [
        ("torchrun", signal.SIGKILL),  # 2 hosts' torchrun agents and workers
        ("mpi", signal.SIGKILL),  # prterun and its 2 hosts' ranks
        ("torchrun", signal.SIGHUP),  # the terminal closed
        ("mpi", signal.SIGHUP),
    ],
)
def test_nothing_of_the_run_outlives_sagelaunch_killed_or_hung_up(
    write_config, tmp_path, strategy, signum
):
    """kill -9 leaves sagelaunch no clean-up: every host still ends within 5 s (each host's
    processes die with their PID namespace, which dies with sagelaunch; mpirun with its parent)."""
    config, gate = _sleeper_config(write_config, tmp_path, strategy, "sleep.py")
    token = uuid.uuid4().hex
    run = _start(config, tmp_path / "run", clean_env(GATE=str(gate), RUN_TOKEN=token))
    try:
        _wait_until_running(run, gate)
        assert len(survivors(token)) >= 4  # both hosts' scripts and their children, at least
        os.kill(run.pid, signum)
        run.communicate(timeout=60)
        assert _gone_within(token, 5.0) == []
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
        for pid in survivors(token):  # never left to the rest of the suite
            os.kill(pid, signal.SIGKILL)


# Starts a daemon the classic way (fork, setsid, fork), then exits 0 at once.
DAEMON = """\
import os, sys, time
from pathlib import Path

gate = Path(os.environ["GATE"])
gate.mkdir(exist_ok=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        (gate / (os.environ["SM_CURRENT_HOST"] + ".daemon")).write_text(str(os.getpid()))
        time.sleep(600)
    os._exit(0)
deadline = time.monotonic() + 60
while not (gate / (os.environ["SM_CURRENT_HOST"] + ".daemon")).exists():
    assert time.monotonic() < deadline
    time.sleep(0.05)
"""


@pytest.mark.slow
@PID_NAMESPACES
def test_a_scripts_daemon_ends_with_its_host(write_config, tmp_path):
    gate = tmp_path / "run" / "gate"
    # Run without a launcher: the daemon leaves the script's session and process group either
    # way, and only the host's end (its PID namespace's) can take it; torchrun's agents would add
    # seconds of torch imports and nothing to that.
    config = write_config(
        pytorch_config(
            entry_point="daemon.py",
            source_dir="code",
            distribution={"strategy": "none"},
            local={"hosts": 2},
        ),
        code={"daemon.py": DAEMON},
    )
    token = uuid.uuid4().hex
    done = run_local(
        config, "--workdir", str(tmp_path / "run"), env=clean_env(GATE=str(gate), RUN_TOKEN=token)
    )
    try:
        assert done.returncode == 0, done.stderr[-3000:]
        assert [(gate / f"{h}.daemon").is_file() for h in HOSTS] == [True, True]
        assert _gone_within(token, 5.0) == []
    finally:
        for pid in survivors(token):
            os.kill(pid, signal.SIGKILL)

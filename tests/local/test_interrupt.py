"""Ctrl-C (SIGINT) and SIGTERM on `sagelaunch local`: every host's processes stop (torchrun's
workers and what they started included), nothing outlives the run, its folder is unlocked and kept,
and the exit code is a stopped job's (4)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from sagelaunch.local.supervisor import GRACE_VARIABLE
from tests.local.conftest import (
    alive,
    clean_env,
    local_command,
    pytorch_config,
    run_local,
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


def _wait_until_running(run: subprocess.Popen[str], gate: Path) -> list[int]:
    """The pids every host's script reported, once both hosts run (a file each, polled)."""
    wait_until(
        lambda: all((gate / f"{host}.ready").is_file() for host in HOSTS), run, "hosts ready"
    )
    pids = []
    for host in HOSTS:
        ready = gate / f"{host}.ready"
        wait_until(ready.read_text, run, f"{host}'s pids")
        pids += [int(pid) for pid in ready.read_text().split()]
    return pids


def _survivors(token: str) -> list[int]:
    """Every live process that inherited this test's token: the run's whole process tree."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if f"RUN_TOKEN={token}".encode() in environ.split(b"\0") and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


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
        pids = _wait_until_running(run, gate)
        os.kill(run.pid, signum)
        out, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert run.returncode == 4, out[-2000:] + err[-2000:]
    assert not [pid for pid in pids if alive(pid)]
    assert _survivors(token) == []
    assert "local run interrupted" in err
    for host in HOSTS:  # one line per host, the run's files kept and named
        assert f"{host}: stopped" in err
        assert (workdir / host / "input" / "config" / "resourceconfig.json").is_file()
    assert (workdir / "logs" / "algo-1.log").is_file()  # mpirun's ranks all log there
    assert f"kept in {workdir}" in " ".join(err.split())
    assert "Traceback" not in err  # torchrun's, while it stops, went to the logs only
    (gate / "release").write_text("")
    again = run_local(config, "--workdir", str(workdir), env=env)
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
        pids = _wait_until_running(run, gate)
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
    assert not [pid for pid in pids if alive(pid)]
    assert _survivors(token) == []


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
        pids = _wait_until_running(run, gate)
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
    assert not [pid for pid in pids if alive(pid)]
    assert _survivors(token) == []

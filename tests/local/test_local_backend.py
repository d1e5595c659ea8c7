"""`status`, `wait`, `logs`, `stop` and `list` with `--local`: a run of `sagelaunch local`, read
from its folder's record (local/run_record.py) as the SageMaker backends read a training job —
a run that completed, one whose host failed, one stopped from another terminal, one whose
sagelaunch was killed outright. Real runs (`python -m sagelaunch local`, two hosts)."""

from __future__ import annotations

import json
import os
import signal
import uuid

import pytest

from tests.local.conftest import clean_env, pytorch_config, run_local
from tests.local.test_interrupt import HOSTS, SLEEPER, _start, _wait_until_running

pytestmark = pytest.mark.slow

# Each host says who it is; algo-2 fails with exit 3 when told to.
HELLO = """\
import os, sys
host = os.environ["SM_CURRENT_HOST"]
print(f"hello from {host}", flush=True)
if host == "algo-2" and os.environ.get("FAIL_ON_ALGO_2"):
    sys.exit(3)
"""


def _config(write_config, script: str):
    return write_config(
        pytorch_config(
            entry_point="job.py",
            source_dir="code",
            distribution={"strategy": "none"},
            local={"hosts": 2},
        ),
        code={"job.py": script},
    )


def _json(result) -> dict:  # type: ignore[no-untyped-def]
    return json.loads(result.stdout)


def test_a_finished_run_is_described_listed_and_read(cli, write_config, tmp_path, monkeypatch):
    config = _config(write_config, HELLO)
    done = run_local(config, "--output", "json")
    assert done.returncode == 0, done.stderr[-3000:]
    name = json.loads(done.stdout)["job_name"]
    failed = run_local(config, "--output", "json", env=clean_env(FAIL_ON_ALGO_2="1"))
    assert failed.returncode == 1, failed.stderr[-3000:]
    failed_name = json.loads(failed.stdout)["job_name"]
    monkeypatch.chdir(tmp_path)  # where the runs' default folders are, .sagelaunch/runs

    status = _json(cli("status", name, "--local", "-o", "json"))
    assert status["status"] == "Completed" and status["failure_reason"] is None
    assert [(h["host"], h["exit_code"]) for h in status["hosts"]] == [(h, 0) for h in HOSTS]
    assert status["workdir"] == str(tmp_path / ".sagelaunch" / "runs" / name)

    broken = _json(cli("status", failed_name, "--local", "-o", "json"))
    assert broken["status"] == "Failed" and broken["failure_reason"].startswith("algo-2:")
    assert {h["host"]: h["exit_code"] for h in broken["hosts"]}["algo-2"] == 3

    listed = _json(cli("list", "--local", "-o", "json"))
    assert [run["job_name"] for run in listed] == [failed_name, name]  # newest first
    only_failed = _json(cli("list", "--local", "--status", "Failed", "-o", "json"))
    assert [run["job_name"] for run in only_failed] == [failed_name]

    logs = cli("logs", name, "--local", "-o", "json")
    lines = [json.loads(line) for line in logs.stdout.splitlines()]
    assert [(e["host"], e["message"]) for e in lines] == [
        (host, f"hello from {host}") for host in HOSTS
    ]
    one = cli("logs", name, "--local", "--host", "algo-2")
    assert one.stdout.split() == ["[algo-2]", "hello", "from", "algo-2"]

    assert cli("wait", name, "--local").exit_code == 0
    waited = cli("wait", failed_name, "--local", "-o", "json")
    assert waited.exit_code == 1 and _json(waited)["status"] == "Failed"

    missing = cli("status", "no-such-run", "--local")
    assert missing.exit_code == 2 and "sagelaunch list --local" in missing.output


def test_a_run_is_stopped_from_another_terminal(cli, write_config, tmp_path):
    gate = tmp_path / "run" / "gate"
    config = _config(write_config, SLEEPER)
    token = uuid.uuid4().hex
    workdir = tmp_path / "run"
    run = _start(config, workdir, clean_env(GATE=str(gate), RUN_TOKEN=token))
    try:
        _wait_until_running(run, gate)
        running = _json(cli("status", workdir, "--local", "-o", "json"))
        assert running["status"] == "InProgress"
        assert [h["exit_code"] for h in running["hosts"]] == [None, None]
        stopping = _json(cli("stop", workdir, "--local", "-o", "json"))
        assert stopping["status"] == "Stopping"
        _, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert run.returncode == 4, err[-3000:]
    assert _json(cli("status", workdir, "--local", "-o", "json"))["status"] == "Stopped"
    waited = cli("wait", workdir, "--local", "-o", "json")
    assert waited.exit_code == 4 and _json(waited)["status"] == "Stopped"
    again = _json(cli("stop", workdir, "--local", "-o", "json"))
    assert again["status"] == "Stopped"  # nothing to stop: said, not sent


def test_a_run_whose_sagelaunch_was_killed_reads_as_failed(cli, write_config, tmp_path):
    gate = tmp_path / "run" / "gate"
    config = _config(write_config, SLEEPER)
    workdir = tmp_path / "run"
    run = _start(config, workdir, clean_env(GATE=str(gate), RUN_TOKEN=uuid.uuid4().hex))
    try:
        _wait_until_running(run, gate)
        os.kill(run.pid, signal.SIGKILL)
        run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    status = _json(cli("status", workdir, "--local", "-o", "json"))
    assert status["status"] == "Failed"
    assert "ended without recording an end" in status["failure_reason"]

"""A local run has the job's time limit: compute.max_run (or `local --timeout`) stops every host,
exit 4 as a job SageMaker stops at MaxRuntimeInSeconds, naming the hosts still running; what the
model folder holds is packed and the trees are kept. A host left without CPU after another ended is
reported while it runs."""

from __future__ import annotations

import tarfile

import pytest

from sagelaunch.local.supervisor import STALL_VARIABLE
from tests.local.conftest import checksums, clean_env, pytorch_config, run_local
from tests.local.in_process import local_in_process

# The first host saves its model and ends; any other waits for a peer that never comes.
WAITER = """\
import os, pathlib, time
host = os.environ["SM_CURRENT_HOST"]
if host == "algo-1":
    pathlib.Path(os.environ["SM_MODEL_DIR"], "model.txt").write_text("saved by algo-1")
else:
    time.sleep(600)
"""


def _config(write_config, hosts: int, max_run: str):
    return write_config(
        pytorch_config(
            entry_point="wait.py",
            source_dir="code",
            distribution={"strategy": "none"},
            compute={"instance_type": "ml.c5.xlarge", "instance_count": hosts, "max_run": max_run},
            local={"hosts": hosts},
        ),
        code={"wait.py": WAITER},
    )


@pytest.mark.slow
def test_max_run_stops_the_hosts_still_running_and_packs_the_model(write_config, tmp_path):
    config = _config(write_config, hosts=2, max_run="6s")
    code = checksums(tmp_path / "code")
    workdir = tmp_path / "run"
    env = clean_env(**{STALL_VARIABLE: "1"})
    done = run_local(config, "--workdir", str(workdir), env=env, timeout=90)
    assert done.returncode == 4, done.stderr
    assert "compute.max_run of 6 s passed" in done.stderr
    assert "with algo-2 still running" in done.stderr
    assert "algo-1: exit 0" in done.stderr and "algo-2: still running, stopped" in done.stderr
    # While it waited, the host without CPU was reported once, naming the host that had ended.
    notices = [line for line in done.stderr.splitlines() if "has used no CPU" in line]
    assert len(notices) == 1 and "algo-2" in notices[0] and "algo-1 (exit 0)" in notices[0]
    with tarfile.open(workdir / "model.tar.gz") as packed:
        member = packed.extractfile("model.txt")
        assert member is not None and member.read() == b"saved by algo-1"
    assert (workdir / "algo-2").is_dir()  # the trees stay for a look
    assert checksums(tmp_path / "code") == code


@pytest.mark.slow
def test_local_timeout_overrides_max_run(write_config, tmp_path):
    # 1 s, the shortest --timeout: algo-2 waits for ever, so it is still running then however
    # slowly the hosts start; max_run's 1h would never pass in the test's time.
    config = _config(write_config, hosts=2, max_run="1h")
    done = run_local(config, "--workdir", str(tmp_path / "run"), "--timeout", "1", timeout=90)
    assert done.returncode == 4, done.stderr
    assert "local --timeout of 1 s passed" in done.stderr and "algo-2" in done.stderr


def test_a_timeout_that_is_no_duration_is_refused(write_config, tmp_path, cli, monkeypatch):
    # Refused before any run starts: `local` in this process (local_in_process), the same app,
    # exit code and stderr as `python -m sagelaunch local`, in tmp_path as the subprocess was.
    config = _config(write_config, hosts=1, max_run="1h")
    done = local_in_process(cli, monkeypatch, config, "--timeout", "soon")
    assert done.exit_code == 2
    assert "--timeout" in done.stderr and "10m" in done.stderr
    assert not (tmp_path / ".sagelaunch").exists()  # refused before any run folder

"""The toolkit's ProcessRunner for command entry points, checked through a real local run."""

from __future__ import annotations

import shutil
import subprocess
import sys

from sagelaunch.local import launchers
from tests.local.conftest import (
    clean_env,
    local_command,
    pytorch_config,
    run_local,
    visible_root,
    wait_until,
)
from tests.local.in_process import local_in_process

# A third-party pattern: a shell entry point that calls ``python`` and needs the job's packages.
TRAIN_SH = """\
set -e
python -c 'import sys, torch; print("interpreter", sys.executable)'
echo "args $*"
echo done > "$SM_MODEL_DIR/done.txt"
"""


def test_command_entry_point_runs_through_bin_sh_like_the_toolkit():
    # sagemaker_training/process.py: ["/bin/sh", "-c", "./<entry> <quoted args>"]
    command = launchers.python_program("train.sh", ["--lr", "0.1 x"])
    assert command == ["/bin/sh", "-c", "./train.sh --lr '0.1 x'"]
    assert launchers.python_program("train.py", ["--lr", "1"]) == [
        sys.executable,
        "train.py",
        "--lr",
        "1",
    ]


def test_train_sh_calling_python_gets_the_jobs_interpreter(write_config, tmp_path):
    config = write_config(
        pytorch_config(
            entry_point="train.sh",
            source_dir="code",
            compute={"instance_type": "ml.m5.xlarge", "instance_count": 1},
            distribution={"strategy": "none"},
            hyperparameters={"epochs": 2},
        ),
        code={"train.sh": TRAIN_SH},
    )
    done = run_local(config, "--workdir", str(tmp_path / "run"))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    log = (tmp_path / "run" / "logs" / "algo-1.log").read_text()
    assert f"interpreter {sys.executable}" in log
    assert "args --epochs 2" in log
    assert not (tmp_path / "code" / "train.sh").stat().st_mode & 0o111  # the user's file untouched


# A third-party pattern: one host, no launcher, yet init_process_group with env://.
INIT_ENV = """\
import torch.distributed as dist
dist.init_process_group("gloo", init_method="env://", rank=0, world_size=1)
print("world", dist.get_world_size())
dist.destroy_process_group()
"""


def test_single_host_pytorch_has_master_addr_and_port_like_the_container(write_config, tmp_path):
    config = write_config(
        pytorch_config(
            entry_point="init.py",
            source_dir="code",
            compute={"instance_type": "ml.m5.xlarge", "instance_count": 1},
            distribution={"strategy": "none"},
        ),
        code={"init.py": INIT_ENV},
    )
    done = run_local(config, "--workdir", str(tmp_path / "run"))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "world 1" in (tmp_path / "run" / "logs" / "algo-1.log").read_text()


# A tiny job that waits until the test opens a loopback port, so two runs overlap for sure (a
# gate file would not do: in the sandbox each host has a private /tmp, as in the container).
# Waits until the test opens its gate (a file outside the run: visible, read-only, to the job).
WAITER = """\
import os, time
while not os.path.exists(os.environ["GATE"]):
    time.sleep(0.05)
"""


def _waiter_config(write_config):
    return write_config(
        pytorch_config(
            entry_point="wait.py",
            source_dir="code",
            compute={"instance_type": "ml.m5.xlarge", "instance_count": 1},
            distribution={"strategy": "none"},
        ),
        code={"wait.py": WAITER},
    )


def test_workdir_holding_user_files_is_refused_and_left_alone(
    write_config, tmp_path, cli, monkeypatch
):
    # Refused before any host starts: `local` in this process (local_in_process), the same app,
    # exit code and output as `python -m sagelaunch local`.
    config = _waiter_config(write_config)
    mine = tmp_path / "mine"
    (mine / "logs").mkdir(parents=True)
    (mine / "logs" / "notes.txt").write_text("keep me")
    done = local_in_process(cli, monkeypatch, config, "--workdir", str(mine))
    assert done.exit_code == 2
    assert "did not create" in done.stdout + done.stderr
    assert (mine / "logs" / "notes.txt").read_text() == "keep me"


def test_two_runs_at_once_same_workdir_one_refused_with_pid(write_config, tmp_path):
    config = _waiter_config(write_config)
    gates = visible_root("gate")  # a sandbox has its own /tmp: tmp_path is not seen there
    gates.mkdir(parents=True)
    gate = gates / "open"  # closed to the waiters until it exists
    env = clean_env(GATE=str(gate))
    command = [*local_command(config), "--workdir"]
    first = subprocess.Popen(
        [*command, str(tmp_path / "run")],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        marker = tmp_path / "run" / ".sagelaunch-run"
        wait_until(
            lambda: marker.exists() and marker.read_text().strip(), first, "the first run's lock"
        )
        second = run_local(config, "--workdir", str(tmp_path / "run"), env=env)
        other = subprocess.Popen(
            [*command, str(tmp_path / "other")],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    finally:
        gate.write_text("open")
        out, err = first.communicate(timeout=120)
        other_out, other_err = other.communicate(timeout=120)
        shutil.rmtree(gates)
    assert first.returncode == 0, out[-2000:] + err[-2000:]
    assert second.returncode == 2
    assert f"pid {first.pid}" in second.stdout + second.stderr
    assert other.returncode == 0, other_out[-2000:] + other_err[-2000:]

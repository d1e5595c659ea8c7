"""`sagelaunch local` trains TensorFlow jobs on 2 emulated hosts as the container would: with
parameter servers (a ps process per host beside the worker, SageMaker's master as TF2's chief),
killed and resumed from its checkpoints, leaving a SavedModel under model/1. MultiWorkerMirrored on
2 hosts (the same losses as one process on the global batch) is test_tensorflow_resume.py's, on
the 2-host run it kills and resumes; the helpers here serve both files."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from sagelaunch.local import checkpoint_sync
from tests.conftest import ENTRYPOINTS
from tests.local.conftest import clean_env, local_command, run_local

STEP = re.compile(r"\[algo-1\] step=(\d+) train_loss=([0-9.eE+-]+) samples_per_sec=")


def tf_job(strategy: str, **hyperparameters: object) -> dict[str, object]:
    return {
        "name": "tf-local-test",
        "framework": "tensorflow",
        "entry_point": "train_tensorflow.py",
        "source_dir": str(ENTRYPOINTS / "tensorflow"),
        "framework_version": "2.19.0",
        "compute": {"instance_type": "ml.c5.2xlarge", "instance_count": 2},
        "distribution": {"strategy": strategy},
        "hyperparameters": {"hidden": 16, "features": 8, "num_samples": 512, **hyperparameters},
    }


def losses(stdout: str) -> dict[int, float]:
    return {int(m[1]): float(m[2]) for m in STEP.finditer(stdout)}


def saved_model_in(workdir: Path) -> list[str]:
    with tarfile.open(workdir / "model.tar.gz") as tar:
        return [name for name in tar.getnames() if name.endswith("saved_model.pb")]


def single_process(root: Path, *args: str) -> dict[str, float]:
    """The entry point as one process runs it (no TF_CONFIG: one device), the losses it logged.
    Run in this process, as tests/entrypoints/test_train_tensorflow.py runs it: the callers are
    in the tensorflow xdist group, whose worker imports TensorFlow once for all of them."""
    sys.path.insert(0, str(ENTRYPOINTS / "tensorflow"))
    import smenv
    import train_tensorflow

    common = ["--hidden", "16", "--features", "8", "--num_samples", "512", "--log_every", "3"]
    with pytest.MonkeyPatch.context() as patch:
        for key in ("TF_CONFIG", "SM_FRAMEWORK_PARAMS", "SM_HOSTS", "SM_CURRENT_HOST"):
            patch.delenv(key, raising=False)
        patch.setenv("SM_MODEL_DIR", str(root / "model"))
        patch.setenv("SM_OUTPUT_DIR", str(root / "output"))
        patch.setenv("SM_OUTPUT_DATA_DIR", str(root / "output" / "data"))
        patch.setenv("SM_NUM_GPUS", "0")
        patch.chdir(root.parent)
        assert smenv.run(train_tensorflow.main, [*common, *args]) == 0
    return json.loads((root / "output" / "data" / "metrics.json").read_text())["losses"]


def chief_pid(workdir: Path, host: str = "algo-1") -> int | None:
    """The first host's (or ``host``'s) training process (its cwd is that host's code/ folder)."""
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if b"train_tensorflow.py" in cmdline and cwd == str(workdir / host / "code"):
            return int(entry.name)
    return None


def newest_checkpoint(folder: Path) -> int:
    state = folder / "checkpoint"
    found = (
        re.search(r'^model_checkpoint_path: "ckpt-(\d+)"', state.read_text(), re.M)
        if (state.is_file())
        else None
    )
    return int(found[1]) if found else 0


# The chief is killed once step 10's checkpoint is on disk; the steps after it are the kill's
# margin (a step takes ~16 ms on an idle 2-core machine, so 140 steps are >2 s; a loaded machine
# slows the run as much as the test), and the restart runs them all.
PS_STEPS = 150


@pytest.mark.slow
def test_parameter_servers_on_two_hosts_resume_after_the_chief_is_killed(write_config, tmp_path):
    """Each host has its own /opt/ml/checkpoints, as separate instances do: the parameter
    servers' shards go through the chief into its folder (by default each server wrote its shard
    on its own host, and the merge failed: part-00000-of-00003 did not exist). checkpoint.s3_uri
    syncs the chief's folder, so the rerun (a restarted job) resumes where the killed run
    checkpointed last."""
    job = tf_job("parameter_server", max_steps=PS_STEPS, log_every=5, checkpoint_every=5)
    job["checkpoint"] = {"s3_uri": "s3://sagelaunch-test/checkpoints/tf-ps/"}
    config, workdir = write_config(job), tmp_path / "run"
    chief, other = workdir / "algo-1" / "checkpoints", workdir / "algo-2" / "checkpoints"
    args = local_command(config, "--workdir", str(workdir))
    first = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
        env=clean_env(),
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 240
        while newest_checkpoint(chief) < 10 and time.monotonic() < deadline:
            assert first.poll() is None, first.stdout.read() if first.stdout else ""
            time.sleep(0.05)
        pid = chief_pid(workdir)
        assert pid is not None and newest_checkpoint(chief) >= 10
        os.kill(pid, signal.SIGKILL)
        output, _ = first.communicate(timeout=120)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 1, output[-3000:]  # the killed host failed the run
    assert list(other.iterdir()) == []  # every shard went through the chief
    killed_at = newest_checkpoint(checkpoint_sync.store(workdir))  # synced when the hosts stopped
    assert killed_at == newest_checkpoint(chief) and 10 <= killed_at < PS_STEPS, (
        "the run ended before the kill: nothing was resumed"
    )

    done = run_local(config, "--workdir", str(workdir), timeout=300)
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-3000:]
    assert "ParameterServerStrategy: 1 worker(s)" in log
    assert "(SageMaker's master is TF2's chief)" in log
    resumed = int(re.search(r"\[algo-1\] resumed from step (\d+)", log)[1])
    assert resumed == killed_at
    for host in ("algo-1", "algo-2"):  # each host ran its own parameter server
        assert f"[{host}-ps] parameter server" in log
    seen = losses(log)
    assert max(seen) == PS_STEPS and seen[PS_STEPS] < first_loss(output)
    assert saved_model_in(workdir) == ["1/saved_model.pb"]


def first_loss(output: str) -> float:
    """The first logged loss of the killed run (training from scratch)."""
    seen = losses(output)
    return seen[min(seen)]

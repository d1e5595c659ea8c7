"""A TensorFlow worker SIGKILLed under `sagelaunch local` resumes mid-epoch when the job runs
again: with Keras fit on one host through BackupAndRestore (under <checkpoint_dir>/backup), and
with the GradientTape loop under MultiWorkerMirrored on 2 hosts through its CheckpointManager.
Each job is one data epoch of STEPS global batches, so every resume point is inside an epoch; the
resumed run logs exactly the steps after its resume point, its losses (the final one included)
equal an uninterrupted run's, and it writes the SavedModel. The 2-host run (killed, then run again)
is shared by two tests: its resume, and MultiWorkerMirrored's equality with one process on the
global batch (the killed run's steps from scratch, the rerun's after its resume point)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import tarfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from sagelaunch.local import checkpoint_sync
from tests.local.conftest import clean_env, local_command, run_local
from tests.local.test_tensorflow_runs import (
    chief_pid,
    losses,
    newest_checkpoint,
    saved_model_in,
    single_process,
    tf_job,
)

BATCH, EVERY = 16, 5
STEPS = 200  # one data epoch (SAMPLES / BATCH): long enough that the kill lands mid-run
SAMPLES = STEPS * BATCH
# The fit and GradientTape loops build different graphs of the same ops: their losses agree to
# ~1e-6 relative (test_train_tensorflow_strategies); the resume itself adds no difference.
TOLERANCE = 1e-5
# The uninterrupted run is made in this process (single_process): one TensorFlow import for the
# tensorflow group's worker.
pytestmark = pytest.mark.xdist_group("tensorflow")


def one_epoch_job(loop: str, hosts: int = 1) -> dict[str, object]:
    """STEPS steps of BATCH samples (split across the hosts): one data epoch, checkpointing to
    /opt/ml/checkpoints, which checkpoint.s3_uri syncs (a rerun restores it on every host)."""
    job = tf_job(
        "multi_worker_mirrored",
        loop=loop,
        num_samples=SAMPLES,
        batch_size=BATCH // hosts,
        checkpoint_every=EVERY,
        log_every=1,
    )
    job["checkpoint"] = {"s3_uri": "s3://sagelaunch-test/checkpoints/tf-resume/"}
    if hosts == 1:
        del job["distribution"]
        job["hyperparameters"]["tf_distribute"] = "one_device"  # type: ignore[index]
    job["compute"] = {"instance_type": "ml.c5.2xlarge", "instance_count": hosts}
    return job


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> dict[str, float]:
    """Every step's loss of the same training, never killed (the entry point run directly, in
    this process)."""
    root = tmp_path_factory.mktemp("uninterrupted") / "run"
    root.mkdir()
    args = ["--num_samples", str(SAMPLES), "--batch_size", str(BATCH), "--log_every", "1"]
    found = single_process(root, *args, "--checkpoint_dir", str(root / "ckpt"))
    assert sorted(map(int, found)) == list(range(1, STEPS + 1))
    return found


def kill_once_backed_up(
    config: Path, workdir: Path, backed_up: Callable[[], int], host: str = "algo-1"
) -> str:
    """Run the job, SIGKILL ``host``'s worker once ``backed_up()`` is past 0; what the run
    printed."""
    args = local_command(config, "--workdir", str(workdir))
    run = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=config.parent,
        env=clean_env(),
    )  # fmt: skip
    try:
        deadline, pid = time.monotonic() + 240, None
        while not (pid and backed_up()) and time.monotonic() < deadline:
            assert run.poll() is None, run.stdout.read() if run.stdout else ""
            pid = pid or chief_pid(workdir, host)
            time.sleep(0.01)
        assert pid is not None and backed_up() > 0
        os.kill(pid, signal.SIGKILL)  # like a spot interruption: no chance to clean up
        output, _ = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 1, output[-3000:]  # the killed host failed the run
    assert not (workdir / "algo-1" / "model" / "1").exists(), "the run ended before the kill"
    return output


def run_again(config: Path, workdir: Path) -> subprocess.CompletedProcess[str]:
    """The job run again in the killed run's workdir (a restarted job)."""
    return run_local(config, "--workdir", str(workdir), timeout=300)


def resume_and_check(
    done: subprocess.CompletedProcess[str],
    workdir: Path,
    killed_at: int,
    reference: dict[str, float],
) -> dict[str, object]:
    """The job run again (``done``, run_again's) resumed after ``killed_at``'s backup,
    mid-epoch, and finished with the uninterrupted run's losses and a SavedModel. Returns its
    metrics.json."""
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-3000:]
    assert f"{STEPS} steps of {BATCH} samples" in log
    resumed = int(re.search(r"\[algo-1\] resumed from step (\d+)", log)[1])
    # Mid-epoch: the one data epoch has STEPS steps. At or after the backup seen before the kill
    # (the worker may have written more before it died), on a backup step.
    assert killed_at <= resumed < STEPS and resumed % EVERY == 0
    seen = losses(log)
    assert sorted(seen) == list(range(resumed + 1, STEPS + 1))  # nothing redone, nothing skipped
    metrics = output_metrics(workdir)
    assert metrics["resumed_from_step"] == resumed
    for step, loss in metrics["losses"].items():
        assert loss == pytest.approx(reference[step], rel=TOLERANCE), step
    final = metrics["losses"][str(STEPS)]
    assert final == pytest.approx(reference[str(STEPS)], rel=TOLERANCE)
    assert final < reference["1"]
    assert saved_model_in(workdir) == ["1/saved_model.pb"]
    return metrics


def output_metrics(workdir: Path) -> dict:
    with tarfile.open(workdir / "output.tar.gz") as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("metrics.json"))
        data = tar.extractfile(member)
        assert data is not None
        return json.loads(data.read())


def backup_step(backup: Path) -> int:
    """The step of BackupAndRestore's newest backup (Keras epochs of EVERY steps; 0: none)."""
    metadata = backup / "training_metadata.json"
    return json.loads(metadata.read_text())["epoch"] * EVERY if metadata.is_file() else 0


@pytest.mark.slow
def test_keras_fit_resumes_mid_epoch_from_its_backup(write_config, tmp_path, uninterrupted):
    workdir = tmp_path / "run"
    config = write_config(one_epoch_job("fit"))
    backup = workdir / "algo-1" / "checkpoints" / "backup"
    output = kill_once_backed_up(config, workdir, lambda: backup_step(backup))
    assert "OneDeviceStrategy: 1 replica(s), Keras fit" in output
    killed_at = backup_step(backup)
    backup = checkpoint_sync.store(workdir) / "backup"  # synced when the host stopped
    assert backup_step(backup) == killed_at
    # what the kill left (a file it caught half-written too) stays in the store, as in S3
    killed = {p.name for p in backup.iterdir()}

    metrics = resume_and_check(run_again(config, workdir), workdir, killed_at, uninterrupted)
    assert metrics["loop"] == "fit"
    # Kept after the finish (delete_checkpoint=False, as the custom loop keeps its checkpoints):
    # the finish's backup, every file renamed into place.
    assert backup_step(backup) == STEPS
    finished = ["latest.weights.h5", "training_metadata.json"]
    assert sorted({p.name for p in backup.iterdir()} - killed) in ([], finished)
    assert all((backup / name).is_file() for name in finished)


@dataclass(frozen=True)
class KilledAndRerun:
    """The 2-host job: killed once its chief had checkpointed, then run again."""

    workdir: Path
    killed: str  # what the killed run printed
    killed_at_chief: int  # the chief's newest checkpoint after the kill
    killed_at_store: int  # the newest one synced to the checkpoint store when the hosts stopped
    rerun: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def two_hosts(tmp_path_factory) -> KilledAndRerun:
    """MultiWorkerMirrored on 2 hosts of BATCH/2 samples each: one process's global batch. The
    second host's worker is killed; the chief, stuck in an all-reduce, is stopped by the run, and
    the job is run again. One run for the two tests that read it (both in this module, so on one
    xdist worker): each 2-host run starts two TensorFlow processes."""
    root = tmp_path_factory.mktemp("two-hosts")
    config, workdir = root / "job.yaml", root / "run"
    config.write_text(yaml.safe_dump(one_epoch_job("custom", hosts=2), sort_keys=False))
    chief = workdir / "algo-1" / "checkpoints"
    killed = kill_once_backed_up(config, workdir, lambda: newest_checkpoint(chief), "algo-2")
    killed_at_chief = newest_checkpoint(chief)
    killed_at_store = newest_checkpoint(checkpoint_sync.store(workdir))
    rerun = run_again(config, workdir)
    return KilledAndRerun(workdir, killed, killed_at_chief, killed_at_store, rerun)


@pytest.mark.slow
def test_gradient_tape_loop_on_two_hosts_resumes_mid_epoch_after_a_worker_is_killed(
    two_hosts, uninterrupted
):
    """Both hosts resume from the chief's checkpoints, which checkpoint.s3_uri's sync gives every
    host (the worker's own saves go to a scratch dir)."""
    assert "CollectiveAllReduceStrategy: 2 replica(s)" in two_hosts.killed
    killed_at = two_hosts.killed_at_store  # synced when the hosts stopped
    assert killed_at == two_hosts.killed_at_chief

    workdir = two_hosts.workdir
    metrics = resume_and_check(two_hosts.rerun, workdir, killed_at, uninterrupted)
    assert (metrics["loop"], metrics["global_batch"]) == ("custom", BATCH)
    assert newest_checkpoint(checkpoint_sync.store(workdir)) == STEPS


@pytest.mark.slow
def test_multi_worker_mirrored_on_two_hosts_equals_one_process(two_hosts, uninterrupted):
    """Gradients summed across the hosts: the same steps as one process on the global batch,
    from scratch (the killed run's steps, up to the kill) and after the resume (the rerun's, to
    the end, which resume_and_check compares, with its SavedModel). (Was a separate 12-step run
    in test_tensorflow_runs.py: this shared run covers the same path, from a fresh start.)"""
    killed = two_hosts.killed
    assert f"CollectiveAllReduceStrategy: 2 replica(s); {STEPS} steps of {BATCH} samples" in killed
    from_scratch = losses(killed)
    # Every step from the first up to the kill (at least one checkpoint's worth) was logged.
    assert sorted(from_scratch) == list(range(1, max(from_scratch) + 1))
    assert max(from_scratch) >= two_hosts.killed_at_chief >= EVERY
    for step, loss in from_scratch.items():  # as logged: rounded to 6 decimals
        assert loss == pytest.approx(uninterrupted[str(step)], rel=TOLERANCE, abs=5e-7), step
    # After the resume, to the end: metrics.json's full-precision losses.
    metrics = output_metrics(two_hosts.workdir)
    assert max(map(int, metrics["losses"])) == STEPS
    for step, loss in metrics["losses"].items():
        assert loss == pytest.approx(uninterrupted[step], rel=TOLERANCE), step
    assert metrics["losses"][str(STEPS)] < from_scratch[1]
    assert saved_model_in(two_hosts.workdir) == ["1/saved_model.pb"]

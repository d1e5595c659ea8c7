"""checkpoint.s3_uri under `sagelaunch local`: as SageMaker restores the prefix into every
instance's checkpoint folder before the script starts and uploads what the instances write there
while they run, a rerun in the same workdir (a restarted job) finds what the failed or killed run
wrote; without a checkpoint config each run starts with an empty folder, as on SageMaker."""

from __future__ import annotations

from pathlib import Path

import yaml

from sagelaunch.local import checkpoint_sync
from sagelaunch.local.tree import HostTree
from tests.local.conftest import checksums, run_local

# Each host counts its runs in the checkpoint folder (found beside SM_MODEL_DIR: /opt/ml/<folder>
# in the container, with a sandbox or without), then fails on its first run after writing: a job
# that dies and is run again. The hosts meet at a barrier (algo-1 listens on the MASTER_PORT the
# PyTorch container sets) before failing, so neither is stopped by the other's failure before it
# has printed and written: without it, one host's exit could stop the other at its start.
SCRIPT = r"""
import os, pathlib, socket, sys, time
host = os.environ["SM_CURRENT_HOST"]
opt_ml = pathlib.Path(os.environ["SM_MODEL_DIR"]).parent
folder = opt_ml / sys.argv[sys.argv.index("--folder") + 1]
folder.mkdir(parents=True, exist_ok=True)
seen = sorted(p.name for p in folder.iterdir())
print(f"{host} found {seen}", flush=True)
runs = sum(name.startswith(host + "-run") for name in seen)
(folder / f"{host}-run{runs + 1}").write_text(str(runs + 1))
(folder / "shared").write_text(host)


def barrier():
    address = (os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]))
    if host == "algo-1":
        with socket.create_server(address) as server:
            peer, _ = server.accept()
            with peer:
                peer.recv(1)
                peer.sendall(b"x")
        return
    deadline = time.monotonic() + 120
    while True:
        try:
            peer = socket.create_connection(address)
            break
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    with peer:
        peer.sendall(b"x")
        peer.recv(1)


if runs == 0:
    barrier()
    sys.exit(f"{host}: first run dies after its checkpoint")
(opt_ml / "model" / "done").write_text(str(runs + 1))
"""


def _job(root: Path, checkpoint: dict[str, str] | None, folder: str) -> Path:
    (root / "code").mkdir(parents=True, exist_ok=True)
    (root / "code" / "train.py").write_text(SCRIPT)
    config = {
        "name": "checkpoint-sync",
        "framework": "pytorch",
        "framework_version": "2.8.0",
        "entry_point": "train.py",
        "source_dir": "code",
        "compute": {"instance_type": "ml.c5.xlarge", "instance_count": 2},
        "distribution": {"strategy": "none"},
        "hyperparameters": {"folder": folder},
        "local": {"hosts": 2},
    }
    if checkpoint:
        config["checkpoint"] = checkpoint
    path = root / "job.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def test_a_rerun_finds_what_the_failed_run_checkpointed(tmp_path):
    """At checkpoint.local_path (the default /opt/ml/checkpoints is the TensorFlow parameter
    server's resume test's, tests/local/test_tensorflow_runs.py)."""
    config = _job(tmp_path, {"s3_uri": "s3://bucket/ckpt/", "local_path": "/opt/ml/ckpt"}, "ckpt")
    workdir = tmp_path / "run"
    before = checksums(tmp_path / "code")

    first = run_local(config, "--workdir", str(workdir))
    assert first.returncode == 1, first.stderr[-2000:]
    log = first.stdout + first.stderr
    assert "checkpoints: 0 file(s) restored" in log
    assert "algo-1 found []" in log and "algo-2 found []" in log
    store = checkpoint_sync.store(workdir)
    assert sorted(p.name for p in store.iterdir()) == ["algo-1-run1", "algo-2-run1", "shared"]
    assert (store / "shared").read_text() == "algo-2"  # the later host's copy of one path

    second = run_local(config, "--workdir", str(workdir))
    log = second.stdout + second.stderr
    assert second.returncode == 0, log[-2000:]
    assert "checkpoints: 3 file(s) restored" in log
    for host in ("algo-1", "algo-2"):  # every host gets the whole prefix
        assert f"{host} found ['algo-1-run1', 'algo-2-run1', 'shared']" in log
    assert sorted(p.name for p in store.iterdir()) == [
        "algo-1-run1",
        "algo-1-run2",
        "algo-2-run1",
        "algo-2-run2",
        "shared",
    ]
    assert checksums(tmp_path / "code") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["code", "job.yaml", "run"]


def test_without_a_checkpoint_config_every_run_starts_empty(tmp_path):
    config = _job(tmp_path, None, "checkpoints")
    workdir = tmp_path / "run"
    for _ in range(2):
        done = run_local(config, "--workdir", str(workdir))
        log = done.stdout + done.stderr
        assert done.returncode == 1, log[-2000:]
        assert "algo-1 found []" in log and "algo-2 found []" in log
        assert "checkpoints:" not in log
    assert not checkpoint_sync.store(workdir).exists()


def test_a_local_path_outside_opt_ml_is_a_warning_and_not_synced():
    request = {"CheckpointConfig": {"S3Uri": "s3://b/c/", "LocalPath": "/checkpoints"}}
    assert "outside /opt/ml" in (checkpoint_sync.warning(request) or "")
    host = HostTree("algo-1", Path("/tmp/run/algo-1"))
    assert checkpoint_sync.host_folder(host, request) is None
    inside = {"CheckpointConfig": {"S3Uri": "s3://b/c/"}}
    assert checkpoint_sync.warning(inside) is None
    assert checkpoint_sync.host_folder(host, inside) == Path("/tmp/run/algo-1/checkpoints")


def test_a_hosts_untouched_copy_never_overwrites_anothers_newer_one(tmp_path):
    """As a sync uploads new and modified files only: the chief rewrites the checkpoint state
    after the restore, the worker leaves its restored copy alone; the chief's stays."""
    request = {"CheckpointConfig": {"S3Uri": "s3://b/c/"}}
    hosts = [HostTree(f"algo-{i}", tmp_path / f"algo-{i}") for i in (1, 2)]
    store = checkpoint_sync.store(tmp_path)
    (store / "nested").mkdir(parents=True)
    (store / "checkpoint").write_text("ckpt-5")
    (store / "nested" / "kept").write_text("old")
    restored = checkpoint_sync.restore(tmp_path, hosts, request)
    assert sorted(map(str, restored.files)) == ["checkpoint", "nested/kept"]
    for host in hosts:  # every host got the whole store
        assert (host.checkpoints / "checkpoint").read_text() == "ckpt-5"
    (hosts[0].checkpoints / "checkpoint").write_text("ckpt-200")
    (hosts[0].checkpoints / "ckpt-200.index").write_text("new")
    (hosts[1].checkpoints / "nested" / "kept").unlink()  # a delete is not propagated
    assert checkpoint_sync.save(tmp_path, hosts, request, restored) == 2
    assert (store / "checkpoint").read_text() == "ckpt-200"
    assert (store / "ckpt-200.index").read_text() == "new"
    assert (store / "nested" / "kept").read_text() == "old"

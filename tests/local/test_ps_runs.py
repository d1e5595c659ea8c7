"""`sagelaunch local` of the PyTorch parameter server under mpirun (``distribution.strategy:
mpi``), across 2 emulated hosts: the ranks come from Open MPI's variables and the RPC rendezvous
from the MASTER_ADDR/PORT the entry point derives from them, as in the container."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.entrypoints.conftest import TorchJob
from tests.local.conftest import TINY_GPT, pytorch_config, run_local
from tests.local.test_mpi_runs import steps

pytestmark = pytest.mark.slow

HPS = {**TINY_GPT, "max_steps": 4, "lr": 3e-3}


def test_sync_parameter_server_under_mpirun_gives_ddps_losses(write_config, tmp_path):
    """2 hosts × 2 ranks: ps0 and 3 workers, sync: DDP on 3 ranks with the same global batch.
    Tolerance as the torchrun test's: rel 1e-5 (only AdamW's float-op order could differ)."""
    config = write_config(
        pytorch_config(
            compute={"instance_type": "ml.c5.xlarge", "instance_count": 2},
            distribution={"strategy": "mpi", "processes_per_host": 2},
            hyperparameters={**HPS, "parallel": "ps", "ps_mode": "sync", "num_ps": 1},
        )
    )
    done = run_local(config, "--keep", "--workdir", str(tmp_path / "run"), "-o", "json")
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout)["launcher"] == "mpirun"
    assert "parallel ps: 1 parameter server(s), 3 worker(s), sync updates" in done.stderr
    ps_losses = steps(done.stderr)
    assert sorted(ps_losses) == [1, 2, 3, 4]

    args = [arg for key, value in HPS.items() for arg in (f"--{key}", str(value))]
    ddp = TorchJob(tmp_path / "ddp").run_ok(*args, nproc=3).steps()
    assert ps_losses == pytest.approx(ddp, rel=1e-5)
    metrics = json.loads((tmp_path / "run/algo-1/output/data/metrics.json").read_text())
    assert (metrics["parallel"], metrics["num_workers"], metrics["global_batch_size"]) == (
        "ps",
        3,
        12,
    )
    assert Path(tmp_path / "run/algo-1/model/model.pt").is_file()

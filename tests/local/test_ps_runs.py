"""`sagelaunch local` of the PyTorch parameter server under mpirun (``distribution.strategy:
mpi``), across 2 emulated hosts: the ranks come from Open MPI's variables and the RPC rendezvous
from the MASTER_ADDR/PORT the entry point derives from them, as in the container."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from tests.entrypoints.conftest import model_at
from tests.entrypoints.test_train_pytorch_distributed import (  # noqa: F401  (runs: a fixture)
    DDP_REFERENCES,
    hyperparameters,
    runs,
)
from tests.entrypoints.test_train_pytorch_layouts import losses
from tests.local.conftest import TINY_GPT, pytorch_config, run_local
from tests.local.test_mpi_runs import steps

pytestmark = pytest.mark.slow

# max_grad_norm 0.1 clips every step: the servers must scale by the whole gradient's norm.
HPS = {**TINY_GPT, "max_steps": 4, "lr": 3e-3, "max_grad_norm": 0.1}
EXAMPLE = Path(__file__).resolve().parents[2] / "launch_configs" / "ps-cpu-local.yaml"


def test_async_example_runs_on_two_hosts_under_mpirun(tmp_path):
    """launch_configs/ps-cpu-local.yaml as a user runs it, with a tinier GPT: ps0 and 3 workers
    share the budget of 3 × 6 updates, each applied as it arrives."""
    small = {**TINY_GPT, "max_steps": 6, "checkpoint_every": 3}
    sets = [f"--set=local.hyperparameters.{k}={v}" for k, v in small.items()]
    done = run_local(EXAMPLE, *sets, "--keep", "--workdir", str(tmp_path / "run"), "-o", "json")
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout)["launcher"] == "mpirun" and not _warnings_besides_the_version(
        done.stderr
    )
    assert "1 parameter server(s), 3 worker(s), async updates" in done.stderr
    assert sorted(steps(done.stderr)) == list(range(1, 19)), "one line per update"
    host = tmp_path / "run" / "algo-1"
    metrics = json.loads((host / "output/data/metrics.json").read_text())
    assert (metrics["ps_mode"], metrics["updates"], metrics["hyperparameters"]["ps_timeout_s"]) == (
        "async",
        18,
        120,
    )
    assert (host / "model/model.pt").is_file()
    assert sorted(p.name for p in (host / "checkpoints/ps").iterdir()) == [
        "ps0-00000012.pt",
        "ps0-00000015.pt",
        "ps0-00000018.pt",
    ]


@pytest.mark.xdist_group("pytorch-distributed")  # its DDP run is made in that group's job
def test_sync_parameter_server_under_mpirun_gives_ddps_losses(write_config, tmp_path, runs):  # noqa: F811
    """2 hosts × 2 ranks: servers ps0, ps1 on algo-1, 2 workers on algo-2, sync: DDP on 2 ranks
    with the same global batch, clipped by the global norm (each server holds half the
    parameters; clipping each half by its own norm would differ: in the weights, since AdamW's
    first steps hardly feel a gradient's scale). Tolerance as the torchrun test's: rel 1e-5 on
    losses and weights (only AdamW's float-op order could differ)."""
    config = write_config(
        pytorch_config(
            compute={"instance_type": "ml.c5.xlarge", "instance_count": 2},
            distribution={"strategy": "mpi", "processes_per_host": 2},
            hyperparameters={**HPS, "parallel": "ps", "ps_mode": "sync", "num_ps": 2},
        )
    )
    done = run_local(config, "--keep", "--workdir", str(tmp_path / "run"), "-o", "json")
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout)["launcher"] == "mpirun"
    assert "parallel ps: 2 parameter server(s), 2 worker(s), sync updates" in done.stderr
    ps_losses = steps(done.stderr)
    assert sorted(ps_losses) == [1, 2, 3, 4]

    # DDP on 2 ranks with these hyperparameters (test_train_pytorch_distributed.py's job).
    args = [arg for key, value in HPS.items() for arg in (f"--{key}", str(value))]
    assert hyperparameters(DDP_REFERENCES["ddp.ps_clipped"]) == hyperparameters(args)
    ddp = losses(runs / "ddp.ps_clipped")
    assert ps_losses == pytest.approx(ddp, rel=1e-5)
    weights = torch.load(tmp_path / "run/algo-1/model/model.pt", weights_only=True)
    reference = model_at(runs / "ddp.ps_clipped")
    assert weights.keys() == reference.keys()
    for name, tensor in reference.items():
        torch.testing.assert_close(weights[name], tensor, rtol=1e-5, atol=1e-6, msg=name)
    metrics = json.loads((tmp_path / "run/algo-1/output/data/metrics.json").read_text())
    assert (metrics["parallel"], metrics["num_workers"], metrics["global_batch_size"]) == (
        "ps",
        2,
        8,
    )
    assert Path(tmp_path / "run/algo-1/model/model.pt").is_file()


def _warnings_besides_the_version(stderr: str) -> list[str]:
    """The examples pin an older framework_version than this venv's torch: that one warns."""
    return [
        line
        for line in stderr.splitlines()
        if "warning" in line and "framework_version" not in line
    ]

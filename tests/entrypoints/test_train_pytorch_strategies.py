"""The remaining PyTorch strategies: DataParallel (--parallel dp) and the RPC parameter server
(--parallel ps), checked against DDP on the same global batch."""

from __future__ import annotations

import re

import pytest
import torch

from tests.entrypoints.conftest import TINY_GPT, metrics_at, model_at
from tests.entrypoints.test_train_pytorch_distributed import (  # noqa: F401  (runs: a fixture)
    DDP_REFERENCES,
    hyperparameters,
    runs,
)
from tests.entrypoints.test_train_pytorch_layouts import losses as logged_losses

# Global batch 8: DDP's 2 ranks × 4, or the parameter server's 2 workers × 4.
PER_RANK = [*TINY_GPT, "--lr", "3e-3"]
STALENESS = re.compile(r"^step=\d+ .* staleness=(\d+)$", re.MULTILINE)


def test_dataparallel_on_cpu_runs_single_process_and_says_why_ddp_is_faster(train_pytorch_main):
    status, result, root = train_pytorch_main(*PER_RANK, "--parallel", "dp", "--max_steps", "3")

    assert status == 0, result.stderr
    assert "parallel dp on a CPU: nothing to split" in result.stdout
    assert "slower than DDP" in result.stdout and "main-GPU bottleneck" in result.stdout
    assert sorted(result.steps()) == [1, 2, 3]
    assert (root / "model" / "model.pt").is_file()


def test_dataparallel_refuses_more_than_one_process(entrypoints_on_path):
    import smenv
    import torch_config

    cfg = torch_config.TrainConfig(parallel="dp")
    assert torch_config.resolve_layout(cfg, 1, 1).world_size == 1
    with pytest.raises(smenv.UsageError, match="not 2 processes; use --parallel ddp"):
        torch_config.resolve_layout(cfg, 2, 2)


def test_parameter_server_needs_a_worker(entrypoints_on_path):
    import smenv
    import torch_config
    import torch_ps

    cfg = torch_config.TrainConfig(parallel="ps", num_ps=2)
    torch_ps.check(cfg, 3)
    with pytest.raises(smenv.UsageError, match="at least one worker besides them"):
        torch_ps.check(cfg, 2)


@pytest.mark.slow
@pytest.mark.xdist_group("pytorch-distributed")  # its DDP run is made in that group's job
def test_sync_parameter_server_gives_ddps_losses_and_weights_across_a_kill(torch_job, runs):  # noqa: F811
    """1 server + 2 workers in sync mode is DDP on 2 ranks: same global batch, same averaged
    gradients, same clipping and AdamW; SIGKILLed after step 5 and restarted, it resumes from
    its checkpoint. Tolerance: rel 1e-5 on losses and weights (the sum of two gradients is the
    same either way; only the order of float ops in AdamW could differ)."""
    ddp = runs / "ddp.ps_sync"  # DDP on 2 ranks (test_train_pytorch_distributed.py's job)
    assert hyperparameters(DDP_REFERENCES[ddp.name]) == hyperparameters(
        [*PER_RANK, "--max_steps", "10"]
    )
    expected = logged_losses(ddp)
    ps = torch_job("ps")
    sync = ["--parallel", "ps", "--num_ps", "1", "--ps_mode", "sync", "--max_steps", "10"]
    sync += ["--checkpoint_every", "3"]
    killed = ps.kill_after_step(5, *PER_RANK, *sync, nproc=3)
    assert killed.returncode == -9 and "step=5 " in killed.stdout
    result = ps.run_ok(*PER_RANK, *sync, nproc=3)
    resumed = int(re.search(r"resuming at update (\d+)", result.stdout).group(1))  # type: ignore[union-attr]
    assert resumed in (3, 6, 9)  # the checkpoint before the kill (later on a loaded machine)
    losses = {**killed.steps(), **result.steps()}

    lines = [line.split()[0] for line in result.stdout.splitlines() if line.startswith("step=")]
    assert lines == [f"step={n}" for n in range(resumed + 1, 11)], "once per step, server 0"
    assert losses.keys() == expected.keys() == set(range(1, 11))
    for step, loss in expected.items():
        assert losses[step] == pytest.approx(loss, rel=1e-5), step
    assert set(STALENESS.findall(result.stdout)) == {"0"}
    actual, reference = ps.model(), model_at(ddp)
    assert actual.keys() == reference.keys()
    for name, tensor in reference.items():
        torch.testing.assert_close(actual[name], tensor, rtol=1e-5, atol=1e-6, msg=name)
    metrics = ps.metrics()
    assert (metrics["parallel"], metrics["ps_mode"], metrics["num_workers"]) == ("ps", "sync", 2)
    assert metrics["resumed_from_update"] == resumed
    assert metrics["global_batch_size"] == metrics_at(ddp)["global_batch_size"] == 8
    assert metrics["final_train_loss"] == pytest.approx(expected[10], rel=1e-5)


@pytest.mark.slow
def test_async_parameter_server_on_two_shards_trains_and_logs_staleness(torch_job):
    job = torch_job("async")
    args = ["--parallel", "ps", "--num_ps", "2", "--max_steps", "8", "--lr", "1e-2"]
    result = job.run_ok(*TINY_GPT, *args, "--straggler_delay_ms", "20", nproc=4)

    losses = result.steps()
    assert sorted(losses) == list(range(1, 8 * 2 + 1)), "one line per update: 2 workers × 8"
    first, last = losses[1], losses[16]
    assert last < first - 0.1, losses
    assert len(STALENESS.findall(result.stdout)) == 16
    metrics = job.metrics()
    assert (metrics["ps_mode"], metrics["num_ps"], metrics["updates"]) == ("async", 2, 16)
    model = job.model()
    assert model and all(torch.isfinite(t).all() for t in model.values())

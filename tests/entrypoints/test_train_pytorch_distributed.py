"""train_pytorch.py under torchrun: two gloo ranks on loopback, DDP and FSDP."""

from __future__ import annotations

import re

import pytest
import torch

from tests.entrypoints.conftest import TINY_GPT, assert_same_weights, model_at

pytestmark = pytest.mark.slow

# Same global batch of 8 every way: 2 ranks x 2 samples x 2 micro-steps, or 1 process x 8.
TWO_RANKS = [*TINY_GPT, "--batch_size", "2", "--grad_accum", "2", "--lr", "3e-3"]
ONE_PROCESS = [*TINY_GPT, "--batch_size", "8", "--lr", "3e-3"]


def assert_close_weights(actual: dict, expected: dict) -> None:
    assert actual.keys() == expected.keys()
    for name, tensor in expected.items():
        torch.testing.assert_close(actual[name], tensor, rtol=1e-5, atol=1e-6, msg=name)


@pytest.fixture
def one_process(train_pytorch_main, tmp_path):
    """The single-process reference for 6 steps, and its metric lines."""
    status, result, root = train_pytorch_main(
        *ONE_PROCESS, "--max_steps", "6", root=tmp_path / "one"
    )
    assert status == 0
    return model_at(root), result.steps()


def test_ddp_on_two_ranks_matches_one_process(torch_job, one_process):
    expected_model, expected_losses = one_process
    job = torch_job("ddp")
    result = job.run_ok(*TWO_RANKS, "--max_steps", "6", nproc=2)

    assert result.stdout.count("step=6 ") == 1, "only rank 0 logs"
    losses = result.steps()
    assert losses.keys() == expected_losses.keys()
    for step, loss in expected_losses.items():
        assert losses[step] == pytest.approx(loss, rel=1e-4)
    metrics = job.metrics()
    assert (metrics["world_size"], metrics["parallel"], metrics["process_group"]) == (
        2,
        "ddp",
        "gloo",
    )
    assert metrics["global_batch_size"] == 8
    assert_close_weights(job.model(), expected_model)


def test_fsdp_on_two_ranks_trains_shards_and_resumes_bit_identical(torch_job, one_process):
    expected_model, _ = one_process
    job = torch_job("fsdp")
    fsdp = [*TWO_RANKS, "--parallel", "fsdp", "--checkpoint_every", "3", "--max_steps", "6"]
    job.run_ok(*fsdp, nproc=2)

    assert job.metrics()["parallel"] == "fsdp"
    first = job.model()
    assert_close_weights(first, expected_model)  # a gathered, full state dict
    shards = sorted(p.name for p in (job.checkpoint_dir / "step_000003").iterdir())
    assert shards == [".metadata", "COMPLETE", "__0_0.distcp", "__1_0.distcp", "extra.pt"]

    # Lose the last checkpoint and the model: the rerun must redo steps 4-6 from the shards. It
    # also takes the hybrid path (a 1x2 device mesh), which on one host shards exactly like
    # full sharding over two ranks, so the weights must come out the same to the bit.
    for path in (job.checkpoint_dir / "step_000006").iterdir():
        path.unlink()
    (job.checkpoint_dir / "step_000006").rmdir()
    (job.model_dir / "model.pt").unlink()
    result = job.run_ok(*fsdp, "--sharding", "hybrid", nproc=2)
    assert "resuming at step 3 of 6" in result.stdout
    assert sorted(result.steps()) == [4, 5, 6]
    assert job.metrics()["hyperparameters"]["sharding"] == "hybrid"
    assert_same_weights(job.model(), first)


def test_ddp_killed_and_restarted_ends_bit_identical(torch_job):
    # 30 steps: far enough past the kill at 4 that a late kill on a loaded machine still lands.
    args = [*TWO_RANKS, "--dropout", "0.1", "--checkpoint_every", "1", "--max_steps", "30"]
    reference = torch_job("reference")
    reference.run_ok(*args, nproc=2)

    job = torch_job("killed")
    killed = job.kill_after_step(4, *args, nproc=2)
    assert killed.returncode == -9
    assert not (job.model_dir / "model.pt").exists()
    result = job.run_ok(*args, nproc=2)
    resumed = int(re.search(r"resuming at step (\d+) of", result.stdout).group(1))
    assert 3 <= resumed < 30
    assert_same_weights(job.model(), reference.model())

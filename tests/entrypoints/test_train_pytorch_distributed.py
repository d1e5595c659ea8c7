"""train_pytorch.py under torchrun: two gloo ranks on loopback, DDP and FSDP.

DDP against one process runs train_pytorch.py itself under torchrun. FSDP (trained, then resumed
from its shards on the hybrid path) and DDP killed and restarted share ONE torchrun job of 2 ranks
(layout_driver.py, which runs train_pytorch's main() once per run in the same process group and
SIGKILLs forked copies of the ranks for a killed run), with the DDP runs that two parameter-server
tests compare with: a torchrun job costs seconds of imports and rendezvous, a tiny run a fraction
of one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from tests.entrypoints.conftest import (
    TINY_GPT,
    assert_same_weights,
    metrics_at,
    model_at,
)
from tests.entrypoints.test_train_pytorch_layouts import losses, run_driver, shared_dir

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("pytorch-distributed")]

# Same global batch of 8 every way: 2 ranks x 2 samples x 2 micro-steps, or 1 process x 8.
TWO_RANKS = [*TINY_GPT, "--batch_size", "2", "--grad_accum", "2", "--lr", "3e-3"]
ONE_PROCESS = [*TINY_GPT, "--batch_size", "8", "--lr", "3e-3"]
FSDP = [*TWO_RANKS, "--parallel", "fsdp", "--checkpoint_every", "3", "--max_steps", "6"]
# 30 steps: far enough past the kill at 4 that a late kill on a loaded machine still lands.
KILLED = [*TWO_RANKS, "--dropout", "0.1", "--checkpoint_every", "1", "--max_steps", "30"]
KILL_AT = 4
# DDP runs that other files compare a parameter server with (2 workers, the same global batch),
# made in this job, which starts 2 ranks anyway, instead of a torchrun job each; each user checks
# that these are its hyperparameters. test_train_pytorch_strategies.py's sync server: 10 steps;
# tests/local/test_ps_runs.py's: 4 steps, clipped at 0.1 every step.
DDP_REFERENCES = {
    "ddp.ps_sync": [*TINY_GPT, "--lr", "3e-3", "--max_steps", "10"],
    "ddp.ps_clipped": [*TINY_GPT, "--max_steps", "4", "--lr", "3e-3", "--max_grad_norm", "0.1"],
}


def hyperparameters(argv: list[str]) -> dict[str, str | float]:
    """``--key value`` pairs as a mapping, numbers as numbers: argv in any order, and 3e-3 or
    0.003, mean the same run."""

    def value(text: str) -> str | float:
        try:
            return float(text)
        except ValueError:
            return text

    return {key: value(text) for key, text in zip(argv[::2], argv[1::2], strict=True)}


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


@pytest.fixture(scope="session")
def runs(tmp_path_factory) -> Iterator[Path]:
    """FSDP, FSDP resumed from its step-3 shards on the hybrid path, and DDP: uninterrupted,
    and killed after step KILL_AT then restarted where it left its checkpoints; and the
    DDP_REFERENCES. One job."""
    with shared_dir(tmp_path_factory, "pytorch-distributed") as (base, done):
        if not done:
            _run_all(base)
    yield base


def _run_all(base: Path) -> None:
    base.mkdir(parents=True, exist_ok=True)
    killed = {"root": str(base / "ddp.killed"), "argv": KILLED}
    specs = [
        {**killed, "kill_after_step": KILL_AT},  # the driver runs killed runs first
        {"root": str(base / "fsdp"), "argv": FSDP},
        # As if the last checkpoint and the model were lost: only step 3's shards to resume.
        {
            "root": str(base / "fsdp.hybrid"),
            "argv": [*FSDP, "--sharding", "hybrid"],
            "resume_from": str(base / "fsdp" / "checkpoints" / "step_000003"),
        },
        {"root": str(base / "ddp.reference"), "argv": KILLED},
        killed,  # restarted
        *({"root": str(base / name), "argv": argv} for name, argv in DDP_REFERENCES.items()),
    ]
    run_driver(base, specs, ranks=2)


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


def test_fsdp_on_two_ranks_trains_shards_and_resumes_bit_identical(runs, one_process):
    expected_model, _ = one_process
    fsdp = runs / "fsdp"
    assert metrics_at(fsdp)["parallel"] == "fsdp"
    first = model_at(fsdp)
    assert_close_weights(first, expected_model)  # a gathered, full state dict
    shards = sorted(p.name for p in (fsdp / "checkpoints" / "step_000003").iterdir())
    assert shards == [".metadata", "COMPLETE", "__0_0.distcp", "__1_0.distcp", "extra.pt"]

    # Without the last checkpoint and the model, the rerun must redo steps 4-6 from the shards.
    # It also takes the hybrid path (a 1x2 device mesh), which on one host shards exactly like
    # full sharding over two ranks, so the weights must come out the same to the bit.
    hybrid = runs / "fsdp.hybrid"
    assert "resuming at step 3 of 6" in (hybrid / "stdout.txt").read_text()
    assert sorted(losses(hybrid)) == [4, 5, 6]
    assert metrics_at(hybrid)["hyperparameters"]["sharding"] == "hybrid"
    assert_same_weights(model_at(hybrid), first)


def test_ddp_killed_and_restarted_ends_bit_identical(runs):
    killed = runs / "ddp.killed"
    # -9 on both ranks: the kill landed while they were still training, and left no model.pt.
    assert [(killed / f"status.{rank}").read_text() for rank in range(2)] == ["-9"] * 2
    assert "model.pt" not in json.loads((killed / "model_after_kill.json").read_text())
    seen = losses(killed, "killed.txt")
    assert KILL_AT in seen and 30 not in seen
    restarted = (killed / "stdout.txt").read_text()
    resumed = int(re.search(r"resuming at step (\d+) of", restarted).group(1))
    assert KILL_AT - 1 <= resumed < 30
    assert min(losses(killed)) == resumed + 1
    assert_same_weights(model_at(killed), model_at(runs / "ddp.reference"))

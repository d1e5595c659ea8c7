"""DeepSpeed ZeRO in the PyTorch entry point, on 2 gloo ranks: every stage trains DDP's model.

All runs share ONE torchrun job of 2 ranks (layout_driver.py): DDP, ZeRO-1, ZeRO-2 (from the
shorthand and from a DeepSpeed JSON file), ZeRO-3, ZeRO-3 with optimizer and parameters offloaded
to the CPU, and that last one resumed from its step-5 checkpoint; the offloaded ZeRO-3 run is
also SIGKILLed mid-run on both ranks (the driver's forked copies of them) and restarted from what
it left on disk.

Tolerance: losses agree with DDP's to rel 1e-4 and weights to rtol 1e-4 / atol 1e-5 over 10 steps.
Every stage computes DDP's fp32 maths (the same AdamW: DeepSpeed's torch_adam option) but sums in
another order: ZeRO reduce-scatters gradients in flattened buckets and computes the clipping norm
from partitions, where DDP all-reduces per bucket and norms whole tensors. Each reorder moves
results by a few fp32 ulps (~1e-7 relative); Adam's division by sqrt(v) amplifies that early on to
~1e-6 after 10 steps. The tolerances leave 10-100× headroom and stay far below what a wrong
gradient (a missed reduction, a double-counted rank, a lost partition) does: >1e-2 in one step.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from tests.entrypoints.conftest import (
    assert_same_weights,
    model_at,
)
from tests.entrypoints.test_train_pytorch_layouts import (
    assert_close_losses,
    assert_close_weights,
    losses,
    run_driver,
    shared_dir,
)

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("deepspeed")]

STEPS = 10
MODEL = [
    *("--model", "gpt", "--n_layer", "2", "--n_head", "2", "--n_embd", "32"),
    *("--seq_len", "16", "--vocab_size", "64", "--log_every", "1", "--lr", "3e-3"),
    *("--batch_size", "4", "--max_steps", str(STEPS), "--checkpoint_every", "5"),
]


# The killed run checkpoints every step (after MODEL's own, so it wins) and dies after KILL_AT.
EVERY_STEP = ["--checkpoint_every", "1"]
KILL_AT = 3


def step5(root: Path) -> Path:
    return root / "checkpoints" / "step_000005"


OFFLOAD = ["--zero_stage", "3", "--offload_optimizer", "cpu", "--offload_params", "cpu"]
# A DeepSpeed config as users write them for the HF Trainer: "auto" where the script decides.
ZERO2_FILE = {
    "train_micro_batch_size_per_gpu": "auto",
    "gradient_accumulation_steps": "auto",
    "zero_optimization": {"stage": 2, "overlap_comm": True, "contiguous_gradients": True},
}
RUNS = {
    "ddp": [],
    "zero1": ["--zero_stage", "1"],
    "zero2": ["--zero_stage", "2"],
    "zero2_file": ["--deepspeed_config", "CONFIG"],
    "zero3": ["--zero_stage", "3"],
    "zero3_offload": OFFLOAD,
}


@pytest.fixture(scope="session")
def runs(tmp_path_factory) -> Iterator[Path]:
    with shared_dir(tmp_path_factory, "deepspeed") as (base, done):
        if not done:
            _run_all(base)
    yield base


def _run_all(base: Path) -> None:
    base.mkdir(parents=True, exist_ok=True)
    config = base / "ds_zero2.json"
    config.write_text(json.dumps(ZERO2_FILE))
    specs = [
        {
            "root": str(base / name),
            "argv": [*MODEL, *(str(config) if a == "CONFIG" else a for a in argv)],
        }
        for name, argv in RUNS.items()
    ]
    specs.append(
        {
            "root": str(base / "zero3_offload.resumed"),
            "argv": [*MODEL, *OFFLOAD],
            "resume_from": str(step5(base / "zero3_offload")),
        }
    )
    # Killed after step KILL_AT (the driver runs killed runs first), then restarted in its root.
    killed = {"root": str(base / "zero3_offload.killed"), "argv": [*MODEL, *OFFLOAD, *EVERY_STEP]}
    specs += [{**killed, "kill_after_step": KILL_AT}, killed]
    run_driver(base, specs, ranks=2, timeout=900)


@pytest.mark.parametrize("name", ["zero1", "zero2", "zero2_file", "zero3", "zero3_offload"])
def test_every_zero_stage_trains_ddps_model(runs, name):
    assert sorted(losses(runs / "ddp")) == list(range(1, STEPS + 1))
    assert_close_losses(losses(runs / name), losses(runs / "ddp"))
    # model.pt is the whole model (ZeRO-3 gathers its partitions), as DDP's.
    assert_close_weights(model_at(runs / name), model_at(runs / "ddp"))
    stdout = (runs / name / "stdout.txt").read_text()
    assert "parallel deepspeed" in stdout


def test_zero3_with_cpu_offload_learns(runs):
    trained = losses(runs / "zero3_offload")
    assert trained[STEPS] < trained[1] - 0.05
    metrics = json.loads((runs / "zero3_offload" / "output" / "data" / "metrics.json").read_text())
    assert metrics["parallel"] == "deepspeed" and metrics["world_size"] == 2


def test_deepspeed_checkpoints_are_atomic_and_resume_bit_identical(runs):
    step = step5(runs / "zero3_offload")
    manifest = json.loads((step / "COMPLETE").read_text())
    assert manifest["format"] == "deepspeed"
    assert {"extra.pt", "zero_pp_rank_1_mp_rank_00_optim_states.pt"} <= set(manifest["files"])
    resumed = runs / "zero3_offload.resumed"
    assert "resuming at step 5 of 10" in (resumed / "stdout.txt").read_text()
    assert_same_weights(model_at(resumed), model_at(runs / "zero3_offload"))


def test_zero3_offload_killed_and_restarted_ends_bit_identical(runs):
    killed = runs / "zero3_offload.killed"
    # -9 on both ranks: the kill landed while they were still training, and left no model.pt.
    assert [(killed / f"status.{rank}").read_text() for rank in range(2)] == ["-9"] * 2
    assert "model.pt" not in json.loads((killed / "model_after_kill.json").read_text())
    seen = losses(killed, "killed.txt")
    assert KILL_AT in seen and STEPS not in seen
    restarted = (killed / "stdout.txt").read_text()
    resumed = int(re.search(r"resuming at step (\d+) of", restarted).group(1))
    assert KILL_AT - 1 <= resumed < STEPS
    assert min(losses(killed)) == resumed + 1
    # The same run uninterrupted (checkpointing every 5 steps instead: saving changes nothing).
    assert_same_weights(model_at(killed), model_at(runs / "zero3_offload"))


def test_deepspeed_config_file_fills_auto_from_the_hyperparameters(entrypoints_on_path, tmp_path):
    import torch_config
    import torch_deepspeed

    (tmp_path / "ds.json").write_text(json.dumps(ZERO2_FILE))
    cfg = torch_config.TrainConfig(deepspeed_config="ds.json", batch_size=6, grad_accum=2, lr=0.01)
    built = torch_deepspeed.build_config(cfg, "fp32", tmp_path)
    assert built["train_micro_batch_size_per_gpu"] == 6
    assert built["gradient_accumulation_steps"] == 2
    assert built["zero_optimization"] == ZERO2_FILE["zero_optimization"]
    assert built["optimizer"]["params"]["lr"] == 0.01
    assert built["optimizer"]["params"]["torch_adam"] is not torch.cuda.is_available()
    assert built["checkpoint"] == {"use_node_local_storage": True}


def test_bad_deepspeed_hyperparameters_fail_before_any_work(train_pytorch_main):
    for argv, message in [
        (["--zero_stage", "4"], "--zero_stage must be 1, 2 or 3"),
        (["--offload_optimizer", "cpu"], "add --zero_stage"),
        (["--zero_stage", "2", "--offload_params", "cpu"], "--offload_params needs --zero_stage 3"),
        (["--zero_stage", "2", "--parallel", "fsdp"], "DeepSpeed ZeRO replaces"),
        (["--deepspeed_config", "missing.json", "--max_steps", "1"], "cannot be read"),
    ]:
        status, result, _ = train_pytorch_main(*argv)
        assert status != 0 and message in result.stderr, (argv, result.stderr)


def test_a_deepspeed_checkpoint_is_not_resumed_without_deepspeed(
    runs, train_pytorch_main, tmp_path
):
    root = tmp_path / "plain"
    shutil.copytree(step5(runs / "zero3_offload"), root / "checkpoints" / "step_000005")
    status, result, _ = train_pytorch_main(*MODEL, root=root)
    assert status != 0 and "written in the deepspeed format" in result.stderr

"""Every 4-process layout (TP, PP, DDP, FSDP, HSDP, ZeRO-1 and their mixes) trains the same model
as one process on the same global batch, resumes bit-identically after a SIGKILL, and reshards.

All layouts run in ONE torchrun job of 4 gloo ranks (tests/entrypoints/layout_driver.py), which
shares its process group across runs; the single-process references run in this process. Each
layout (but those whose checkpoints are another's: RESUMED_AS) is also run with a checkpoint every
step and SIGKILLed after step KILL_AT (a forked copy of the job's ranks, killed all at once), then
restarted from what it left on disk: its final weights must equal the uninterrupted run's bit for
bit.

Tolerance: per-step losses agree with the single-process run to rel 1e-4, and each final weight
tensor to 1e-4 of its norm. Every layout computes the same fp32 maths, but sums in another order:
TP adds partial matmul products across ranks (RowwiseParallel's all-reduce) and multiplies shards
of another shape (which the CPU's matmul kernels sum in another order), DP averages gradients by
all-reduce / reduce-scatter, PP averages micro-batch gradients. Each reorder changes results by a
few fp32 ulps (~1e-7 relative); Adam's update divides by sqrt(v), which amplifies tiny gradient
differences early on. Tensors are compared in norm, not element by element: an element whose
gradient nearly cancels (the last block's attention queries: softmax gradients sum to zero) takes
steps that differ by ~3e-4 relative between TP and one process on an AVX-512/AMX CPU, while the
tensor as a whole agrees to ~1e-5 (DP layouts: ~1e-6). The bound is still far below what any
wrong gradient (a missed all-reduce, a dropped micro-batch, a stage off by one) produces: those
move the loss by >1e-2 within a step, and the weights by as much.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from tests.entrypoints.conftest import (
    ENTRYPOINTS,
    STEP_LINE,
    TorchJob,
    assert_same_weights,
    free_port,
    model_at,
    torchrun,
)

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("layouts")]

DRIVER = Path(__file__).with_name("layout_driver.py")
# Few steps: a TP step costs ~0.7 s here (4 gloo ranks on 2 cores, a collective per layer and
# direction), and what a resume can get wrong (optimizer state, random streams, the step count)
# shows on the first step after it (a reshard resumes at SAVE_AT with two steps to go).
STEPS = 4
SAVE_AT = 2  # the checkpoint a reshard or a one-process run resumes
# 2 layers (one per stage of a 2-stage pipeline), 4 heads (so TP can split them 4 ways). A TP
# step's cost grows with the layers (collectives and DTensor dispatch per block: 2 layers halve
# it), and a wrong reduction or stage shows in any layer. Only the interleaved schedule needs 4
# (2 ranks × 2 stages each): it says so itself (DEEP) and is held to a 4-layer reference.
MODEL = [
    *("--model", "gpt", "--n_layer", "2", "--n_head", "4", "--n_embd", "32"),
    *("--seq_len", "16", "--vocab_size", "64", "--log_every", "1", "--lr", "3e-3"),
    *("--max_steps", str(STEPS), "--checkpoint_every", str(SAVE_AT)),
]
TP, PP, SP = "--tensor_parallel_degree", "--pipeline_parallel_degree", "--sequence_parallel"
LOSS = "--loss_parallel"  # the head split by vocabulary, the loss on its shards
DEEP = ["--n_layer", "4"]  # after MODEL's own, so it wins
# name -> hyperparameters; --batch_size is per data-parallel rank, so the global batch is 8 always.
# tp4_sp and pp2_tp2_sp compute the loss on vocabulary shards (pp2_tp2_sp's checkpoint reshards
# to a layout with a whole head); the other TP layouts keep the head whole.
LAYOUTS = {
    "tp4_sp": [TP, "4", SP, LOSS, "--batch_size", "8"],
    "tp2_ddp2": [TP, "2", "--batch_size", "4"],
    "tp2_fsdp2": [TP, "2", "--parallel", "fsdp", "--batch_size", "4"],
    "pp2_dp2_gpipe": [
        PP,
        "2",
        "--pipeline_schedule",
        "gpipe",
        "--microbatches",
        "2",
        "--batch_size",
        "4",
    ],
    "pp2_dp2_1f1b": [PP, "2", "--microbatches", "2", "--batch_size", "4"],
    "pp2_interleaved_dp2": [
        PP,
        "2",
        "--pipeline_schedule",
        "interleaved_1f1b",
        "--stages_per_rank",
        "2",
        "--microbatches",
        "2",
        "--batch_size",
        "4",
        *DEEP,
    ],
    "pp2_tp2_sp": [PP, "2", TP, "2", SP, LOSS, "--microbatches", "4", "--batch_size", "8"],
    "pp2_fsdp2": [PP, "2", "--parallel", "fsdp", "--microbatches", "2", "--batch_size", "4"],
    "fsdp4": ["--parallel", "fsdp", "--batch_size", "2"],
    "hsdp2x2": ["--parallel", "fsdp", "--dp_replicate", "2", "--batch_size", "2"],
    "zero1x4": ["--zero1", "--batch_size", "2"],
    # ZeRO-1 beside TP (torch_zero1: reduce-scatter, a slice's step, all-gather)
    "tp2_zero1x2": [TP, "2", "--zero1", "--batch_size", "4"],
}
# ZeRO-1 beside PP under bf16: bf16 weights, each rank's fp32 master slices (Megatron's
# distributed optimizer). Other maths than one fp32 process, so held to it loosely (BF16_LOSS).
BF16 = {
    "pp2_zero1x2.bf16": [
        *(PP, "2", "--zero1", "--microbatches", "2", "--batch_size", "4", "--precision", "bf16")
    ],
}
# bf16 weights round each update to 8 bits of mantissa and reduce bf16 gradients: losses stay
# within 1e-3 of fp32's over these steps, and the weights within 1% in norm; a missed reduction
# or a lost micro-batch moves the loss by more than 1e-2 within a step.
BF16_LOSS, BF16_WEIGHTS = 1e-3, 1e-2
# SIGKILL once step 2 is logged, while step 2's checkpoint is usually being written (killed runs
# checkpoint every step). Checkpoint writes are the costly part of these tiny runs, so only the
# runs a test resumes from write any.
KILL_AT = 2
KILLED = ["--checkpoint_every", "1"]  # after MODEL's own, so it wins
NO_SAVES = ["--checkpoint_every", "0"]
# Killed and restarted: every layout but seven whose checkpoint and resume are another's. GPipe
# saves what 1F1B saves (the schedule orders micro-batches within a step, nothing it saves),
# pp2_tp2_sp's state is its dropout twin's minus the random streams that twin restores too, and
# so is tp4_sp's (the same TP plan, SP and loss on vocabulary shards, on a 4-rank TP mesh: the
# same DTensor state through the same checkpoint code); FSDP over 4 saves what HSDP 2 × 2 saves
# on its (replicate, shard) mesh, by the same code; ZeRO-1 saves and loads its slices by the
# same code beside TP as beside PP under bf16 (there with the fp32 master too). TP beside DDP
# saves the same TP plan's DTensors as TP beside FSDP, through the same sharded_state and dcp
# code (FSDP shards them further over the data-parallel ranks, DDP's replicas are deduplicated);
# PP beside FSDP saves each rank's stage as the DDP pipeline does, its FSDP shards as HSDP's, by
# the same code again (both halves restarted in pp2_dp2_1f1b and hsdp2x2).
RESUMED_AS = {
    "tp2_ddp2": "tp2_fsdp2",
    "pp2_fsdp2": "hsdp2x2",
    "pp2_dp2_gpipe": "pp2_dp2_1f1b",
    "pp2_tp2_sp": "pp2_tp2_sp.dropout",
    "tp4_sp": "pp2_tp2_sp.dropout",
    "fsdp4": "hsdp2x2",
    "tp2_zero1x2": "pp2_zero1x2.bf16",
}
# The layouts whose SAVE_AT checkpoint a test resumes.
SAVED = {"tp2_fsdp2", "pp2_tp2_sp", "pp2_dp2_1f1b", "tp2_zero1x2"}
# Dropout on: the restored per-rank random streams must matter too (TP ranks share one stream,
# data-parallel ranks and stages each have their own).
DROPOUT = ["--dropout", "0.1"]
# Resume a layout's SAVE_AT checkpoint under another layout and train on to STEPS.
# ZeRO-1's checkpoints hold whole AdamW state under the model's names, so another layout resumes
# them (and ZeRO-1 resumes another's by the same standin: its killed and restarted run loads
# through it); a pipeline's, with the loss on vocabulary shards, resumes with a whole head.
RESHARD = {
    "tp2_zero1x2->fsdp4": ("tp2_zero1x2", "fsdp4"),
    "pp2_tp2_sp->tp2_fsdp2": ("pp2_tp2_sp", "tp2_fsdp2"),
}


def losses(root: Path, name: str = "stdout.txt") -> dict[int, float]:
    found = (STEP_LINE.match(line) for line in (root / name).read_text().splitlines())
    return {int(m.group(1)): float(m.group(2)) for m in found if m}


def assert_close_losses(actual: dict[int, float], expected: dict[int, float]) -> None:
    assert actual.keys() == expected.keys()
    for step, loss in expected.items():
        assert actual[step] == pytest.approx(loss, rel=1e-4), f"step {step}"


def assert_close_weights(actual: dict, expected: dict) -> None:
    """Each tensor within 1e-4 of its norm (the module docstring says why not element-wise);
    1e-6 absolute for a tensor near zero."""
    assert actual.keys() == expected.keys()
    for name, tensor in expected.items():
        error = torch.linalg.vector_norm(actual[name] - tensor).item()
        bound = 1e-4 * torch.linalg.vector_norm(tensor).item() + 1e-6
        assert error <= bound, f"{name}: |actual - expected| = {error:.2e} > {bound:.2e}"


def saved(root: Path) -> Path:
    return root / "checkpoints" / f"step_{SAVE_AT:06d}"


@contextlib.contextmanager
def shared_dir(tmp_path_factory, name: str) -> Iterator[tuple[Path, bool]]:
    """A directory every xdist worker of this session shares, locked while one fills it; yields
    (dir, already filled). One 4-process job for all workers, however xdist schedules the tests."""
    root = tmp_path_factory.getbasetemp()
    root = root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root
    with (root / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        base = root / name
        done = base / "done"
        yield base, done.exists()
        base.mkdir(exist_ok=True)
        done.touch()


@pytest.fixture(scope="session")
def layouts(tmp_path_factory) -> Iterator[Path]:
    """Every layout for STEPS steps, each also killed and restarted, and the reshards: one job."""
    with shared_dir(tmp_path_factory, "layouts") as (base, done):
        if not done:
            _run_layouts(base)
    yield base


def _run_layouts(base: Path) -> None:
    base.mkdir(parents=True, exist_ok=True)
    killed = {
        f"{name}.killed": [*MODEL, *argv]
        for name, argv in LAYOUTS.items()
        if name not in RESUMED_AS
    }
    killed["pp2_tp2_sp.dropout.killed"] = [*MODEL, *LAYOUTS["pp2_tp2_sp"], *DROPOUT]
    killed |= {f"{name}.killed": [*MODEL, *argv] for name, argv in BF16.items()}
    # First the killed runs (forked, each in a group of its own), then the shared group's runs.
    runs = [
        {"root": str(base / name), "argv": [*argv, *KILLED], "kill_after_step": KILL_AT}
        for name, argv in killed.items()
    ]
    runs += [
        {"root": str(base / name), "argv": [*MODEL, *argv, *([] if name in SAVED else NO_SAVES)]}
        for name, argv in (LAYOUTS | BF16).items()
    ]
    dropout = [*MODEL, *LAYOUTS["pp2_tp2_sp"], *DROPOUT, *NO_SAVES]
    runs.append({"root": str(base / "pp2_tp2_sp.dropout"), "argv": dropout})
    # Restarted where each killed run left its checkpoints (torn ones included).
    runs += [
        {"root": str(base / name), "argv": [*argv, *NO_SAVES]} for name, argv in killed.items()
    ]
    runs += [
        {
            "root": str(base / name),
            "argv": [*MODEL, *LAYOUTS[target], *NO_SAVES],
            "resume_from": str(saved(base / source)),
        }
        for name, (source, target) in RESHARD.items()
    ]
    run_driver(base, runs, ranks=4)


def run_driver(base: Path, runs: list[dict], ranks: int, timeout: float = 600) -> None:
    """``runs`` in one torchrun job of ``ranks`` ranks (layout_driver.py: killed runs first, then
    the rest in the shared group), asserting that it ends well and no run wrote a failure."""
    (base / "runs.json").write_text(json.dumps(runs))
    launcher = torchrun(ranks, base / "torchelastic")
    rendezvous = ["--master_addr", "127.0.0.1", "--master_port", str(free_port())]
    proc = subprocess.run(
        [*launcher, *rendezvous, str(DRIVER), str(base / "runs.json")],
        cwd=ENTRYPOINTS,
        env=TorchJob(base / "env").env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    failures = {p.parent.parent.name: p.read_text() for p in base.glob("*/output/failure")}
    assert proc.returncode == 0 and not failures, f"{failures}\n{proc.stderr[-3000:]}"


@pytest.fixture(scope="session")
def reference(tmp_path_factory) -> Iterator[Path]:
    """One process, global batch 8, the same steps: the 2-layer model in ``shallow/``, the
    4-layer one (DEEP) in ``deep/``. In this process (torch is imported here already; a
    subprocess would import it again for each): nothing of its own is under test, the layouts are
    held to its losses and weights."""
    with shared_dir(tmp_path_factory, "single") as (root, done):
        if not done:
            for name, extra in (("shallow", []), ("deep", DEEP)):
                run_in_process(root / name, [*MODEL, *extra, "--batch_size", "8", *NO_SAVES])
    yield root


def reference_of(reference: Path, name: str) -> Path:
    """The one-process run a layout is held to: the one with its model."""
    argv = (LAYOUTS | BF16)[name]
    deep = any(argv[i : i + len(DEEP)] == DEEP for i in range(len(argv)))
    return reference / ("deep" if deep else "shallow")


def run_in_process(root: Path, argv: list[str]) -> None:
    """train_pytorch's main() here, as smenv.run would run it, in a fake /opt/ml under ``root``
    (its stdout in root/stdout.txt); this process's environment is left as it was."""
    if str(ENTRYPOINTS) not in sys.path:
        sys.path.insert(0, str(ENTRYPOINTS))
    import smenv
    import train_pytorch

    saved_env = dict(os.environ)
    os.environ.clear()
    os.environ.update(TorchJob(root).env())
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            status = smenv.run(
                train_pytorch.main, ["--checkpoint_dir", str(root / "checkpoints"), *argv]
            )
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
    (root / "stdout.txt").write_text(out.getvalue())
    assert status == 0, out.getvalue()


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_layout_matches_one_process(layouts, reference, name):
    run, one = layouts / name, reference_of(reference, name)
    assert_close_losses(losses(run), losses(one))
    assert sorted(losses(one)) == list(range(1, STEPS + 1))
    assert_close_weights(model_at(run), model_at(one))


@pytest.mark.parametrize("name", list(BF16))
def test_bf16_layout_trains_as_one_fp32_process(layouts, reference, name):
    reference = reference_of(reference, name)
    actual, expected = losses(layouts / name), losses(reference)
    assert actual.keys() == expected.keys()
    for step, loss in expected.items():
        assert actual[step] == pytest.approx(loss, rel=BF16_LOSS), f"step {step}"
    weights, fp32 = model_at(layouts / name), model_at(reference)
    assert {w.dtype for w in weights.values()} == {torch.bfloat16}  # model.pt: the bf16 weights
    error = sum(torch.sum((weights[k].float() - fp32[k]) ** 2) for k in fp32) ** 0.5
    assert error <= BF16_WEIGHTS * sum(torch.sum(w**2) for w in fp32.values()) ** 0.5


@pytest.mark.parametrize(
    "name",
    [
        *(name for name in LAYOUTS if name not in RESUMED_AS),
        "pp2_tp2_sp.dropout",
        *BF16,
    ],
)
def test_layout_killed_and_restarted_ends_bit_identical(layouts, name):
    killed = layouts / f"{name}.killed"
    # -9 on every rank: the kill landed while all four were still training, none had finished.
    assert [(killed / f"status.{rank}").read_text() for rank in range(4)] == ["-9"] * 4
    seen = losses(killed, "killed.txt")
    assert KILL_AT in seen and STEPS not in seen
    # The step logged before the kill may not be committed yet; the one before it is.
    restarted = (killed / "stdout.txt").read_text()
    resumed = int(re.search(rf"resuming at step (\d+) of {STEPS}", restarted).group(1))
    assert max(KILL_AT - 1, 1) <= resumed < STEPS
    assert min(losses(killed)) == resumed + 1
    assert_same_weights(model_at(killed), model_at(layouts / name))


def test_metrics_name_the_mesh(layouts):
    metrics = json.loads((layouts / "pp2_tp2_sp" / "output" / "data" / "metrics.json").read_text())
    assert metrics["mesh"] == {"dp_replicate": 1, "dp_shard": 1, "pp": 2, "tp": 2}
    assert metrics["global_batch_size"] == 8
    hsdp = json.loads((layouts / "hsdp2x2" / "output" / "data" / "metrics.json").read_text())
    assert hsdp["mesh"] == {"dp_replicate": 2, "dp_shard": 2, "pp": 1, "tp": 1}
    shards = {p.name for p in saved(layouts / "tp2_fsdp2").iterdir()}
    assert {".metadata", "COMPLETE", "extra.pt", "__3_0.distcp"} <= shards


@pytest.mark.parametrize(
    ("zero1", "replicated", "share"),
    # over 2 data-parallel ranks: half of AdamW's two moments; under bf16 the fp32 master too
    [("tp2_zero1x2", "tp2_ddp2", 1 / 2), ("pp2_zero1x2.bf16", "pp2_dp2_1f1b", 3 / 4)],
)
def test_zero1_holds_a_share_of_the_optimizer_state(layouts, zero1, replicated, share):
    """Rank 0's optimizer state, as metrics.json reports it, against its DDP twin's."""
    held = {
        name: json.loads((layouts / name / "output" / "data" / "metrics.json").read_text())
        for name in (zero1, replicated)
    }
    whole = held[replicated]["optimizer_state_elements"]
    assert whole > 0
    assert held[zero1]["optimizer_state_elements"] == pytest.approx(share * whole, abs=4)


@pytest.mark.parametrize("name", list(RESHARD))
def test_checkpoint_reshards_to_another_layout(layouts, name):
    source, _ = RESHARD[name]
    run = layouts / name
    assert f"resuming at step {SAVE_AT} of {STEPS}" in (run / "stdout.txt").read_text()
    expected = {s: v for s, v in losses(layouts / source).items() if s > SAVE_AT}
    assert_close_losses(losses(run), expected)
    assert_close_weights(model_at(run), model_at(layouts / source))


@pytest.mark.parametrize("source", ["tp2_fsdp2", "pp2_dp2_1f1b"])
def test_sharded_checkpoint_resumes_in_one_process(layouts, train_pytorch_main, tmp_path, source):
    root = tmp_path / "single"
    shutil.copytree(saved(layouts / source), root / "checkpoints" / saved(root).name)
    status, result, _ = train_pytorch_main(*MODEL, "--batch_size", "8", root=root)
    assert status == 0
    assert f"resuming at step {SAVE_AT} of {STEPS}" in result.stdout
    expected = {s: v for s, v in losses(layouts / source).items() if s > SAVE_AT}
    assert_close_losses(result.steps(), expected)
    assert_close_weights(model_at(root), model_at(layouts / source))

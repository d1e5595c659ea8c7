"""Crash safety: a job SIGKILLed at any moment and restarted ends bit-identical to one never
killed; damaged or half-written checkpoints are skipped with a warning."""

from __future__ import annotations

import re

import pytest

from tests.entrypoints.conftest import TINY_GPT, assert_same_weights, model_at

# Dropout on, so the restored RNG streams matter; a checkpoint every step, so kills often land
# in the middle of writing one.
RUN = [*TINY_GPT, "--dropout", "0.1", "--checkpoint_every", "1", "--max_steps", "40"]
RESUMED = re.compile(r"resuming at step (\d+) of")


@pytest.fixture
def one_thread():
    """This process's torch on one thread while a test runs, as OMP_NUM_THREADS=1 puts the
    subprocesses (torch_job's environment): the same kernels, so the same bits."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def uninterrupted(train_pytorch_main, tmp_path, one_thread):
    """The run never killed, in this process (torch is imported here already; what is under test
    is the killed job's subprocesses and the restart)."""
    status, _, root = train_pytorch_main(*RUN, root=tmp_path / "reference")
    assert status == 0
    return model_at(root)


@pytest.mark.slow  # two training processes killed, one after another
def test_killed_at_several_points_ends_bit_identical(torch_job, uninterrupted, train_pytorch_main):
    job = torch_job("killed")
    previous_kill = 0
    # A kill of a fresh run, then of a resumed one; far from step 40, so a late kill (loaded CI)
    # still lands.
    for kill_at in (3, 18):
        killed = job.kill_after_step(kill_at, *RUN)
        # -9: the kill landed while the job was still training, not after it had finished.
        assert killed.returncode == -9
        assert max(killed.steps()) >= kill_at
        assert not (job.model_dir / "model.pt").exists()
        # Each restart picks up at least where the last kill was seen: the step logged before
        # the kill may not be committed yet, the one before it is. (No upper bound: on a loaded
        # machine the job can run a few steps between our read and the SIGKILL.)
        resumed = int(RESUMED.search(killed.stdout).group(1)) if previous_kill else 0
        assert resumed >= previous_kill - 1
        previous_kill = max(killed.steps())
    # The restart in this process: what it resumes from is what the kills left on disk.
    status, final, _ = train_pytorch_main(*RUN, root=job.root)
    assert status == 0, final.stderr
    resumed = int(RESUMED.search(final.stdout).group(1))
    assert previous_kill - 1 <= resumed < 40
    assert job.metrics()["resumed_from_step"] == resumed
    assert min(final.steps()) == resumed + 1
    assert_same_weights(job.model(), uninterrupted)


def test_damaged_and_partial_checkpoints_are_skipped(train_pytorch_main, tmp_path):
    args = [*TINY_GPT, "--dropout", "0.1", "--checkpoint_every", "2", "--keep_checkpoints", "4"]
    assert train_pytorch_main(*args, "--max_steps", "10", root=tmp_path / "reference")[0] == 0

    status, _, job = train_pytorch_main(*args, "--max_steps", "8", root=tmp_path / "damaged")
    ckpt = job / "checkpoints"
    assert status == 0
    assert sorted(p.name for p in ckpt.iterdir()) == [f"step_00000{i}" for i in (2, 4, 6, 8)]
    state = ckpt / "step_000008" / "state.pt"
    state.write_bytes(state.read_bytes()[:1000])  # truncated: size no longer matches
    state = ckpt / "step_000006" / "state.pt"
    data = bytearray(state.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, a few flipped bits: caught by the sha256
    state.write_bytes(bytes(data))
    (ckpt / "step_000004" / "COMPLETE").unlink()  # written but never committed
    (ckpt / "step_000009.tmp").mkdir()  # a killed writer's leftovers

    status, result, _ = train_pytorch_main(*args, "--max_steps", "10", root=job)
    assert status == 0
    skipped = [w for w in result.warnings() if "skipping checkpoint" in w]
    assert [w.split()[3] for w in skipped] == ["step_000008:", "step_000006:", "step_000004:"]
    assert "expected" in skipped[0] and "sha256" in skipped[1] and "COMPLETE" in skipped[2]
    assert "resuming at step 2 of 10" in result.stdout
    assert not (ckpt / "step_000009.tmp").exists()
    assert_same_weights(model_at(job), model_at(tmp_path / "reference"))


def test_resuming_with_a_different_model_shape_is_refused(train_pytorch_main):
    assert train_pytorch_main(*TINY_GPT, "--max_steps", "2", "--checkpoint_every", "2")[0] == 0
    status, _, root = train_pytorch_main(*TINY_GPT, "--max_steps", "4", "--n_embd", "16")
    assert status == 1
    assert "n_embd 32 -> 16" in (root / "output" / "failure").read_text()


def test_only_the_newest_checkpoints_are_kept(train_pytorch_main):
    status, _, root = train_pytorch_main(
        *TINY_GPT, "--max_steps", "6", "--checkpoint_every", "1", "--keep_checkpoints", "2"
    )
    ckpt = root / "checkpoints"
    assert status == 0
    assert sorted(p.name for p in ckpt.iterdir()) == ["step_000005", "step_000006"]
    manifest = (ckpt / "step_000006" / "COMPLETE").read_text()
    assert '"step": 6' in manifest and "sha256" in manifest

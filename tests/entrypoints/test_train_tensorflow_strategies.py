"""The TensorFlow entry point's one-host strategies (--tf_distribute) and its two loops (--loop):
Keras fit gives the GradientTape loop's losses, and resumes through BackupAndRestore."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.entrypoints.test_train_tensorflow import _train, job  # noqa: F401  (fixture)

pytestmark = pytest.mark.xdist_group("tensorflow")


def test_fit_equals_the_gradient_tape_loop_under_each_one_host_strategy(job):  # noqa: F811
    losses = {}
    for strategy in ("one_device", "mirrored", "central_storage"):
        for loop in ("custom", "fit"):
            ckpt = str(job / f"{strategy}-{loop}")
            metrics = _train(
                job, "--max_steps", "6", "--tf_distribute", strategy, "--loop", loop,
                "--checkpoint_dir", ckpt,
            )  # fmt: skip
            assert (metrics["strategy"], metrics["loop"]) == (strategy, loop)
            losses[strategy, loop] = metrics["losses"]
    reference = losses["one_device", "custom"]
    assert sorted(reference, key=int) == [str(n) for n in range(1, 7)]
    assert reference["6"] < reference["1"]
    for key, run in losses.items():
        assert run.keys() == reference.keys(), key
        for step, loss in reference.items():
            assert run[step] == pytest.approx(loss, rel=1e-5), (key, step)


FIT = ["--loop", "fit", "--tf_distribute", "one_device", "--checkpoint_every", "2"]
_STRAIGHT: dict[str, dict] = {}


def straight_fit(folder: Path) -> dict:
    """The 8 steps of FIT never interrupted (the metrics.json of a fresh run), made once for the
    module's resume tests: the same seeded run each time, so one is enough."""
    if not _STRAIGHT:
        _STRAIGHT["metrics"] = _train(
            folder, *FIT, "--max_steps", "8", "--checkpoint_dir", str(folder / "a")
        )
    return _STRAIGHT["metrics"]


def test_fit_resumes_from_its_backup_at_the_next_step(job):  # noqa: F811
    fit = FIT
    straight = straight_fit(job)
    _train(job, *fit, "--max_steps", "4", "--checkpoint_dir", str(job / "b"))
    assert (job / "b" / "backup" / "latest.weights.h5").is_file()
    resumed = _train(job, *fit, "--max_steps", "8", "--checkpoint_dir", str(job / "b"))

    assert resumed["resumed_from_step"] == 4
    assert sorted(resumed["losses"], key=int) == ["5", "6", "7", "8"]
    for step, loss in resumed["losses"].items():
        assert loss == pytest.approx(straight["losses"][step], rel=1e-6)


def test_fit_needs_backups_that_divide_the_steps(job):  # noqa: F811
    import smenv
    import train_tensorflow

    args = ["--loop", "fit", "--max_steps", "5", "--checkpoint_every", "2"]
    assert smenv.run(train_tensorflow.main, args) == 1
    assert "pick a value that divides the 5 steps" in (job / "output" / "failure").read_text()


def test_fit_survives_a_kill_during_a_backup_or_between_its_writes(job, monkeypatch):  # noqa: F811
    """A kill while Keras writes the weights must leave the previous backup loadable (the new one
    is written aside); a kill between its two writes leaves training_metadata.json a backup behind
    the weights, and the resume point is then the step saved with the weights."""
    import keras

    import smenv
    import train_tensorflow

    fit = FIT
    straight = straight_fit(job)
    _train(job, *fit, "--max_steps", "4", "--checkpoint_dir", str(job / "b"))

    def killed_while_writing(self, filepath, *args, **kwargs):
        Path(filepath).write_bytes(b"\x89HDF\r\n\x1a\n")  # the start of a file, then death
        raise RuntimeError("killed during the backup")

    with monkeypatch.context() as patch:
        patch.setattr(keras.Model, "save_weights", killed_while_writing)
        cut = ["--max_steps", "8", "--checkpoint_dir", str(job / "b"), "--log_every", "1"]
        assert smenv.run(train_tensorflow.main, [*fit, *cut]) == 1  # died backing up step 6
    metadata = job / "b" / "backup" / "training_metadata.json"
    assert json.loads(metadata.read_text())["epoch"] == 2
    metadata.write_text(json.dumps({"epoch": 1, "batch": 0}))  # as if killed between the writes

    resumed = _train(job, *fit, "--max_steps", "8", "--checkpoint_dir", str(job / "b"))
    assert resumed["resumed_from_step"] == 4
    assert sorted(resumed["losses"], key=int) == ["5", "6", "7", "8"]
    for step, loss in resumed["losses"].items():
        assert loss == pytest.approx(straight["losses"][step], rel=1e-6)
    assert json.loads(metadata.read_text())["epoch"] == 4  # the finish's backup, kept
    # The killed write's leftovers were overwritten and renamed into place by the next backup.
    names = sorted(p.name for p in metadata.parent.iterdir())
    assert names == ["latest.weights.h5", "training_metadata.json"]

    again = _train(job, *fit, "--max_steps", "8", "--checkpoint_dir", str(job / "b"))
    assert again["resumed_from_step"] == 8 and again["losses"] == {}  # finished: nothing to redo


def test_fit_refuses_a_backup_its_checkpoint_every_does_not_divide(job):  # noqa: F811
    import smenv
    import train_tensorflow

    fit = ["--loop", "fit", "--checkpoint_dir", str(job / "c"), "--max_steps", "12"]
    _train(job, *fit[:-1], "6", "--checkpoint_every", "2")
    assert smenv.run(train_tensorflow.main, [*fit, "--checkpoint_every", "4"]) == 1
    failure = (job / "output" / "failure").read_text()
    assert "backup" in failure and "at step 6" in failure and "--checkpoint_every 4" in failure


def test_samples_per_sec_after_a_resume_counts_only_the_steps_run(monkeypatch, capsys):
    import tf_train

    monkeypatch.setattr(tf_train.time, "monotonic", lambda: 102.0)  # step 6 reported at 102 s
    progress = tf_train.Progress(total_steps=8, global_batch=4, _since=100.0)  # made at 100 s
    progress.start_step = 4  # restored after the Progress was made, as every loop does
    progress.report(6, 0.5, log=True)
    assert capsys.readouterr().out == "step=6 train_loss=0.500000 samples_per_sec=4.0\n"

"""The TensorFlow entry point's one-host strategies (--strategy) and its two loops (--loop):
Keras fit gives the GradientTape loop's losses, and resumes through BackupAndRestore."""

from __future__ import annotations

import pytest

from tests.entrypoints.test_train_tensorflow import _train, job  # noqa: F401  (fixture)

pytestmark = pytest.mark.xdist_group("tensorflow")


def test_fit_equals_the_gradient_tape_loop_under_each_one_host_strategy(job):  # noqa: F811
    losses = {}
    for strategy in ("one_device", "mirrored", "central_storage"):
        for loop in ("custom", "fit"):
            ckpt = str(job / f"{strategy}-{loop}")
            metrics = _train(
                job, "--max_steps", "6", "--strategy", strategy, "--loop", loop,
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


def test_fit_resumes_from_its_backup_at_the_next_step(job):  # noqa: F811
    fit = ["--loop", "fit", "--strategy", "one_device", "--checkpoint_every", "2"]
    straight = _train(job, *fit, "--max_steps", "8", "--checkpoint_dir", str(job / "a"))
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

"""A sweep's size, counted from its block before anything is expanded: shown by `validate`, and a
sweep over sweep.max_trials refused by `validate`, `plan` and `sweep` (exit 2, at the sweep key)
before a single trial is built; `sweep --dry-run` streams, a row as each trial is checked."""

from __future__ import annotations

import json
import re
from contextlib import nullcontext
from pathlib import Path

import pytest

from sagelaunch.checks import trials as trials_module
from sagelaunch.config.sweep import MAX_TRIALS
from sagelaunch.errors import UsageError
from tests.cli.test_bad_input import only_error, sagelaunch

THIRTY = list(range(1, 31))
HUGE = {"parameters": {f"hyperparameters.{k}": THIRTY for k in ("a", "b", "c")}}
SMALL = {"parameters": {"hyperparameters.lr": [0.001, 0.01, 0.1], "hyperparameters.bs": [4, 8]}}


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


@pytest.fixture
def no_trial_built(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Fails the test if any trial is built: a sweep's size is counted, never expanded."""
    built: list[int] = []

    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        built.append(args[3])
        raise AssertionError(f"trial {args[3]} was built to count the sweep")

    monkeypatch.setattr(trials_module, "_trial", refuse)
    return built


def test_a_27000_trial_sweep_is_refused_by_validate_at_the_sweep_key(make_config, tmp_path):
    path = make_config({"sweep": HUGE})
    proc = sagelaunch(tmp_path, "validate", path)
    assert only_error(proc) == (
        f"error: {path}:{line_of(path, 'sweep:')}:1: sweep: this sweep is 27,000 trials, over "
        f"sweep.max_trials ({MAX_TRIALS}): raise sweep.max_trials or narrow the grid"
    )
    proc = sagelaunch(tmp_path, "validate", path, "-o", "json")
    (report,) = json.loads(proc.stdout)
    assert proc.returncode == 2 and report["sweep"] is None  # it did not load
    (error,) = report["errors"]
    assert error["path"] == "sweep" and "27,000 trials" in error["message"]


@pytest.mark.parametrize(
    "command", [["validate"], ["plan"], ["sweep", "--dry-run"], ["sweep", "--idempotency-key", "k"]]
)
def test_validate_plan_and_sweep_refuse_without_expanding(
    make_config, cli, no_trial_built, command
):
    path = make_config({"sweep": HUGE})
    result = cli(*command[:1], path, *command[1:])
    assert result.exit_code == 2, result.output
    assert "this sweep is 27,000 trials, over sweep.max_trials (500)" in result.stderr
    assert no_trial_built == []


def test_a_random_draw_is_counted_by_its_samples(make_config, cli, no_trial_built):
    path = make_config({"sweep": {**HUGE, "method": "random", "samples": 501}})
    result = cli("validate", path)
    assert result.exit_code == 2 and no_trial_built == []
    assert "this sweep is 501 trials, over sweep.max_trials (500): raise sweep.max_trials or " in (
        result.stderr
    )
    assert "draw fewer samples" in result.stderr


def test_validate_shows_the_size_of_a_valid_sweep(make_config, tmp_path):
    grid = make_config({"sweep": SMALL}, "grid.yaml")
    draw = make_config({"sweep": {**HUGE, "method": "random", "samples": 3}}, "draw.yaml")
    plain = make_config(name="plain.yaml")
    proc = sagelaunch(tmp_path, "validate", grid, draw, plain)
    assert proc.returncode == 0, proc.stderr
    sizes = [line for line in proc.stdout.splitlines() if "sweep of" in line]
    assert sizes == [
        f"{grid}: sweep of 6 trials (grid 3 × 2), at most 500 (sweep.max_trials)",
        f"{draw}: sweep of 3 trials (random, of a grid of 27,000), at most 500 (sweep.max_trials)",
    ]
    proc = sagelaunch(tmp_path, "validate", grid, draw, plain, "-o", "json")
    assert [report["sweep"] for report in json.loads(proc.stdout)] == [
        {"trials": 6, "method": "grid", "max_trials": 500},
        {"trials": 3, "method": "random", "max_trials": 500},
        None,
    ]


def test_raising_max_trials_accepts_the_sweep(make_config, cli):
    tight = make_config({"sweep": {**SMALL, "max_trials": 5}})
    refused = cli("validate", tight)
    assert refused.exit_code == 2 and "this sweep is 6 trials, over sweep.max_trials (5)" in (
        refused.stderr
    )
    raised = cli("validate", tight, "--set", "sweep.max_trials=6")
    assert raised.exit_code == 0, raised.output
    assert "sweep of 6 trials (grid 3 × 2), at most 6 (sweep.max_trials)" in raised.stdout
    zero = cli("validate", tight, "--set", "sweep.max_trials=0")
    assert zero.exit_code == 2 and "sweep.max_trials" in zero.stderr


def test_nothing_below_the_loader_expands_past_the_ceiling(make_config):
    """A Sweep that escaped its validator (model_copy skips it) is refused where the trials are
    drawn and where jobs are created: a real sweep never makes more than max_trials jobs."""
    from sagelaunch.checks.validation import expand
    from sagelaunch.sweeps.planning import PlannedSweep
    from sagelaunch.sweeps.scheduler import Scheduler

    spec = expand(make_config({"sweep": SMALL}))
    lowered = spec.sweep.model_copy(update={"max_trials": 5})
    with pytest.raises(
        UsageError, match=re.escape("this sweep is 6 trials, over sweep.max_trials (5)")
    ):
        next(trials_module.combinations(lowered))
    fake: list = [object()] * 6  # the scheduler refuses before it looks at a trial or a client
    planned = PlannedSweep(type(spec)(spec.base, lowered, spec.trials), "k", True, fake)
    with pytest.raises(UsageError, match=re.escape("over sweep.max_trials (5)")):
        Scheduler(None, planned, 2)  # type: ignore[arg-type]


def test_a_random_draw_picks_the_same_trials_as_ever(make_config):
    """Drawn from the grid's point numbers, without building the grid: the same seed gives the
    same points as the draw from the built grid did (reruns keep their trials' names)."""
    import itertools
    import random

    sweep = {"parameters": {"hyperparameters.a": THIRTY[:7], "hyperparameters.b": THIRTY[:5]}}
    sweep |= {"method": "random", "samples": 9, "seed": 11}
    from sagelaunch.checks.validation import sweep_base

    block = sweep_base(make_config({"sweep": sweep})).config.sweep
    grid = list(itertools.product(range(7), range(5)))
    expected = [grid[i] for i in sorted(random.Random(11).sample(range(len(grid)), 9))]
    assert list(trials_module.combinations(block)) == expected


def test_dry_run_streams_a_row_per_trial_as_it_is_checked(make_config, capsys, monkeypatch):
    """The table's first row is out before the second trial is built, every row before the
    first request is planned, and each request before the next trial is planned."""
    from sagelaunch.commands import sweep as command
    from sagelaunch.services import planning
    from sagelaunch.sweeps.planning import stream_trials

    seen: list[tuple[str, int, str]] = []  # (what was asked, trial, stdout so far)
    out: list[str] = []

    def so_far() -> str:
        out.append(capsys.readouterr().out)
        return "".join(out)

    build, plan = trials_module._trial, planning.planned

    def building(path, document, sweep, index, picks):  # type: ignore[no-untyped-def]
        seen.append(("build", index, so_far()))
        return build(path, document, sweep, index, picks)

    def planning_(loaded, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(("plan", loaded.config.hyperparameters["lr"], so_far()))
        return plan(loaded, **kwargs)

    monkeypatch.setattr(trials_module, "_trial", building)
    monkeypatch.setattr(planning, "planned", planning_)
    path = make_config({"sweep": {"parameters": {"hyperparameters.lr": [0.001, 0.01, 0.1]}}})
    stream = stream_trials(path, None, None, "key")
    assert seen == []  # nothing built yet: the title comes from the block
    command._dry_run(stream, nullcontext)
    text = so_far()

    rows = [line for line in text.splitlines() if line.lstrip()[:1].isdigit()]
    assert rows[0].split()[:2] == ["1", "0.001"] and len(rows) == 3
    assert text.splitlines()[0] == "sweep unit: 3 trials (grid 3), at most 4 at once"
    (b1, b2, b3, p1, p2, p3) = seen
    assert [b1[:2], b2[:2], b3[:2]] == [("build", 1), ("build", 2), ("build", 3)]
    assert rows[0] not in b1[2] and rows[0] in b2[2] and rows[1] in b3[2]
    assert [p[:2] for p in (p1, p2, p3)] == [("plan", 0.001), ("plan", 0.01), ("plan", 0.1)]
    assert rows[2] in p1[2] and "trial 1 " not in p1[2]  # the table, then the requests
    assert "trial 1 " in p2[2] and '"TrainingJobName"' in p2[2] and "trial 2 " not in p2[2]
    assert "trial 3 " in text

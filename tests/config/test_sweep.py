"""The sweep: and tuning: blocks: trials expanded like --set at the sweep's lines, every trial
checked by the rules, located errors; tuning names; results files and the best trial."""

from __future__ import annotations

import csv
import json
from datetime import datetime, timezone

import pytest

from sagelaunch import naming
from sagelaunch.checks.validation import expand
from sagelaunch.config.default_metrics import metrics_json_values
from sagelaunch.config.sweep import SweepObjective
from sagelaunch.errors import ConfigError, ExitCode, UsageError
from sagelaunch.sweeps.results import SweepResult, TrialState, write_results

SWEEP = {
    "parameters": {
        "hyperparameters.lr": [0.001, 0.01, 0.1],
        "compute.instance_type": ["ml.g5.xlarge", "ml.g5.2xlarge"],
    }
}


def line_of(path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_grid_is_every_combination_in_order(make_config):
    spec = expand(make_config({"sweep": SWEEP}))
    assert [t.parameters for t in spec.trials][:3] == [
        {"hyperparameters.lr": 0.001, "compute.instance_type": "ml.g5.xlarge"},
        {"hyperparameters.lr": 0.001, "compute.instance_type": "ml.g5.2xlarge"},
        {"hyperparameters.lr": 0.01, "compute.instance_type": "ml.g5.xlarge"},
    ]
    assert len(spec.trials) == 6 and [t.index for t in spec.trials] == list(range(1, 7))
    last = spec.trials[-1].loaded.config
    assert last.hyperparameters["lr"] == 0.1 and last.compute.instance_type == "ml.g5.2xlarge"
    assert last.sweep is None and spec.base.config.hyperparameters == {}  # trials are plain jobs


def test_random_draws_distinct_points_reproducibly(make_config):
    sweep = {**SWEEP, "method": "random", "samples": 4, "seed": 3}
    first = [t.parameters for t in expand(make_config({"sweep": sweep})).trials]
    again = [t.parameters for t in expand(make_config({"sweep": sweep})).trials]
    other = [
        t.parameters
        for t in expand(make_config({"sweep": {**sweep, "seed": 4}}, name="b.yaml")).trials
    ]
    assert first == again and len(first) == 4
    assert len({json.dumps(p, sort_keys=True) for p in first}) == 4
    assert first != other


def test_a_bad_combination_names_the_trial_and_points_at_its_value(make_config):
    path = make_config(
        {"sweep": {"parameters": {"compute.instance_count": [1, 0], "hyperparameters.x": [1]}}}
    )
    with pytest.raises(ConfigError) as caught:
        expand(path)
    (problem,) = caught.value.problems
    assert problem.line == line_of(path, "- 0") and problem.path == "compute.instance_count"
    assert problem.message.startswith("trial 2 (compute.instance_count=0, hyperparameters.x=1)")


def test_a_swept_key_that_does_not_exist_is_located_with_did_you_mean(make_config):
    path = make_config({"sweep": {"parameters": {"compute.instance_typ": ["ml.g5.xlarge"]}}})
    with pytest.raises(ConfigError) as caught:
        expand(path)
    (problem,) = caught.value.problems
    assert "did you mean 'instance_type'" in problem.message
    assert problem.line == line_of(path, "- ml.g5.xlarge")


def test_rules_run_on_every_trial(make_config):
    """A rule (spot max_wait >= max_run) that only one trial breaks fails the sweep."""
    path = make_config(
        {
            "compute": {
                "instance_type": "ml.g5.xlarge",
                "max_run": 3600,
                "spot": {"max_wait": 7200},
            },
            "checkpoint": {"s3_uri": "s3://bucket/ckpt/"},
            "sweep": {"parameters": {"compute.max_run": [3600, 10800]}},
        }
    )
    with pytest.raises(ConfigError) as caught:
        expand(path)
    assert [p.message.split(":")[0] for p in caught.value.problems] == [
        "trial 2 (compute.max_run=10800)"
    ]


@pytest.mark.parametrize(
    ("sweep", "message"),
    [
        ({**SWEEP, "method": "random"}, "samples: method random needs samples"),
        ({**SWEEP, "method": "random", "samples": 7}, "exceeds the 6 combinations"),
        ({"parameters": {"hyperparameters.lr": []}}, "hyperparameters.lr has no values"),
        (
            {"parameters": {"hyperparameters.lr": [1, 2, 1]}},
            "hyperparameters.lr lists a value twice",
        ),
        ({**SWEEP, "max_paralel": 2}, "did you mean 'max_parallel'"),
    ],
)
def test_sweep_block_errors_are_located(make_config, sweep, message):
    path = make_config({"sweep": sweep})
    with pytest.raises(ConfigError) as caught:
        expand(path)
    problem = caught.value.problems[0]
    assert message in problem.message and problem.path.startswith("sweep")
    assert problem.line >= line_of(path, "sweep:")


def test_set_overrides_apply_before_the_sweep(make_config):
    path = make_config({"sweep": SWEEP})
    spec = expand(path, ["sweep.max_parallel=1", "hyperparameters.epochs=2"])
    assert spec.sweep.max_parallel == 1
    assert all(t.loaded.config.hyperparameters["epochs"] == 2 for t in spec.trials)


def test_a_config_without_a_sweep_is_a_usage_error(make_config):
    with pytest.raises(UsageError, match="has no sweep: block"):
        expand(make_config())


def test_a_sweep_runs_in_one_region(make_config):
    from sagelaunch.sweeps.planning import plan_trials

    path = make_config({"sweep": {"parameters": {"region": ["us-east-1", "eu-west-1"]}}})
    with pytest.raises(UsageError, match="one region, not eu-west-1, us-east-1"):
        plan_trials(path, None, None, "k")


def test_tuning_range_errors_point_at_the_range(make_config):
    path = make_config(
        {
            "tuning": {
                "objective": {"metric": "train:loss"},
                "ranges": {"lr": {"min": 0.1, "max": 1, "scaling": "Log"}},
            }
        }
    )
    from sagelaunch.config.loader import load

    with pytest.raises(ConfigError) as caught:
        load(path)
    (problem,) = caught.value.problems
    assert problem.path == "tuning.ranges.lr.scaling" and "Logarithmic" in problem.message
    assert problem.line == line_of(path, "scaling: Log")


def test_tuning_names_fit_32_characters_and_follow_the_plan_time():
    planned = naming.tuning_job_name("a-very-long-tuning-base-name-indeed", TIME)
    assert planned == "a-very-long-tuning-b-260102-0304" and len(planned) == 32
    assert naming.timestamp_of("job-2026-01-02-03-04-05-678") == TIME
    assert naming.timestamp_of("job-a1b2c3") is None
    request = {
        "HyperParameterTuningJobName": planned,
        "TrainingJobDefinition": {"StaticHyperParameters": {"sagemaker_job_name": '"x"'}},
    }
    keyed = naming.idempotent_tuning(naming.tuning_base_of(planned), "k", request)
    renamed = naming.with_tuning_job_name(request, keyed)
    assert len(keyed) == 32 and keyed.startswith("a-very-long-tun-")
    assert naming.idempotent_tuning(naming.tuning_base_of(keyed), "k", renamed) == keyed
    assert renamed["TrainingJobDefinition"]["StaticHyperParameters"]["sagemaker_job_name"] == (
        json.dumps(keyed)
    )


TIME = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=timezone.utc)


def test_metrics_json_reads_as_the_scraped_metric_names():
    pytorch = {"final_train_loss": 2.5, "steps": 4, "backend": "gloo", "steady_samples_per_sec": 9}
    xgboost = {"rounds": 20, "metrics": {"train-rmse": 0.4, "validation-rmse": 0.5}}
    assert metrics_json_values(pytorch)["train:loss"] == 2.5
    assert metrics_json_values(pytorch)["steady_samples_per_sec"] == 9.0
    assert metrics_json_values(xgboost)["validation:rmse"] == 0.5


def result_of(statuses: list[str], values: list[float | None], goal: str) -> SweepResult:
    trials = [
        TrialState(
            i + 1,
            {"hyperparameters.lr": 10.0**-i},
            f"job-{i}",
            status,
            metrics={} if value is None else {"m": value},
        )
        for i, (status, value) in enumerate(zip(statuses, values, strict=True))
    ]
    return SweepResult("s", "k", trials, SweepObjective(metric="m", goal=goal))


def test_best_trial_exit_codes_and_results_files(tmp_path):
    done = ["Completed", "Completed", "Completed"]
    assert result_of(done, [0.3, 0.1, 0.2], "minimize").best.index == 2
    assert result_of(done, [0.3, 0.1, 0.2], "maximize").best.index == 1
    failed = result_of(["Completed", "Failed", "Completed"], [0.3, 0.0, 0.2], "minimize")
    assert failed.best.index == 3 and failed.exit_code(waited=True) == ExitCode.JOB_FAILED
    running = result_of(["Completed", "InProgress", "Queued"], [0.3, None, None], "minimize")
    assert running.exit_code(waited=True) == ExitCode.WAIT_TIMEOUT
    assert running.exit_code(waited=False) == ExitCode.OK
    write_results(tmp_path / "r.csv", failed)
    rows = list(csv.DictReader((tmp_path / "r.csv").open()))
    assert [r["best"] for r in rows] == ["", "", "yes"]
    assert rows[1]["hyperparameters.lr"] == "0.1" and rows[1]["status"] == "Failed"
    write_results(tmp_path / "r.json", failed)
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["best_trial"] == 3 and data["counts"] == {"Completed": 2, "Failed": 1}


def test_validate_checks_every_trial(make_config, cli):
    bad = make_config({"sweep": {"parameters": {"compute.instance_count": [1, 0]}}})
    result = cli("validate", bad)
    assert result.exit_code == 2 and "trial 2 (compute.instance_count=0)" in result.output
    good = make_config({"sweep": {"parameters": {"compute.instance_count": [1, 2]}}}, "ok.yaml")
    assert cli("validate", good).exit_code == 0

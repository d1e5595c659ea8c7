"""`sagelaunch sweep --local`: four XGBoost trials on CPU through the `local` machinery, two at a
time, each in its own run folder; the results table marks the best trial, whose objective comes
from its metrics.json (inside its output.tar.gz, as SageMaker stores it)."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

from tests.conftest import ENTRYPOINTS
from tests.local.conftest import clean_env
from tests.local.data import write_dataset

pytestmark = pytest.mark.slow


def warm_trial_plans(path: Path) -> None:
    """Each trial's local plan into the session's plan cache, as warm_plan does for a `local`
    run (tests/local/conftest.py): the `sweep --local` subprocess finds them there as a rerun
    does, and does not import the SDK (seconds of CPU) to plan; the SDK is imported once per test
    worker. Only a warm-up: what it cannot plan, the sweep plans itself."""
    try:
        from sagelaunch.checks.validation import expand
        from sagelaunch.local.variant import local_variant
        from sagelaunch.services.local_run import local_plan

        for trial in expand(path, None).trials:
            local_plan(local_variant(trial.loaded), [])
    except Exception:  # the sweep itself reports what is wrong
        return


def test_four_local_trials_end_with_a_results_table_and_a_best_trial(tmp_path):
    data = write_dataset(tmp_path / "data", train_files=2, rows_per_file=100)
    config = {
        "name": "xgb-sweep",
        "framework": "xgboost",
        "entry_point": "train_xgboost.py",
        "source_dir": str(ENTRYPOINTS / "xgboost"),
        "framework_version": "1.7-1",
        "compute": {"instance_type": "ml.m5.xlarge", "max_run": 3600},
        "hyperparameters": {"objective": "reg:squarederror", "num_round": 8, "nthread": 1},
        "inputs": {
            "train": {"uri": "s3://bucket/train/", "content_type": "text/csv"},
            "validation": {"uri": "s3://bucket/validation/", "content_type": "text/csv"},
        },
        "local": {"inputs": {"train": str(data / "train"), "validation": str(data / "validation")}},
        "sweep": {
            "parameters": {"hyperparameters.eta": [0.05, 0.5], "hyperparameters.max_depth": [1, 4]},
            "max_parallel": 2,
            "objective": {"metric": "validation:rmse", "goal": "minimize"},
        },
    }
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    warm_trial_plans(path)
    results = tmp_path / "results.json"
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "sagelaunch", "sweep", str(path), "--local"),
            *("--workdir", str(tmp_path / "runs"), "--results", str(results)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=clean_env(),
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(results.read_text())
    trials = report["trials"]
    assert [t["status"] for t in trials] == ["Completed"] * 4
    assert [t["parameters"]["hyperparameters.max_depth"] for t in trials] == [1, 4, 1, 4]
    rmse = {t["trial"]: t["objective"] for t in trials}
    best = min(rmse, key=lambda trial: rmse[trial])
    assert report["best_trial"] == best and len(set(rmse.values())) == 4
    for trial in trials:  # the objective is the trial's own metrics.json
        with tarfile.open(tmp_path / "runs" / f"trial-{trial['trial']}" / "output.tar.gz") as tar:
            member = next(m for m in tar.getmembers() if m.name.endswith("metrics.json"))
            recorded = json.loads(tar.extractfile(member).read())
        assert recorded["metrics"]["validation-rmse"] == trial["objective"]
    table = proc.stdout
    assert "sweep xgb-sweep (local): minimize validation:rmse" in table
    assert f"★ best: trial {best}" in table and table.count("Completed") == 4

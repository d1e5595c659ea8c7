"""`sagelaunch metrics` on local runs: the series a run's logs hold, as a table, JSON, a terminal
chart and a PNG; and the fast path (no charting library, no SDK) for the table."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sagelaunch.metrics import local
from tests.cli.test_fast_path import HEAVY, imported_modules
from tests.local.conftest import TINY_GPT, pytorch_config, run_local

XGB_LOG = "[0]\ttrain-rmse:0.9\tvalidation-rmse:1.0\n[1]\ttrain-rmse:0.7\tvalidation-rmse:0.8\n"


def write_run(folder: Path, logs: dict[str, str], definitions: list | None = None) -> Path:
    (folder / "logs").mkdir(parents=True)
    for host, text in logs.items():
        (folder / "logs" / f"{host}.log").write_text(text)
    if definitions is not None:
        (folder / local.DEFINITIONS_FILE).write_text(json.dumps(definitions))
    return folder


def test_xgboost_rounds_are_the_steps_and_hosts_keep_their_order(tmp_path):
    run = write_run(tmp_path / "run", {"algo-10": XGB_LOG, "algo-2": XGB_LOG})
    series = local.read(run)  # no definitions file: the entry points' defaults apply
    names = [(s.metric, s.host) for s in series]
    assert names[:2] == [("train:rmse", "algo-2"), ("validation:rmse", "algo-2")]
    assert names[2:] == [("train:rmse", "algo-10"), ("validation:rmse", "algo-10")]
    assert [(p.x, p.value) for p in series[0].points] == [(0, 0.9), (1, 0.7)]


def test_the_runs_own_definitions_win(tmp_path):
    definitions = [{"Name": "acc", "Regex": r"accuracy: ([0-9.]+)"}]
    run = write_run(
        tmp_path / "run", {"algo-1": "accuracy: 0.5\nnoise\naccuracy: 0.75\n"}, definitions
    )
    [series] = local.read(run)
    assert (series.metric, [(p.x, p.value) for p in series.points]) == (
        "acc",
        [(1, 0.5), (2, 0.75)],
    )


def test_a_folder_without_logs_is_not_a_run(cli, tmp_path, monkeypatch):
    (tmp_path / "empty" / "logs").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    result = cli("metrics", "empty")
    assert result.exit_code == 2 and "no host logs" in result.output


def test_missing_chart_library_says_how_to_install(cli, tmp_path, monkeypatch):
    run = write_run(tmp_path / "run", {"algo-1": XGB_LOG})
    monkeypatch.setitem(sys.modules, "plotext", None)  # an import of it now fails
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    for option in (["--plot"], ["--png", str(tmp_path / "x.png")]):
        result = cli("metrics", run, *option)
        assert result.exit_code == 2, result.output
        assert "[charts]" in result.output and "-m pip install" in result.output


def test_the_table_imports_no_chart_library_nor_sdk(tmp_path):
    run = write_run(tmp_path / "run", {"algo-1": XGB_LOG})
    modules = imported_modules("metrics", str(run))
    tops = {name.split(".")[0] for name in modules}
    assert "sagelaunch" in tops
    assert not tops & (HEAVY | {"matplotlib", "plotext"}), sorted(tops & HEAVY)


@pytest.fixture(scope="module")
def real_run(tmp_path_factory) -> Path:
    """A real `sagelaunch local` run (one host, one process, four steps): its logs are the input."""
    import yaml

    folder = tmp_path_factory.mktemp("local-metrics")
    config = folder / "job.yaml"
    single = pytorch_config(
        hyperparameters={**TINY_GPT, "max_steps": 4},
        distribution={"strategy": "none"},
        compute={"instance_type": "ml.g5.xlarge", "instance_count": 1},
    )
    config.write_text(yaml.safe_dump(single))
    done = run_local(config, "--workdir", str(folder / "run"))
    assert done.returncode == 0, done.stderr[-3000:]
    return folder / "run"


@pytest.mark.slow
def test_a_local_runs_loss_curve_as_json_table_chart_and_png(cli, real_run, tmp_path):
    result = cli("metrics", real_run, "--metric", "train:loss", "-o", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["source"], data["metrics"]) == ("local", ["train:loss"])
    [series] = data["series"]
    assert series["host"] == "algo-1" and [p["step"] for p in series["points"]] == [1, 2, 3, 4]
    log = (real_run / "logs" / "algo-1.log").read_text()
    for point in series["points"]:  # the values the entry point printed, step by step
        assert f"step={point['step']} train_loss={point['value']:.6f}" in log
    table = cli("metrics", real_run)
    assert table.exit_code == 0 and "train:samples_per_sec" in table.stdout
    chart = cli("metrics", real_run, "-m", "train:loss", "--plot")
    assert chart.exit_code == 0 and "train:loss" in chart.stdout and "step" in chart.stdout
    png = tmp_path / "loss.png"
    assert cli("metrics", real_run, "--png", png).exit_code == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_a_sweep_results_file_plots_the_objective_per_trial(cli, tmp_path):
    """`sweep --results F.json` (the shape `SweepResult.as_json` writes) as series by trial."""
    trials = [
        {"trial": i, "status": "Completed", "objective": loss, "metrics": {"train:loss": loss}}
        for i, loss in enumerate([0.9, 0.4, 0.6])
    ]
    trials.append({"trial": 3, "status": "Failed", "objective": None, "metrics": {}})
    results = tmp_path / "results.json"
    results.write_text(
        json.dumps({"objective": {"metric": "train:loss", "goal": "minimize"}, "trials": trials})
    )
    data = json.loads(cli("metrics", results, "-o", "json").stdout)
    assert (data["source"], data["metrics"]) == ("sweep", ["train:loss"])
    points = data["series"][0]["points"]
    assert [(p["trial"], p["value"]) for p in points] == [(0, 0.9), (1, 0.4), (2, 0.6)]
    png = tmp_path / "sweep.png"
    assert cli("metrics", results, "--png", png).exit_code == 0 and png.stat().st_size > 5_000

"""Every `sagelaunch init` template (and example config) under `sagelaunch local`: a short run
as written, and what cannot run on this machine refused with a clear message before anything
starts.

A template's full local run costs 15-30 s on a 2-core machine (all of them, several minutes), so
the suite runs: every template's entry point started on its local hyperparameters as the
toolkit renders them (tests/entrypoints/test_toolkit_arguments.py), the refusals here
(in-process), and the SMP v2 template end to end. ``python tests/bench/run.py bench_templates``
runs every template as a new user would and times each.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from sagelaunch.checks.validation import load_valid
from sagelaunch.commands.init import templates
from tests.conftest import EXAMPLES
from tests.local.conftest import run_local


def test_every_template_and_example_says_how_to_run_quickly_under_local(tmp_path):
    """A short `local.hyperparameters` (steps or rounds) in every starter and example config,
    so that `sagelaunch local` on it is a smoke run, not the training job."""
    paths = {f"config {path.name}": path for path in sorted(EXAMPLES.glob("*.yaml"))}
    for name, text in templates().items():
        paths[f"template {name}"] = tmp_path / f"{name}.yaml"
        paths[f"template {name}"].write_text(text, encoding="utf-8")
    short = {"max_steps", "num_round"}
    local = {where: load_valid(path)[0].config.local for where, path in paths.items()}
    assert [where for where, run in local.items() if not short & set(run.hyperparameters)] == []


REFUSED = {
    "xgboost-builtin": "the built-in XGBoost algorithm runs only in its own container",
    "tf-smddp": "SMDDP for TensorFlow needs the smdistributed library",
    "tf-horovod": "tf_strategy.py imports horovod, which is not installed here",
}


@pytest.mark.parametrize("template", sorted(REFUSED))
def test_what_cannot_run_here_is_refused_before_anything_starts(cli, tmp_path, template):
    if template == "tf-horovod" and importlib.util.find_spec("horovod") is not None:
        pytest.skip("Horovod is installed here: the template runs")
    config = tmp_path / f"{template}.yaml"
    assert cli("init", template, "--out", config).exit_code == 0
    result = cli("local", config, "--workdir", tmp_path / "run")
    assert result.exit_code == 2
    assert REFUSED[template] in result.output and "hint:" in result.output
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_the_smp_v2_template_trains_under_local(cli, tmp_path):
    """SageMaker's SMP v2 job as `init smp-v2` writes it: the SDK's mp_parameters reach the
    script as the toolkit renders them (k=v,k=v); without torch.sagemaker it says so once and
    trains FSDP over gloo."""
    config = tmp_path / "smp-v2.yaml"
    assert cli("init", "smp-v2", "--out", config).exit_code == 0
    done = run_local(config, "--workdir", str(tmp_path / "run"), timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    warning = (
        "SMP v2 (torch.sagemaker) requested but not installed here; falling back to plain gloo"
    )
    assert warning in done.stderr
    assert "parallel fsdp" in done.stderr and "[algo-1] step=20 train_loss=" in done.stderr
    assert Path(tmp_path / "run" / "model.tar.gz").is_file()

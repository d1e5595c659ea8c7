"""`export --sdk v2` scripts, run under plan's own offline capture, send plan's exact request.

Every example config is planned as the golden files are (fixed job name and code bundle), the
plan is rendered and the script's ``main`` is run with the capture session: the request it makes
must equal the plan's, and so the golden file's. (Golden files store keys sorted, which would
reorder e.g. the JSON-encoded `mp_parameters`; the plan itself keeps the order the SDK sees.)
The CLI path (config -> plan -> script file) is checked on examples and on a saved plan.
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest

from sagelaunch.plan_model import Plan
from sagelaunch.sdk.capture import capture
from sagelaunch.services.exporting import script
from tests.conftest import EXAMPLES
from tests.golden.regenerate import GOLDEN, golden_plan, unordered

CONFIGS = sorted(EXAMPLES.glob("*.yaml"))


def run_exported(path: Path, region: str, operation: str = "CreateTrainingJob") -> dict:
    """The request the exported script's main() makes, captured as plan captures its own."""
    namespace = runpy.run_path(str(path))  # as a module: defines main, runs nothing
    return capture(lambda session: namespace["main"](session, wait=False), region, operation)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.stem)
def test_exported_script_sends_the_planned_request(config, tmp_path):
    plan = Plan.model_validate(golden_plan(config))
    path = tmp_path / f"{config.stem}.py"
    path.write_text(script(plan, "v2", source=f"launch_configs/{config.name}", name=path.name))
    golden = json.loads((GOLDEN / f"{config.stem}.json").read_text())
    if plan.tuning is not None:  # a `tuning:` config exports the HyperparameterTuner
        request = run_exported(path, plan.region, "CreateHyperParameterTuningJob")
        assert json.dumps(request) == json.dumps(plan.tuning.request)
        assert request == golden["tuning"]["request"]
        return
    # The same keys in the same order; the hook's collections come from a set in the SDK, so
    # their order is compared apart (unordered), as the golden files do.
    request = unordered(run_exported(path, plan.region))
    assert json.dumps(request) == json.dumps(unordered(plan.request))
    assert request == unordered(golden["request"])


@pytest.mark.parametrize("config", ["smddp-p4d", "xgboost-builtin"])
def test_export_command_writes_a_script_equal_to_plan(cli, tmp_path, config):
    out = tmp_path / "job.py"
    result = cli("export", EXAMPLES / f"{config}.yaml", "--out", out, "--job-name", "exp-1")
    assert result.exit_code == 0, result.output
    planned = cli("plan", EXAMPLES / f"{config}.yaml", "-o", "json", "--job-name", "exp-1")
    request = json.loads(planned.stdout)["request"]
    assert run_exported(out, "us-east-1") == request
    text = out.read_text()
    assert 'JOB_NAME = "exp-1"' in text and "def main(" in text


def test_export_to_stdout_is_the_script(cli):
    result = cli("export", EXAMPLES / "mpi-g5.yaml", "--job-name", "exp-2")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("#!/usr/bin/env python3")
    compile(result.stdout, "exported.py", "exec")  # valid Python


def test_export_of_a_saved_plan(cli, tmp_path):
    saved = tmp_path / "plan.json"
    assert cli("plan", EXAMPLES / "fsx-vpc.yaml", "--out", saved, "-o", "json").exit_code == 0
    out = tmp_path / "job.py"
    assert cli("export", saved, "--out", out).exit_code == 0
    plan = Plan.model_validate(
        {k: v for k, v in json.loads(saved.read_text()).items() if k != "bundle_path"}
    )
    assert run_exported(out, plan.region) == plan.request


@pytest.mark.parametrize("names", [{"base_name": "remote-hpo"}, {"job_name": "tf-hpo-exact-1"}])
def test_a_tensorflow_tuning_script_sends_the_planned_model_dir(tmp_path, names):
    """TensorFlow's default model_dir in a tuning job: without an exact name the SDK names it
    after the estimator's own job, which the exported script sets (estimator.model_dir, as plan
    showed: the tuner is fit with the tuning job's name); with tuning.job_name, after that name."""
    from tests.sdk.test_migration_gaps import keras_config, planned

    plan = planned(
        tmp_path, keras_config(**names), "tensorboard-example-hpo-2026-01-01-00-00-00-000"
    )
    assert plan.tuning is not None
    path = tmp_path / "tune.py"
    path.write_text(script(plan, "v2", source="job.yaml", name=path.name))
    request = run_exported(path, plan.region, "CreateHyperParameterTuningJob")
    assert request == plan.tuning.request
    text = path.read_text()
    assert ("estimator.model_dir = " in text) == ("base_name" in names)


QUEUE_SETTINGS = {
    "name": "arn:aws:batch:us-east-1:111122223333:job-queue/ml-queue",
    "priority": 40,
    "share": "research",
    "retries": 2,
    "timeout": 7200,
    "tags": {"team": "batch-only"},
}


def run_queued(path: Path, region: str, monkeypatch) -> dict:
    """The SubmitServiceJob request the exported script's main() sends through the SDK's
    TrainingQueue (its Batch client stubbed; nothing leaves the process)."""
    from tests.sdk.test_queue_payload import stubbed_batch

    namespace = runpy.run_path(str(path))
    with stubbed_batch(region, monkeypatch) as (session, sent):
        namespace["main"](session, wait=False)
    return sent


@pytest.mark.parametrize("settings", [QUEUE_SETTINGS, {"name": "ml-queue"}], ids=["full", "name"])
@pytest.mark.parametrize("example", ["smddp-p4d", "xgboost-builtin", "hetero-c5-p4d", "fsx-vpc"])
def test_a_queued_plan_exports_the_sdks_training_queue_submit(
    example, settings, tmp_path, monkeypatch
):
    """A job for a job queue exports as TrainingQueue(queue).submit(estimator, ...): what the SDK
    then sends is the planned SubmitServiceJob request, the payload byte for byte, but for the
    clientToken the SDK does not send."""
    plan = Plan.model_validate(golden_plan(EXAMPLES / f"{example}.yaml")).queued(settings)
    assert plan.queue is not None
    path = tmp_path / "queued.py"
    path.write_text(script(plan, "v2", source=f"launch_configs/{example}.yaml", name=path.name))
    sent = run_queued(path, plan.region, monkeypatch)
    planned = {k: v for k, v in plan.queue.request.items() if k != "clientToken"}
    assert sent == planned
    assert sent["serviceRequestPayload"] == planned["serviceRequestPayload"]
    assert "estimator.fit(" not in path.read_text()


def test_a_queue_setting_the_sdk_cannot_send_is_refused_naming_it(tmp_path):
    from sagelaunch.errors import UsageError

    plan = Plan.model_validate(golden_plan(EXAMPLES / "smddp-p4d.yaml"))
    queued = plan.queued({"name": "ml-queue", "quota_share": "q1", "preemption": 2})
    with pytest.raises(UsageError) as refused:
        script(queued, "v2", source="x.yaml", name="x.py")
    message = str(refused.value)
    assert "compute.queue.quota_share (quotaShareName)" in message
    assert "compute.queue.preemption (preemptionConfiguration)" in message


def test_export_of_a_queued_config_through_the_cli(cli, tmp_path):
    out = tmp_path / "job.py"
    config = EXAMPLES / "smddp-p4d.yaml"
    args = ("--set", "compute.queue.name=ml-queue", "--job-name", "exp-q")
    assert cli("export", config, "--out", out, *args).exit_code == 0
    text = out.read_text()
    assert 'QUEUE = "ml-queue"' in text and "TrainingQueue(QUEUE).submit(" in text
    compile(text, "job.py", "exec")

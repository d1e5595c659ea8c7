"""`sagelaunch tune` against moto's server, and `status` / `wait` / `list` on tuning jobs.

moto creates, describes and lists tuning jobs (each is Completed at once, with no training jobs
of its own, and a fixed made-up best training job); it has no StopHyperParameterTuningJob."""

from __future__ import annotations

import json

import pytest

from tests.aws.conftest import boto_client
from tests.conftest import EXAMPLES

pytestmark = pytest.mark.integration

TUNING = EXAMPLES / "tuning-pytorch-g5.yaml"


def tuned(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_tune_sends_the_planned_request_once_per_key(cli, proxy):
    first = tuned(cli("tune", TUNING, "--idempotency-key", "ci-9", "-o", "json"))
    name = first["tuning_job_name"]
    assert len(name) <= 32 and name.startswith("gpt-tune-")
    assert (first["attached"], first["uploaded"]) == (False, True)
    plan = json.loads(cli("plan", TUNING, "-o", "json").stdout)
    sent = boto_client("sagemaker").describe_hyper_parameter_tuning_job(
        HyperParameterTuningJobName=name
    )
    planned = plan["tuning"]["request"]
    assert sent["HyperParameterTuningJobConfig"] == planned["HyperParameterTuningJobConfig"]
    definition = sent["TrainingJobDefinition"]
    static = definition["StaticHyperParameters"]
    assert json.loads(static["sagemaker_job_name"]) == name  # renamed where the SDK writes it
    expected_static = dict(planned["TrainingJobDefinition"]["StaticHyperParameters"])
    expected_static["sagemaker_job_name"] = json.dumps(name)
    assert static == expected_static
    second = tuned(cli("tune", TUNING, "--idempotency-key", "ci-9", "-o", "json"))
    assert second["tuning_job_name"] == name and second["attached"] and not second["uploaded"]
    assert proxy.forwarded["sagemaker:CreateHyperParameterTuningJob"] == 1
    listed = tuned(cli("list", "--tuning", "-o", "json"))
    assert [job["tuning_job_name"] for job in listed] == [name]
    assert listed[0]["strategy"] == "Bayesian"


def test_status_and_wait_understand_tuning_jobs(cli, moto):
    name = tuned(cli("tune", TUNING, "-o", "json"))["tuning_job_name"]
    status = tuned(cli("status", name, "-o", "json"))
    assert (status["kind"], status["status"], status["strategy"]) == (
        "tuning",
        "Completed",
        "Bayesian",
    )
    assert status["training_jobs"]["Completed"] == 1  # moto's fixed counters
    assert status["best_training_job"]["job_name"] == "FakeTrainingJobName"
    assert status["resource_limits"] == {
        "MaxNumberOfTrainingJobs": 20,
        "MaxParallelTrainingJobs": 4,
    }
    table = cli("status", name)
    assert "best job" in table.stdout and "1 Completed" in table.stdout
    waited = cli("wait", name, "-o", "json")
    assert waited.exit_code == 0 and json.loads(waited.stdout)["status"] == "Completed"


def test_tune_refuses_a_config_without_tuning(cli, moto):
    result = cli("tune", EXAMPLES / "cpu-local.yaml")
    assert result.exit_code == 2 and "has no tuning: block" in result.stderr
    assert (
        boto_client("sagemaker").list_hyper_parameter_tuning_jobs()[
            "HyperParameterTuningJobSummaries"
        ]
        == []
    )


def test_plan_of_a_tuning_config_keeps_the_training_request(cli, moto):
    """The training job a config plans is the same with or without its tuning block."""
    with_tuning = json.loads(cli("plan", TUNING, "--job-name", "j-1", "-o", "json").stdout)
    without = json.loads(
        cli("plan", TUNING, "--job-name", "j-1", "--set", "tuning=null", "-o", "json").stdout
    )
    assert with_tuning["request"] == without["request"] and "tuning" not in without


def test_a_tuning_job_of_that_name_running_something_else_is_refused_as_a_tuning_job(cli, moto):
    fixed = ["--set", "tuning.job_name=fixed-tune-1"]
    tuned(cli("tune", TUNING, *fixed, "-o", "json"))
    refused = cli("tune", TUNING, *fixed, "--set", "tuning.max_jobs=5")
    assert refused.exit_code == 2, refused.output
    assert "a tuning job named 'fixed-tune-1' already exists with a different request" in (
        refused.output
    )
    assert "tuning.job_name" in refused.output and "--job-name" not in refused.output

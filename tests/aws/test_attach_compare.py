"""Attach compares the whole request: a re-plan under the same job name that adds (or drops) a
hyperparameter is a different request, refused with the difference (exit 2), never attached to.
Against moto, which describes a job created without hyperparameters without the field, as AWS
does."""

from __future__ import annotations

import json

import pytest

from tests.aws.conftest import SMDDP, boto_client, submitted

pytestmark = pytest.mark.integration


def job_count() -> int:
    return len(boto_client("sagemaker").list_training_jobs()["TrainingJobSummaries"])


def refused_with(result, *lines: str) -> None:
    assert result.exit_code == 2, result.output
    assert "already exists with a different request" in result.output
    for line in lines:
        assert line in result.output, result.output
    assert result.stdout == "" and "Traceback" not in result.output


def test_a_replan_that_adds_a_hyperparameter_is_refused(cli, moto, tmp_path):
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    assert cli("plan", SMDDP, "--job-name", "same-name", "--out", one).exit_code == 0
    added = ["--set", "hyperparameters.warmup_steps=100"]
    assert cli("plan", SMDDP, *added, "--job-name", "same-name", "--out", two).exit_code == 0
    assert "warmup_steps" not in json.loads(one.read_text())["request"]["HyperParameters"]
    assert submitted(cli("submit", one, "-o", "json"))["attached"] is False
    refused_with(
        cli("submit", two, "-o", "json"),
        'HyperParameters.warmup_steps: planned "100", existing job has (absent)',
    )
    assert job_count() == 1


def test_a_hyperparameter_added_to_a_job_that_had_none_is_refused(cli, moto, plan_copy):
    """The old job was created without HyperParameters (a built-in algorithm may need none):
    DescribeTrainingJob has no such field, which is no hyperparameters, not "not compared"."""
    document = json.loads(plan_copy.read_text())
    full = json.loads(json.dumps(document))
    del document["request"]["HyperParameters"]
    plan_copy.write_text(json.dumps(document))
    first = submitted(cli("submit", plan_copy, "-o", "json"))
    assert "HyperParameters" not in boto_client("sagemaker").describe_training_job(
        TrainingJobName=first["job_name"]
    )
    plan_copy.write_text(json.dumps(full))
    refused_with(
        cli("submit", plan_copy, "-o", "json"),
        'HyperParameters.max_steps: planned "5000", existing job has (absent)',
    )
    assert job_count() == 1


def test_a_replan_that_drops_a_hyperparameter_is_refused(cli, moto, plan_copy):
    first = submitted(cli("submit", plan_copy, "-o", "json"))
    document = json.loads(plan_copy.read_text())
    del document["request"]["HyperParameters"]["max_steps"]
    plan_copy.write_text(json.dumps(document))
    refused_with(
        cli("submit", plan_copy),
        'HyperParameters.max_steps: planned (absent), existing job has "5000"',
    )
    assert first["job_name"] == document["job_name"] and job_count() == 1

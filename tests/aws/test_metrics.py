"""`sagelaunch metrics JOB` against moto's server: CloudWatch GetMetricData in SageMaker's training
namespace, one series per metric definition and host, in time order."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from tests.aws.conftest import boto_client, submitted, training_job

pytestmark = pytest.mark.integration

NAMESPACE = "/aws/sagemaker/TrainingJobs"


@pytest.fixture
def job(cli, moto, plan_copy) -> str:
    """A submitted 2-host job. moto replaces the metric definitions it was created with by a
    fixed one: its stored job gets the planned ones back, as SageMaker keeps them."""
    name = submitted(cli("submit", plan_copy, "-o", "json"))["job_name"]
    planned = json.loads(plan_copy.read_text())["request"]["AlgorithmSpecification"]
    training_job(name).algorithm_specification["MetricDefinitions"] = planned["MetricDefinitions"]
    return name


def put(job: str, host: str, metric: str, values: list[float], start: datetime) -> None:
    """What SageMaker publishes: one datum a minute, dimension Host = JOB/algo-N."""
    boto_client("cloudwatch").put_metric_data(
        Namespace=NAMESPACE,
        MetricData=[
            {
                "MetricName": metric,
                "Dimensions": [{"Name": "Host", "Value": f"{job}/{host}"}],
                "Timestamp": start + timedelta(minutes=i),
                "Value": value,
            }
            for i, value in enumerate(values)
        ],
    )


def test_a_jobs_metrics_per_host_in_time_order(cli, job):
    start = datetime.now(timezone.utc).replace(second=0, microsecond=0) - timedelta(minutes=10)
    stored = training_job(job)  # it ran for the last ten minutes
    stored.training_start_time, stored.training_end_time = start, start + timedelta(minutes=3)
    put(job, "algo-1", "train:loss", [2.5, 2.0, 1.5], start)
    put(job, "algo-2", "train:loss", [2.6, 2.1], start + timedelta(minutes=1))
    put(job, "algo-1", "train:samples_per_sec", [100.0], start)
    put("another-job", "algo-1", "train:loss", [9.0], start)  # another job's series stays out
    result = cli("metrics", job, "-o", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["source"], data["name"]) == ("sagemaker", job)
    series = {(s["metric"], s["host"]): s["points"] for s in data["series"]}
    assert set(series) == {
        ("train:loss", "algo-1"),
        ("train:loss", "algo-2"),
        ("train:samples_per_sec", "algo-1"),
    }
    assert [p["value"] for p in series["train:loss", "algo-1"]] == [2.5, 2.0, 1.5]
    assert [p["seconds"] for p in series["train:loss", "algo-1"]] == [0, 60, 120]
    assert [p["seconds"] for p in series["train:loss", "algo-2"]] == [60, 120]
    only = json.loads(cli("metrics", job, "-m", "train:samples_per_sec", "-o", "json").stdout)
    assert [s["metric"] for s in only["series"]] == ["train:samples_per_sec"]
    table = cli("metrics", job)
    assert table.exit_code == 0 and "train:loss" in table.stdout and "algo-2" in table.stdout


def test_a_job_without_points_yet_says_so(cli, job):
    result = cli("metrics", job, "-o", "json")
    assert result.exit_code == 0 and json.loads(result.stdout)["series"] == []
    assert "no metric points" in result.stderr


def test_a_missing_job_exits_3(cli, moto):
    result = cli("metrics", "no-such-job")
    assert result.exit_code == 3 and "no training job named" in result.output

"""status / wait / logs / stop / list against moto's server (and botocore's Stubber where moto
has no API): exit codes, JSON contracts, interleaved logs."""

from __future__ import annotations

import json
import time

import pytest

from sagelaunch.redact import MASK
from tests.aws.conftest import REGION, boto_client, submitted, training_job

pytestmark = pytest.mark.integration

GROUP = "/aws/sagemaker/TrainingJobs"


@pytest.fixture
def job(cli, moto, plan_copy) -> str:
    """A submitted job (moto marks it Completed at once)."""
    return submitted(cli("submit", plan_copy, "-o", "json"))["job_name"]


def test_status_json(cli, job):
    result = cli("status", job, "-o", "json")
    assert result.exit_code == 0, result.output
    status = json.loads(result.stdout)
    assert status["job_name"] == job and status["status"] == "Completed"
    assert (status["instance_type"], status["instance_count"]) == ("ml.p4d.24xlarge", 2)
    assert status["model_artifacts"].endswith(f"{job}/output/model.tar.gz")
    assert status["transitions"][0]["status"] == "Starting"
    assert status["description"]["TrainingJobName"] == job


def test_status_redacts_secret_environment_values(cli, job):
    training_job(job).environment = {
        "HF_TOKEN": "hf_abc",
        "Db_Password": "pw",
        "NCCL_DEBUG": "WARN",
    }
    as_json = cli("status", job, "-o", "json")
    environment = json.loads(as_json.stdout)["description"]["Environment"]
    assert environment == {"HF_TOKEN": MASK, "Db_Password": MASK, "NCCL_DEBUG": "WARN"}
    table = cli("status", job)
    assert table.exit_code == 0 and "NCCL_DEBUG=WARN" in table.stdout
    assert "hf_abc" not in table.stdout and "pw" not in table.stdout.replace("Password", "")


def test_status_of_a_missing_job_exits_3(cli, moto):
    result = cli("status", "no-such-job")
    assert result.exit_code == 3 and "no training job named 'no-such-job'" in result.output


def test_list_json_filters(cli, moto, plan_copy):
    names = [
        submitted(cli("submit", plan_copy, "--idempotency-key", k, "-o", "json"))["job_name"]
        for k in ("a", "b", "c")
    ]
    training_job(names[1]).training_job_status = "InProgress"
    listed = json.loads(cli("list", "-o", "json").stdout)
    assert sorted(j["job_name"] for j in listed) == sorted(names)
    in_progress = json.loads(cli("list", "--status", "InProgress", "-o", "json").stdout)
    assert [j["job_name"] for j in in_progress] == [names[1]]
    assert len(json.loads(cli("list", "--limit", "2", "-o", "json").stdout)) == 2
    none = json.loads(cli("list", "--name-contains", "nothing-like-it", "-o", "json").stdout)
    assert none == []
    table = cli("list")
    assert table.exit_code == 0 and all(name in table.stdout for name in names)


@pytest.mark.parametrize(
    ("status", "reason", "exit_code", "fragment"),
    [
        ("Completed", None, 0, None),
        ("Failed", "AlgorithmError: CUDA out of memory", 1, "CUDA out of memory"),
        ("Stopped", None, 4, "was stopped"),
    ],
)
def test_wait_exit_codes(cli, job, status, reason, exit_code, fragment):
    training_job(job).training_job_status = status
    if reason:
        training_job(job).failure_reason = reason
    result = cli("wait", job, "-o", "json")
    assert result.exit_code == exit_code, result.output
    assert json.loads(result.stdout)["status"] == status
    assert json.loads(result.stdout)["failure_reason"] == reason
    if fragment:
        assert fragment in result.stderr and "Traceback" not in result.output


def test_wait_times_out_with_exit_5(cli, job):
    training_job(job).training_job_status = "InProgress"
    training_job(job).secondary_status = "Training"
    start = time.monotonic()
    result = cli("wait", job, "--timeout", "1")
    assert result.exit_code == 5, result.output
    assert time.monotonic() - start >= 0.9  # it waited out --timeout before giving up
    assert "still InProgress (Training)" in result.stderr and "sagelaunch wait" in result.stderr


def test_submit_wait_reports_failure(cli, moto, plan_copy):
    name = submitted(cli("submit", plan_copy, "-o", "json"))["job_name"]
    training_job(name).training_job_status = "Failed"
    training_job(name).failure_reason = "ClientError: bad data"
    result = cli("submit", plan_copy, "--wait", "-o", "json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["status"] == "Failed" and "bad data" in result.stderr


def test_bad_timeout_is_a_usage_error(cli, job):
    result = cli("wait", job, "--timeout", "soon")
    assert result.exit_code == 2 and "--timeout" in result.output


def seed_logs(job: str) -> int:
    """Two hosts' streams as SageMaker names them, with interleaved timestamps (recent ones:
    CloudWatch, and moto, drop events older than 14 days). Returns the base timestamp."""
    base = int(time.time() * 1000) - 60_000
    logs = boto_client("logs")
    logs.create_log_group(logGroupName=GROUP)
    lines = {
        "algo-1": [(1000, "step=1 host one"), (3000, "step=2 host one"), (5000, "done one")],
        "algo-2": [(2000, "step=1 host two"), (4000, "step=2 host two")],
    }
    for host, events in lines.items():
        stream = f"{job}/{host}-1700000000"
        logs.create_log_stream(logGroupName=GROUP, logStreamName=stream)
        logs.put_log_events(
            logGroupName=GROUP,
            logStreamName=stream,
            logEvents=[{"timestamp": base + t, "message": m} for t, m in events],
        )
    return base


def test_logs_interleave_hosts_in_time_order(cli, job):
    base = seed_logs(job)
    result = cli("logs", job)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "[algo-1] step=1 host one",
        "[algo-2] step=1 host two",
        "[algo-1] step=2 host one",
        "[algo-2] step=2 host two",
        "[algo-1] done one",
    ]
    only_two = cli("logs", job, "--host", "algo-2", "-o", "json")
    events = [json.loads(line) for line in only_two.stdout.splitlines()]
    assert [e["host"] for e in events] == ["algo-2", "algo-2"]
    assert [e["timestamp_ms"] for e in events] == [base + 2000, base + 4000]


def test_logs_follow_stops_when_the_job_has_ended(cli, job):
    seed_logs(job)
    result = cli("logs", job, "--follow")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "[algo-1] done one"
    assert "Completed" in result.stderr


def test_logs_before_the_log_group_exists(cli, job):
    result = cli("logs", job)
    assert result.exit_code == 0 and result.stdout == "" and "no log events" in result.stderr


def test_wait_with_logs_streams_them(cli, job):
    seed_logs(job)
    result = cli("wait", job, "--logs")
    assert result.exit_code == 0, result.output
    assert "[algo-2] step=2 host two" in result.stdout


def stubbed_sagemaker():
    from botocore.stub import Stubber

    client = boto_client("sagemaker")
    return client, Stubber(client)


def test_stop_through_a_stubbed_client(cli, moto):
    from sagelaunch.aws.session import Clients

    client, stubber = stubbed_sagemaker()
    stubber.add_response("stop_training_job", {}, {"TrainingJobName": "bert-1"})
    stubber.add_client_error(
        "stop_training_job",
        "ValidationException",
        "Could not find job to update with name bert-2",
        expected_params={"TrainingJobName": "bert-2"},
    )
    stubber.add_client_error(  # nor a tuning job of that name (stop tries one next)
        "describe_hyper_parameter_tuning_job",
        "ResourceNotFound",
        "Amazon SageMaker can't find a tuning job with name bert-2",
        expected_params={"HyperParameterTuningJobName": "bert-2"},
    )
    with stubber:
        ok = cli("stop", "bert-1", "-o", "json", obj=Clients(REGION, sagemaker=client))
        missing = cli("stop", "bert-2", obj=Clients(REGION, sagemaker=client))
        stubber.assert_no_pending_responses()
    assert ok.exit_code == 0 and json.loads(ok.stdout) == {
        "job_name": "bert-1",
        "kind": "training",
        "status": "Stopping",
    }
    assert missing.exit_code == 3 and "Could not find job" in missing.stderr


def test_stop_of_a_tuning_job_through_a_stubbed_client(cli, moto):
    """moto has no StopHyperParameterTuningJob: the Stubber plays AWS."""
    from sagelaunch.aws.session import Clients

    client, stubber = stubbed_sagemaker()
    name = {"TrainingJobName": "tune-1"}
    stubber.add_client_error(
        "stop_training_job", "ValidationException", "Could not find job", expected_params=name
    )
    described = {
        "HyperParameterTuningJobName": "tune-1",
        "HyperParameterTuningJobArn": "arn:aws:sagemaker:us-east-1:1:hyper-parameter-tuning-job/t",
        "HyperParameterTuningJobConfig": {
            "Strategy": "Bayesian",
            "ResourceLimits": {"MaxParallelTrainingJobs": 1},
        },
        "HyperParameterTuningJobStatus": "InProgress",
        "CreationTime": "2026-01-01T00:00:00Z",
        "TrainingJobStatusCounters": {},
        "ObjectiveStatusCounters": {},
    }
    tuning_name = {"HyperParameterTuningJobName": "tune-1"}
    stubber.add_response("describe_hyper_parameter_tuning_job", described, tuning_name)
    stubber.add_response("stop_hyper_parameter_tuning_job", {}, tuning_name)
    with stubber:
        result = cli("stop", "tune-1", "-o", "json", obj=Clients(REGION, sagemaker=client))
        stubber.assert_no_pending_responses()
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["kind"] == "tuning"


@pytest.mark.parametrize(
    ("code", "message"),
    [
        (
            "ResourceInUse",
            "Training job names must be unique within an AWS account and region, "
            "and a training job with this name already exists",
        ),
        ("ValidationException", "Job bert-1 already exists"),
    ],
)
def test_a_retried_create_that_already_exists_attaches(cli, moto, plan_copy, code, message):
    """The first create landed but its answer was lost; the retry is refused as a duplicate."""
    from sagelaunch import plan_file
    from sagelaunch.aws.session import Clients
    from sagelaunch.services.attach import COMPARED
    from sagelaunch.services.submit import idempotent_name

    plan, _ = plan_file.load(plan_copy)
    name = idempotent_name(plan.job_name, "lost-answer", plan.request)
    request = plan.renamed(name).request
    arn = f"arn:aws:sagemaker:{REGION}:123456789012:training-job/x"
    client, stubber = stubbed_sagemaker()
    # The bundle is not in S3 yet, so no describe comes first: upload (to moto), then create.
    stubber.add_client_error("create_training_job", code, message)
    stubber.add_response(
        "describe_training_job",
        {
            "TrainingJobName": name,
            "TrainingJobArn": arn,
            "TrainingJobStatus": "InProgress",
            "SecondaryStatus": "Starting",
            "ModelArtifacts": {"S3ModelArtifacts": ""},
            "CreationTime": "2024-01-01T00:00:00Z",
            # the job our lost create made: the planned request, as described
            **{field: request[field] for field in COMPARED if field in request},
        },
    )
    quotas = {"service-quotas": boto_client("service-quotas")}  # moto's: none listed
    aws = Clients(REGION, sagemaker=client, s3=boto_client("s3"), **quotas)
    with stubber:
        result = cli("submit", plan_copy, "--idempotency-key", "lost-answer", "-o", "json", obj=aws)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert (out["attached"], out["arn"], out["status"]) == (True, arn, "InProgress")
    assert out["uploaded"] is True

"""A CreateTrainingJob that reached AWS but whose answer never came back: submit looks the job up
by name and attaches to it (it runs this very request), so the step exits 0 and a rerun has
nothing to create twice. The fault proxy forwards the create to moto and then drops the answer:
it closes the connection (botocore: ConnectionClosedError) or stalls past the client's read
timeout (ReadTimeoutError). With AWS_MAX_ATTEMPTS=1 that lost answer is the create's last word:
botocore has no retry left that could be refused as "already exists"."""

from __future__ import annotations

import json

import pytest

from sagelaunch.aws import session
from tests.aws.conftest import REGION, SMDDP, boto_client, submitted

pytestmark = pytest.mark.integration

CREATE = "sagemaker:CreateTrainingJob"


def job_names() -> list[str]:
    listed = boto_client("sagemaker").list_training_jobs(MaxResults=100)["TrainingJobSummaries"]
    return [job["TrainingJobName"] for job in listed]


@pytest.mark.parametrize("mode", ["close", "stall"])
def test_a_create_whose_answer_was_lost_attaches_to_the_job_it_made(cli, proxy, monkeypatch, mode):
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    monkeypatch.setattr(session, "READ_TIMEOUT_S", 2)  # the stall outlasts any: a fast test
    proxy.lose_answers(CREATE, mode)
    result = cli("submit", SMDDP, "--no-check-quota", "-o", "json")
    job = submitted(result)
    assert proxy.lost[CREATE] == 1  # the create reached moto, and its answer was dropped
    assert proxy.created_names == [job["job_name"]] and job["attached"] is True
    assert job["arn"].endswith(f"training-job/{job['job_name']}")
    assert job_names() == [job["job_name"]]  # one job: the one this submit made
    assert proxy.requests["sagemaker:DescribeTrainingJob"] == 1  # the look-up after the loss


def test_a_lost_answer_then_a_refused_connection_still_attaches(proxy, plan_copy, monkeypatch):
    """The plain connection error: the first create lands and its answer is lost, botocore
    retries, and the retry finds nothing listening (a real refused connect, to port 1, raised
    by botocore's own HTTP layer as EndpointConnectionError). The create's last error says the
    request never left; the first attempt's job exists all the same: looked up, attached."""
    from sagelaunch.services.submit import deliver

    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "2")
    aws = session.clients(REGION)
    retried: list[str] = []

    def refuse_retries(request, **_: object) -> None:
        attempt = request.headers.get("amz-sdk-request", b"")
        if b"attempt=1;" not in (attempt if isinstance(attempt, bytes) else attempt.encode()):
            retried.append(request.url)
            request.url = request.url.replace(proxy.url, "http://127.0.0.1:1")

    aws.sagemaker.meta.events.register("before-send.sagemaker.CreateTrainingJob", refuse_retries)
    proxy.lose_answers(CREATE, "close")
    result, _ = deliver(plan_copy, None, None, None, aws=aws)
    assert retried and proxy.lost[CREATE] == 1 and proxy.requests[CREATE] == 1
    assert result.attached and job_names() == [result.job_name] == proxy.created_names


def test_a_create_refused_outright_is_not_looked_up(cli, proxy, plan_copy):
    """A 4xx on the first attempt was refused before anything was done: no look-up, exit 3."""
    proxy.script(CREATE, "ValidationException", "1 validation error detected: bad value")
    result = cli("submit", plan_copy, "--no-check-quota")
    assert result.exit_code == 3, result.output
    assert "SageMaker rejected CreateTrainingJob" in result.stderr
    assert proxy.requests["sagemaker:DescribeTrainingJob"] == 0 and job_names() == []


def test_a_lost_answer_of_a_create_that_did_not_land_is_exit_3(cli, proxy, plan_copy, monkeypatch):
    """Looked up and not found (the create never reached moto): the create's own error, exit 3,
    and a rerun creates the job once."""
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    proxy.script(CREATE, "InternalFailure", "We encountered an internal error", status=500)
    result = cli("submit", plan_copy, "--no-check-quota")
    assert result.exit_code == 3, result.output
    assert "Traceback" not in result.output and job_names() == []
    assert proxy.requests["sagemaker:DescribeTrainingJob"] == 1  # a 5xx-class failure: looked up
    again = submitted(cli("submit", plan_copy, "--no-check-quota", "-o", "json"))
    assert job_names() == [again["job_name"]] and again["attached"] is False
    assert json.loads(plan_copy.read_text())["job_name"] == again["job_name"]

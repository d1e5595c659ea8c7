"""The AWS Batch service-job stand-in (tests/aws/batch_server.py) against a plain boto3 client:
Batch's wire (requests checked, errors as botocore reads them) and its queue (order, capacity,
the training jobs it starts in moto, their ends, preemption)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import boto3
import pytest
from botocore.exceptions import ClientError

from tests.aws.batch_server import (
    COMPLETED,
    BatchServer,
    _model,
    _problem,
    batch_client,
    sagemaker_queue,
    training_request,
)
from tests.aws.conftest import boto_client, training_job


@pytest.fixture
def server(moto):
    batch_server = BatchServer(moto).start()
    yield batch_server
    batch_server.stop()


@pytest.fixture
def batch(server):
    return batch_client(server)


@pytest.fixture
def queue(server, batch) -> str:
    return sagemaker_queue(batch)


def submit(batch, queue: str, name: str, instances: int = 1, **extra) -> str:
    """A service job of ``instances`` instances (its training job named after it); its id."""
    payload = json.dumps(training_request(name, instances))
    answer = batch.submit_service_job(
        jobName=name,
        jobQueue=queue,
        serviceJobType="SAGEMAKER_TRAINING",
        serviceRequestPayload=payload,
        **extra,
    )
    return str(answer["jobId"])


def refusal(call, *args, **kwargs) -> tuple[int, str, str]:
    """(HTTP status, Error.Code, Error.Message) of a call that must fail."""
    with pytest.raises(ClientError) as caught:
        call(*args, **kwargs)
    response = caught.value.response
    error = response["Error"]
    return response["ResponseMetadata"]["HTTPStatusCode"], error["Code"], error["Message"]


def status(batch, job_id: str) -> str:
    return str(batch.describe_service_job(jobId=job_id)["status"])


@pytest.mark.parametrize(
    ("operation", "params", "named"),
    [
        ("create_service_environment", {"serviceEnvironmentName": "e"}, '"capacityLimits"'),
        (
            "create_service_environment",
            {
                "serviceEnvironmentName": "e",
                "serviceEnvironmentType": "SAGEMAKER_TRAINING",
                "capacityLimits": [{"maxCapacity": "4", "capacityUnit": "NUM_INSTANCES"}],
            },
            "capacityLimits[0].maxCapacity",
        ),
        ("create_job_queue", {"jobQueueName": "q"}, '"priority"'),
        ("update_job_queue", {"state": "ENABLED"}, '"jobQueue"'),
        ("update_job_queue", {"jobQueue": "q", "state": "PAUSED"}, "must be one of ENABLED"),
        ("create_scheduling_policy", {"fairsharePolicy": {}}, '"name"'),
        ("describe_job_queues", {"jobQueues": [3]}, "jobQueues[0]"),
        ("describe_service_environments", {"maxResults": "2"}, "maxResults"),
        ("submit_service_job", {"jobName": "j", "jobQueue": "ml-queue"}, "serviceRequestPayload"),
        (
            "submit_service_job",
            {
                "jobName": "j",
                "jobQueue": "ml-queue",
                "serviceJobType": "ECS",
                "serviceRequestPayload": "{}",
            },
            "serviceJobType: must be one of SAGEMAKER_TRAINING",
        ),
        ("describe_service_job", {}, '"jobId"'),
        ("list_service_jobs", {"jobQueue": "ml-queue", "jobStatus": "DONE"}, "jobStatus"),
        ("terminate_service_job", {"jobId": "x"}, '"reason"'),
    ],
)
def test_every_request_is_checked_against_its_input_shape(server, operation, params, named):
    """A request botocore would refuse on the client is refused by the server: 400
    ClientException naming the problem, whichever operation it is."""
    unchecked = batch_client(server, validate=False)
    code, error, message = refusal(getattr(unchecked, operation), **params)
    assert (code, error) == (400, "ClientException")
    assert message.startswith("Parameter validation failed") or "Invalid value" in message
    assert named in message


def post(server: BatchServer, path: str, body: dict) -> tuple[int, str, dict]:
    """A raw POST (what boto3 cannot send: its serializer drops or chokes on unknown members);
    (status, x-amzn-ErrorType, body)."""
    request = urllib.request.Request(f"{server.url}{path}", json.dumps(body).encode())
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status, "", json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, error.headers["x-amzn-ErrorType"], json.loads(error.read())


def test_an_error_is_on_the_wire_as_aws_sends_it(server):
    """rest-json: the status, x-amzn-ErrorType and a body of __type and message."""
    code, error_type, body = post(server, "/v1/describeservicejob", {})
    assert (code, error_type, body["__type"]) == (400, "ClientException", "ClientException")
    assert 'Missing required parameter in input: "jobId"' in body["message"]
    code, _, body = post(server, "/v1/listservicejobs", {"color": "red"})
    assert code == 400
    assert 'Unknown parameter in input: "color", must be one of: jobQueue' in body["message"]
    assert server.requests == [("DescribeServiceJob", {}), ("ListServiceJobs", {"color": "red"})]
    code, error_type, _ = post(server, "/v1/nothing", {})
    assert (code, error_type) == (404, "UnknownOperationException")


def test_the_payload_must_be_a_create_training_job_request(batch, queue):
    base = {"jobName": "j", "jobQueue": queue, "serviceJobType": "SAGEMAKER_TRAINING"}
    _, code, message = refusal(batch.submit_service_job, **base, serviceRequestPayload="{oops")
    assert code == "ClientException"
    assert message.startswith("serviceRequestPayload is not valid JSON")
    no_role = {k: v for k, v in training_request("j").items() if k != "RoleArn"}
    _, _, message = refusal(
        batch.submit_service_job, **base, serviceRequestPayload=json.dumps(no_role)
    )
    assert message.startswith("serviceRequestPayload is not a valid CreateTrainingJob request")
    assert 'Missing required parameter in input: "RoleArn"' in message
    # the job's name stands in for a TrainingJobName left out
    unnamed = {k: v for k, v in training_request("j").items() if k != "TrainingJobName"}
    batch.submit_service_job(**base, serviceRequestPayload=json.dumps(unnamed))


def test_a_job_waits_runnable_while_no_instance_is_free(server, batch, queue):
    job_id = submit(batch, queue, "waits")
    detail = batch.describe_service_job(jobId=job_id)
    assert detail["status"] == "RUNNABLE"
    assert detail["jobArn"] == f"arn:aws:batch:us-east-1:123456789012:service-job/{job_id}"
    assert detail["jobQueue"] == queue
    assert detail["startedAt"] == 0  # required in the output shape: 0 until the job starts
    assert "latestAttempt" not in detail and detail["attempts"] == []
    output = _model("batch").operation_model("DescribeServiceJob").output_shape
    detail.pop("ResponseMetadata")
    assert _problem(output, detail) is None
    listed = batch.list_service_jobs(jobQueue=queue, jobStatus="RUNNABLE")["jobSummaryList"]
    assert [job["jobId"] for job in listed] == [job_id]
    assert batch.list_service_jobs(jobQueue=queue)["jobSummaryList"] == []  # RUNNING only
    assert boto_client("sagemaker").list_training_jobs()["TrainingJobSummaries"] == []
    submits = [body for operation, body in server.requests if operation == "SubmitServiceJob"]
    assert len(submits) == 1


def test_places_in_the_queue_follow_scheduling_priority_then_submit_order(server, batch, queue):
    low = submit(batch, queue, "low", schedulingPriority=1)
    high = submit(batch, queue, "high", schedulingPriority=50)
    later_high = submit(batch, queue, "later-high", schedulingPriority=50)
    assert [server.place(job) for job in (high, later_high, low)] == [1, 2, 3]
    server.capacity(1)
    server.schedule()
    assert server.place(high) is None
    assert [server.place(job) for job in (later_high, low)] == [1, 2]


def test_free_instances_start_the_training_job_in_moto_and_the_job_follows_it(server, batch, queue):
    first = submit(batch, queue, "first", instances=2)
    second = submit(batch, queue, "second", instances=2)
    server.capacity(3)  # room for one of them
    detail = batch.describe_service_job(jobId=first)
    assert detail["status"] == "SCHEDULED"
    arn = detail["latestAttempt"]["serviceResourceId"]
    assert arn == {
        "name": "TrainingJobArn",
        "value": "arn:aws:sagemaker:us-east-1:123456789012:training-job/first",
    }
    assert detail["attempts"][0]["serviceResourceId"] == arn
    assert detail["capacityUsage"] == [{"capacityUnit": "NUM_INSTANCES", "quantity": 2.0}]
    training_job("first").training_job_status = "InProgress"  # moto's own jobs end at once
    created = boto_client("sagemaker").describe_training_job(TrainingJobName="first")
    assert created["ResourceConfig"]["InstanceCount"] == 2
    assert status(batch, second) == "RUNNABLE"
    assert server.place(second) == 1

    running = batch.describe_service_job(jobId=first)
    assert running["status"] == "RUNNING" and running["startedAt"] > 0
    assert [j["jobId"] for j in batch.list_service_jobs(jobQueue=queue)["jobSummaryList"]] == [
        first
    ]

    training_job("first").training_job_status = "Completed"
    done = batch.describe_service_job(jobId=first)
    assert done["status"] == "SUCCEEDED"
    assert done["statusReason"] == COMPLETED
    assert done["stoppedAt"] >= done["startedAt"] > 0
    # its instances came back: the second job started on the same look
    assert server.jobs[second].status == "SCHEDULED"


def test_a_failed_training_job_fails_the_service_job_with_its_reason(server, batch, queue):
    job_id = submit(batch, queue, "boom")
    server.capacity(1)
    server.schedule()
    training_job("boom").training_job_status = "Failed"
    training_job("boom").failure_reason = "AlgorithmError: boom"
    detail = batch.describe_service_job(jobId=job_id)
    assert detail["status"] == "FAILED"
    assert detail["statusReason"] == "Received status from SageMaker:AlgorithmError: boom"
    assert detail["attempts"][0]["statusReason"] == detail["statusReason"]
    assert detail["isTerminated"] is False


def test_a_retry_strategy_runs_another_attempt_as_a_new_training_job(server, batch, queue):
    job_id = submit(batch, queue, "retried", retryStrategy={"attempts": 2})
    server.capacity(1)
    server.schedule()
    training_job("retried").training_job_status = "Failed"
    detail = batch.describe_service_job(jobId=job_id)  # requeued, and started again at once
    assert detail["status"] == "SCHEDULED"
    assert [a["serviceResourceId"]["value"].rsplit("/", 1)[1] for a in detail["attempts"]] == [
        "retried",
        "retried-2",
    ]
    training_job("retried-2").training_job_status = "Failed"
    assert status(batch, job_id) == "FAILED"


def test_the_same_client_token_submits_once(server, batch, queue):
    first = submit(batch, queue, "once", clientToken="ci-step-7")
    again = submit(batch, queue, "once", clientToken="ci-step-7")
    assert again == first
    listed = batch.list_service_jobs(
        jobQueue=queue, filters=[{"name": "JOB_NAME", "values": ["once"]}]
    )
    assert [job["jobId"] for job in listed["jobSummaryList"]] == [first]
    _, code, message = refusal(
        submit, batch, queue, "once", clientToken="ci-step-7", schedulingPriority=9
    )
    assert code == "ClientException"
    assert message == "clientToken ci-step-7 was already used with different parameters"
    assert len(server.jobs) == 1


def test_terminate_fails_the_job_and_stops_its_training_job(server, batch, queue):
    running = submit(batch, queue, "running")
    waiting = submit(batch, queue, "waiting")
    next_one = submit(batch, queue, "next-one")
    server.capacity(1)
    server.schedule()
    training_job("running").training_job_status = "InProgress"
    batch.terminate_service_job(jobId=waiting, reason="not wanted")
    batch.terminate_service_job(jobId=waiting, reason="an ended job stays as it is")
    assert batch.describe_service_job(jobId=waiting)["statusReason"] == "not wanted"

    batch.terminate_service_job(jobId=running, reason="cancelled by the test")
    detail = batch.describe_service_job(jobId=running)
    assert detail["status"] == "FAILED"
    assert detail["isTerminated"] is True
    assert detail["statusReason"] == "cancelled by the test"
    assert training_job("running").training_job_status == "Stopped"
    assert server.jobs[next_one].status == "SCHEDULED"  # the instance came back
    names = [
        job["TrainingJobName"]
        for job in boto_client("sagemaker").list_training_jobs()["TrainingJobSummaries"]
    ]
    assert sorted(names) == ["next-one", "running"]  # none for the job terminated waiting
    _, _, message = refusal(batch.terminate_service_job, jobId="nope", reason="r")
    assert message == "Service job nope does not exist"


def test_a_fair_share_queue_wants_a_share_identifier_and_takes_turns(server, batch):
    queue = sagemaker_queue(batch, "fair", fair_share=True)
    _, code, message = refusal(submit, batch, queue, "no-share")
    assert code == "ClientException"
    assert message == (
        f"JobQueue {queue} has a fair-share scheduling policy: shareIdentifier is required"
    )
    a1 = submit(batch, queue, "a1", shareIdentifier="teamA")
    a2 = submit(batch, queue, "a2", shareIdentifier="teamA")
    b1 = submit(batch, queue, "b1", shareIdentifier="teamB")
    assert [server.place(job) for job in (a1, b1, a2)] == [1, 2, 3]
    summary = batch.list_service_jobs(
        jobQueue=queue,
        jobStatus="RUNNABLE",
        filters=[{"name": "SHARE_IDENTIFIER", "values": ["teamB"]}],
    )["jobSummaryList"]
    assert [(job["jobId"], job["shareIdentifier"]) for job in summary] == [(b1, "teamB")]
    fifo = sagemaker_queue(batch, "fifo")
    _, _, message = refusal(submit, batch, fifo, "shared", shareIdentifier="teamA")
    assert message == (
        f"JobQueue {fifo} has no fair-share scheduling policy: shareIdentifier must not be set"
    )


def test_a_job_goes_only_to_an_enabled_sagemaker_training_queue(batch, queue):
    _, code, message = refusal(submit, batch, "nope", "j")
    assert (code, message) == ("ClientException", "JobQueue nope not found.")
    batch.create_job_queue(
        jobQueueName="cpu",
        jobQueueType="ECS",
        priority=1,
        computeEnvironmentOrder=[{"order": 1, "computeEnvironment": "cpu-env"}],
    )
    _, _, message = refusal(submit, batch, "cpu", "j")
    assert message == (
        "JobQueue cpu is of type ECS: service jobs of type SAGEMAKER_TRAINING need a job queue "
        "of type SAGEMAKER_TRAINING"
    )
    batch.update_job_queue(jobQueue="ml-queue", state="DISABLED")
    _, _, message = refusal(submit, batch, "ml-queue", "j")
    assert message == "JobQueue ml-queue is not in a valid state: DISABLED"
    described = batch.describe_job_queues(jobQueues=[queue, "cpu"])["jobQueues"]
    assert [(q["jobQueueName"], q["state"], q["jobQueueType"]) for q in described] == [
        ("ml-queue", "DISABLED", "SAGEMAKER_TRAINING"),
        ("cpu", "ENABLED", "ECS"),
    ]
    assert described[0]["computeEnvironmentOrder"] == []  # required in the output shape


def test_a_denied_operation_is_access_denied(server, batch, queue):
    server.deny("SubmitServiceJob")
    code, error, message = refusal(submit, batch, queue, "j")
    assert (code, error) == (403, "AccessDeniedException")
    assert "is not authorized to perform: batch:SubmitServiceJob" in message
    server.allow("SubmitServiceJob")
    submit(batch, queue, "j")


def test_fail_before_start_never_creates_a_training_job(server, batch, queue):
    job_id = submit(batch, queue, "never")
    server.fail_before_start(job_id, "CannotStartServiceJob: role not assumable")
    server.capacity(1)
    detail = batch.describe_service_job(jobId=job_id)
    assert (detail["status"], detail["statusReason"]) == (
        "FAILED",
        "CannotStartServiceJob: role not assumable",
    )
    assert detail["attempts"] == [] and detail["startedAt"] == 0
    assert boto_client("sagemaker").list_training_jobs()["TrainingJobSummaries"] == []
    assert server.free == 1


def test_a_preempted_job_waits_again_until_its_preemption_retries_are_spent(server, batch, queue):
    job_id = submit(
        batch, queue, "spot", preemptionConfiguration={"preemptionRetriesBeforeTermination": 1}
    )
    server.capacity(1)
    server.schedule()
    training_job("spot").training_job_status = "InProgress"
    assert status(batch, job_id) == "RUNNING"
    server.preempt(job_id)
    assert training_job("spot").training_job_status == "Stopped"
    assert server.place(job_id) == 1
    detail = batch.describe_service_job(jobId=job_id)  # the instance is free again: restarted
    assert detail["status"] == "SCHEDULED"
    summary = detail["preemptionSummary"]
    assert summary["preemptedAttemptCount"] == 1
    preempted = summary["recentPreemptedAttempts"][0]
    assert preempted["serviceResourceId"]["value"].endswith("training-job/spot")
    assert preempted["statusReason"] == "Preempted"
    assert detail["latestAttempt"]["serviceResourceId"]["value"].endswith("training-job/spot-2")

    server.preempt(job_id)
    detail = batch.describe_service_job(jobId=job_id)
    assert (detail["status"], detail["statusReason"]) == (
        "FAILED",
        "Preemption retries exhausted",
    )
    assert detail["preemptionSummary"]["preemptedAttemptCount"] == 2
    assert server.free == 1


def test_lists_page_and_filter_by_name(batch, queue):
    ids = [submit(batch, queue, name) for name in ("Train-1", "train-2", "other")]
    pages = batch.get_paginator("list_service_jobs").paginate(
        jobQueue=queue, jobStatus="RUNNABLE", PaginationConfig={"PageSize": 2}
    )
    listed = [[job["jobId"] for job in page["jobSummaryList"]] for page in pages]
    assert listed == [[ids[2], ids[1]], [ids[0]]]  # newest first
    named = batch.list_service_jobs(
        jobQueue=queue, filters=[{"name": "JOB_NAME", "values": ["train*"]}]
    )["jobSummaryList"]
    assert [job["jobName"] for job in named] == ["train-2", "Train-1"]


def test_queues_and_environments_are_found_by_name_or_arn(batch, queue):
    environments = batch.describe_service_environments(serviceEnvironments=["ml-queue-env"])
    environment = environments["serviceEnvironments"][0]
    assert environment["serviceEnvironmentType"] == "SAGEMAKER_TRAINING"
    assert environment["capacityLimits"] == [{"maxCapacity": 8, "capacityUnit": "NUM_INSTANCES"}]
    by_arn = batch.describe_job_queues(jobQueues=[queue])["jobQueues"]
    by_name = batch.describe_job_queues(jobQueues=["ml-queue"])["jobQueues"]
    assert by_arn == by_name
    assert by_arn[0]["serviceEnvironmentOrder"] == [
        {"order": 1, "serviceEnvironment": environment["serviceEnvironmentArn"]}
    ]
    assert batch.describe_job_queues(jobQueues=["missing"])["jobQueues"] == []
    _, _, message = refusal(sagemaker_queue, batch)
    assert message == "Object already exists"


def test_a_plain_boto3_client_reaches_it_by_endpoint(server, queue):
    client = boto3.client(
        "batch",
        endpoint_url=server.url,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    job_id = submit(client, queue, "plain")
    assert client.describe_service_job(jobId=job_id)["jobName"] == "plain"

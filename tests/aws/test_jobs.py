"""aws/jobs.py without moto: what each call sends (botocore's Stubber checks every request
against SageMaker's model and the parameters expected), how a create attaches, how the List…
pager and the watch loop pace themselves. Written from `make mutate`'s survivors: the moto-backed
tests (test_submit, test_lifecycle) see one page of jobs and a job that ends at once."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError, ConnectionClosedError
from botocore.stub import Stubber

from sagelaunch.aws import jobs
from sagelaunch.errors import AwsError
from sagelaunch.job_events import Transition

ARN = "arn:aws:sagemaker:us-east-1:111122223333:training-job/unit-1"


@pytest.fixture
def stubbed() -> Iterator[tuple[Any, Stubber]]:
    """A SageMaker client that answers only what the test queued, and fails on anything else."""
    client = boto3.client(
        "sagemaker",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    with Stubber(client) as stub:
        yield client, stub
        stub.assert_no_pending_responses()


def refused(code: str, message: str = "no", status: int = 400, retries: int = 0) -> ClientError:
    meta = {"HTTPStatusCode": status, "RetryAttempts": retries}
    body = {"Error": {"Code": code, "Message": message}, "ResponseMetadata": meta}
    return ClientError(body, "CreateTrainingJob")  # type: ignore[arg-type]


def lost() -> ConnectionClosedError:
    return ConnectionClosedError(endpoint_url="https://api.sagemaker")


class Sent:
    """A create that answers or raises, and a describe that finds or fails: counted."""

    def __init__(self, answer: Any, found: Any = None) -> None:
        self.answer, self.found, self.sends, self.finds = answer, found, 0, 0

    def send(self) -> dict[str, Any]:
        self.sends += 1
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer

    def find(self) -> dict[str, Any] | None:
        self.finds += 1
        if isinstance(self.found, BaseException):
            raise self.found
        return self.found


def test_a_create_that_goes_through_is_a_new_job_and_looks_nothing_up():
    create = Sent({"TrainingJobArn": ARN})
    assert jobs.create_or_attach(create.send, create.find, "TrainingJobArn") == (ARN, None)
    assert create.finds == 0


@pytest.mark.parametrize(
    "error",
    [
        refused("ResourceInUse"),
        refused("ValidationException", "Training job names must be unique: already exists"),
        refused("InternalFailure", status=500),
        refused("ThrottlingException", retries=2),
        lost(),
    ],
    ids=["in-use", "already-exists", "5xx", "retried", "answer-lost"],
)
def test_a_create_that_may_have_landed_attaches_to_what_it_made(error):
    existing = {"TrainingJobArn": ARN, "TrainingJobStatus": "InProgress"}
    create = Sent(error, existing)
    assert jobs.create_or_attach(create.send, create.find, "TrainingJobArn") == (ARN, existing)
    assert (create.sends, create.finds) == (1, 1)


def test_a_create_refused_before_anything_was_done_is_not_looked_up():
    create = Sent(refused("ValidationException", "bad instance type"), {"TrainingJobArn": ARN})
    with pytest.raises(ClientError, match="bad instance type"):
        jobs.create_or_attach(create.send, create.find, "TrainingJobArn")
    assert create.finds == 0


@pytest.mark.parametrize("found", [None, AwsError("denied"), refused("AccessDenied"), lost()])
def test_when_the_look_up_cannot_tell_the_create_s_own_error_stands(found):
    create = Sent(refused("InternalFailure", "the create's own", status=500), found)
    with pytest.raises(ClientError, match="the create's own"):
        jobs.create_or_attach(create.send, create.find, "TrainingJobArn")
    assert create.finds == 1


def test_create_sends_the_request_and_attaches_to_the_job_of_its_name(stubbed):
    client, stub = stubbed
    request = {
        "TrainingJobName": "unit-1",
        "RoleArn": "arn:aws:iam::111122223333:role/SageMakerRole",
        "AlgorithmSpecification": {"TrainingImage": "image:1", "TrainingInputMode": "File"},
        "OutputDataConfig": {"S3OutputPath": "s3://b/out"},
        "ResourceConfig": {
            "InstanceType": "ml.g5.2xlarge",
            "InstanceCount": 1,
            "VolumeSizeInGB": 30,
        },
        "StoppingCondition": {"MaxRuntimeInSeconds": 3600},
    }
    stub.add_response("create_training_job", {"TrainingJobArn": ARN}, request)
    assert jobs.create(client, request) == (ARN, None)
    stub.add_client_error("create_training_job", "ResourceInUse", "exists", 400, request)
    described = described_job("InProgress")
    stub.add_response("describe_training_job", described, {"TrainingJobName": "unit-1"})
    arn, existing = jobs.create(client, request)
    assert arn == ARN and existing is not None and existing["TrainingJobName"] == "unit-1"


def described_job(status: str, secondary: str = "Training") -> dict[str, Any]:
    return {
        "TrainingJobName": "unit-1",
        "TrainingJobArn": ARN,
        "TrainingJobStatus": status,
        "SecondaryStatus": secondary,
        "AlgorithmSpecification": {"TrainingInputMode": "File"},
        "ResourceConfig": {"VolumeSizeInGB": 30},
        "StoppingCondition": {},
        "CreationTime": "2026-12-03T00:00:00Z",
        "ModelArtifacts": {"S3ModelArtifacts": "s3://b/out/model.tar.gz"},
    }


def test_describe_of_a_missing_job_is_none_and_stop_names_the_job(stubbed):
    client, stub = stubbed
    stub.add_client_error(
        "describe_training_job",
        "ValidationException",
        "Could not find job",
        400,
        {"TrainingJobName": "gone"},
    )
    assert jobs.describe(client, "gone") is None
    stub.add_response("stop_training_job", {}, {"TrainingJobName": "unit-1"})
    jobs.stop(client, "unit-1")


class Pages:
    """A List… call answering ``pages`` in turn, recording what each call asked for."""

    def __init__(self, *pages: dict[str, Any]) -> None:
        self.pages, self.asked = list(pages), []

    def __call__(self, **query: Any) -> dict[str, Any]:
        self.asked.append(query)
        return self.pages.pop(0)


def summaries(*names: str, token: str | None = None) -> dict[str, Any]:
    page: dict[str, Any] = {"Jobs": [{"Name": n} for n in names]}
    return page | ({"NextToken": token} if token else {})


def test_newest_asks_newest_first_page_by_page_for_what_is_still_missing():
    listing = Pages(summaries("a", "b", token="t1"), summaries("c", "d", token="t2"))
    found = jobs.newest(listing, "Jobs", "InProgress", "unit", 3)
    assert [job["Name"] for job in found] == ["a", "b", "c"]
    order = {"SortBy": "CreationTime", "SortOrder": "Descending"}
    filters = {"StatusEquals": "InProgress", "NameContains": "unit"}
    assert listing.asked == [
        {"MaxResults": 3, **order, **filters},
        {"MaxResults": 1, **order, **filters, "NextToken": "t1"},
    ]


def test_newest_stops_at_the_last_page_and_asks_at_most_100_at_a_time():
    listing = Pages(summaries("a", token="t1"), summaries("b"), summaries("never"))
    found = jobs.newest(listing, "Jobs", None, None, 250)
    assert [job["Name"] for job in found] == ["a", "b"]
    assert [q["MaxResults"] for q in listing.asked] == [100, 100]
    assert "StatusEquals" not in listing.asked[0] and "NameContains" not in listing.asked[0]
    assert jobs.newest(Pages({}), "Jobs", None, None, 5) == []
    full = Pages(summaries("a", "b", token="t1"))  # the limit reached: no call for none more
    assert len(jobs.newest(full, "Jobs", None, None, 2)) == 2 and len(full.asked) == 1


def test_list_jobs_sends_a_valid_query(stubbed):
    client, stub = stubbed
    query = {"SortBy": "CreationTime", "SortOrder": "Descending", "MaxResults": 2}
    summary = {
        "TrainingJobName": "unit-1",
        "TrainingJobArn": ARN,
        "CreationTime": "2026-12-03T00:00:00Z",
        "TrainingJobStatus": "Completed",
    }
    stub.add_response("list_training_jobs", {"TrainingJobSummaries": [summary]}, query)
    assert [job["TrainingJobName"] for job in jobs.list_jobs(client, limit=2)] == ["unit-1"]


def test_tags_follow_every_page_and_add_tags_sends_each_pair(stubbed):
    client, stub = stubbed
    first = {"Tags": [{"Key": "a", "Value": "1"}], "NextToken": "t"}
    stub.add_response("list_tags", first, {"ResourceArn": ARN})
    stub.add_response(
        "list_tags", {"Tags": [{"Key": "b", "Value": "2"}]}, {"ResourceArn": ARN, "NextToken": "t"}
    )
    assert jobs.tags(client, ARN) == [{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}]
    sent = {"ResourceArn": ARN, "Tags": [{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}]}
    stub.add_response("add_tags", {}, sent)
    assert jobs.add_tags(client, ARN, {"a": "1", "b": "2"}) is True


def test_tags_that_may_not_be_added_are_false_any_other_refusal_an_error(stubbed):
    client, stub = stubbed
    sent = {"ResourceArn": ARN, "Tags": [{"Key": "a", "Value": "1"}]}
    stub.add_client_error("add_tags", "AccessDeniedException", "not allowed", 400, sent)
    assert jobs.add_tags(client, ARN, {"a": "1"}) is False
    stub.add_client_error("add_tags", "ValidationException", "too many tags", 400, sent)
    with pytest.raises(AwsError, match="too many tags"):
        jobs.add_tags(client, ARN, {"a": "1"})


class Clock:
    """A clock that moves only when the watch sleeps, recording each sleep."""

    def __init__(self) -> None:
        self.now, self.slept = 100.0, []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def pacing(clock: Clock, timeout_s: float | None, poll_s: float = 5.0) -> jobs.Pacing:
    return jobs.Pacing(timeout_s, poll_s, clock, clock.sleep)


def statuses(*steps: tuple[str, str]) -> Any:
    answers = iter([{"TrainingJobStatus": s, "SecondaryStatus": d} for s, d in steps])
    return lambda: next(answers)


def test_each_new_transition_is_yielded_once_until_the_job_ends():
    clock = Clock()
    describe = statuses(
        ("InProgress", "Starting"), ("InProgress", "Starting"), ("InProgress", "Training"),
        ("Completed", "Completed"),
    )  # fmt: skip
    seen = jobs.changes(describe, Transition.of, lambda: AwsError("gone"), pacing(clock, None))
    assert [(t.status, t.secondary) for t, _ in seen] == [
        ("InProgress", "Starting"),
        ("InProgress", "Training"),
        ("Completed", "Completed"),
    ]
    assert clock.slept == [5.0, 5.0, 5.0]  # none after the end


def test_a_watch_ends_at_its_timeout_sleeping_no_further_than_it():
    clock = Clock()
    describe = statuses(*[("InProgress", "Training")] * 4)
    seen = list(
        jobs.changes(describe, Transition.of, lambda: AwsError("gone"), pacing(clock, 10.5))
    )
    assert len(seen) == 1 and seen[0][1]["TrainingJobStatus"] == "InProgress"
    assert clock.slept == [5.0, 5.0, 0.5] and clock.now == 110.5


def test_a_job_that_disappears_while_watched_is_an_error_naming_it(stubbed):
    client, stub = stubbed
    stub.add_response(
        "describe_training_job", described_job("InProgress"), {"TrainingJobName": "unit-1"}
    )
    stub.add_client_error(
        "describe_training_job",
        "ValidationException",
        "Could not find",
        400,
        {"TrainingJobName": "unit-1"},
    )
    clock = Clock()
    watching = jobs.watch(client, "unit-1", clock=clock, sleep=clock.sleep)
    transition, job = next(watching)
    assert transition.status == "InProgress" and job["TrainingJobArn"] == ARN
    with pytest.raises(AwsError, match="no training job named 'unit-1'") as raised:
        next(watching)
    assert raised.value.hint == "check the name (sagelaunch list) and --region"
    assert clock.slept == [jobs.POLL_S]


def test_a_watch_polls_as_often_as_asked(stubbed):
    client, stub = stubbed
    for status in ("InProgress", "Stopped"):
        stub.add_response(
            "describe_training_job", described_job(status), {"TrainingJobName": "unit-1"}
        )
    clock = Clock()
    seen = jobs.watch(client, "unit-1", poll_s=0.5, clock=clock, sleep=clock.sleep)
    assert [t.status for t, _ in seen] == ["InProgress", "Stopped"] and clock.slept == [0.5]


def test_a_watch_with_a_timeout_stops_on_a_job_still_running(stubbed):
    client, stub = stubbed
    for _ in range(3):
        stub.add_response(
            "describe_training_job", described_job("InProgress"), {"TrainingJobName": "unit-1"}
        )
    clock = Clock()
    seen = jobs.watch(client, "unit-1", timeout_s=10.0, clock=clock, sleep=clock.sleep)
    assert [t.status for t, _ in seen] == ["InProgress"] and clock.now == 110.0

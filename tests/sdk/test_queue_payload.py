"""The SubmitServiceJob request sagelaunch sends to a job queue is the SageMaker SDK's: for every
golden example, the estimator its plan holds goes through the SDK's own `TrainingQueue.submit`
(sagemaker.aws_batch, the payload oracle) against a stubbed Batch client, and what the SDK sends
equals `queue_request.submit_request` of the request the same estimator's `fit()` sends, the
`serviceRequestPayload` byte for byte. The SDK sends no clientToken (botocore makes a random one);
ours is the job name, so a rerun is the same request."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import sagemaker
from botocore.stub import Stubber
from sagemaker.aws_batch import batch_api_helper
from sagemaker.aws_batch.training_queue import TrainingQueue

from sagelaunch.aws.session import offline_session
from sagelaunch.checks.validation import load_valid
from sagelaunch.queue_request import submit_request
from sagelaunch.sdk.capture import build_estimator, capture_request, fit_inputs
from sagelaunch.sdk.estimator import EstimatorSpec, estimator_spec
from tests.conftest import EXAMPLES
from tests.golden.regenerate import GOLDEN, JOB_NAME, ROLE, unordered

REGION = "us-east-1"
QUEUE = "arn:aws:batch:us-east-1:111122223333:job-queue/ml-queue"
# Every setting the SDK's submit takes, and none (its defaults).
SETTINGS = {
    "full": {
        "name": QUEUE,
        "priority": 40,
        "share": "research",
        "retries": 2,
        "timeout": 7200,
        "tags": {"team": "batch-only", "queue-tag": "q"},
    },
    "defaults": {"name": "ml-queue"},
}


def spec_of(example: str, golden: dict) -> EstimatorSpec:
    """The estimator the example's golden plan holds, as sagelaunch's SDK layer builds it (from
    the config: the golden file's JSON sorts keys, and the SDK serialises some dicts in order)."""
    loaded, _ = load_valid(EXAMPLES / f"{example}.yaml")
    code_uri = golden["estimator"]["kwargs"].get("source_dir")
    return estimator_spec(loaded.config, role=ROLE, region=REGION, code_uri=code_uri)


@contextmanager
def stubbed_batch(region: str, monkeypatch) -> Iterator[tuple[sagemaker.Session, dict]]:
    """An offline SDK session, and what the SDK's TrainingQueue sends to SubmitServiceJob through
    its Batch client (stubbed: one answer, nothing leaves the process), filled in on exit."""
    session = sagemaker.Session(boto_session=offline_session(region))
    batch = session.boto_session.client("batch", region_name=region)
    sent: dict = {}
    batch.meta.events.register(
        "before-parameter-build.batch.SubmitServiceJob", lambda params, **_: sent.update(params)
    )
    monkeypatch.setattr(batch_api_helper, "get_batch_boto_client", lambda: batch)
    answer = {"jobArn": f"{QUEUE}/job/1", "jobName": JOB_NAME, "jobId": "1"}
    with Stubber(batch) as stub:
        stub.add_response("submit_service_job", answer)
        yield session, sent


def sdk_submit(spec: EstimatorSpec, settings: dict, monkeypatch) -> dict:
    """What `TrainingQueue(name).submit(estimator, inputs, ...)` sends, as a user calls it."""
    timeout = settings.get("timeout")
    with stubbed_batch(REGION, monkeypatch) as (session, sent):
        TrainingQueue(settings["name"]).submit(
            build_estimator(spec, session),
            fit_inputs(spec) or None,
            job_name=JOB_NAME,
            retry_config=_sdk_retry(settings),
            priority=settings.get("priority"),
            share_identifier=settings.get("share"),
            timeout={"attemptDurationSeconds": timeout} if timeout else None,
            tags=settings.get("tags"),
            experiment_config=spec.fit_kwargs.get("experiment_config"),
        )
    return sent


def _sdk_retry(settings: dict) -> dict | None:
    from sagemaker.aws_batch.constants import DEFAULT_SAGEMAKER_TRAINING_RETRY_CONFIG as RETRY

    retries = settings.get("retries")
    return {**RETRY, "attempts": RETRY["attempts"] + retries} if retries else None


EXAMPLE_NAMES = sorted(p.stem for p in EXAMPLES.glob("*.yaml"))


@pytest.mark.parametrize("example", EXAMPLE_NAMES)
def test_the_queued_payload_is_the_sdks(example, monkeypatch):
    golden = json.loads((GOLDEN / f"{example}.json").read_text())
    spec = spec_of(example, golden)
    request = capture_request(spec, REGION, JOB_NAME)  # in the SDK's key order
    assert unordered(request) == golden["request"]  # the estimator is the golden plan's
    for settings in SETTINGS.values():
        ours = submit_request(settings, request)
        assert ours.pop("clientToken") == JOB_NAME
        sdk = sdk_submit(spec, settings, monkeypatch)
        if "tags" not in ours:
            sdk.pop("tags", None)
        assert ours == sdk
        assert ours["serviceRequestPayload"] == sdk["serviceRequestPayload"]  # bytes, in order

"""The SubmitServiceJob request that puts a training job on an AWS Batch job queue, built from the
CreateTrainingJob request exactly as the SageMaker SDK's `TrainingQueue.submit` builds it
(sagemaker/aws_batch/batch_api_helper.py): the training request without its ``Tags`` becomes
``serviceRequestPayload`` (``json.dumps`` with its default separators, keys in the request's
order), the tags go to the service job's ``tags`` (the training job's win a key both have), the
job name is the training job's, and the SDK's own retry strategy and one-day timeout are the
defaults (read from the installed SDK's aws_batch/constants.py, not copied).

What the SDK does not send, sent only when the config asks for it: ``quotaShareName``,
``preemptionConfiguration``; and ``clientToken``, the job name (Batch's idempotency token: a
rerun of the same submit is the same request, which Batch does not run twice).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from sagelaunch.catalog.sdk_data import module_literal

SERVICE_JOB_TYPE = "SAGEMAKER_TRAINING"
_CONSTANTS = "aws_batch/constants.py"


def sdk_default(name: str) -> Any:
    """A constant of the SDK's aws_batch/constants.py (DEFAULT_TIMEOUT, ...), read as data."""
    return copy.deepcopy(module_literal(_CONSTANTS, name))


def default_timeout() -> int:
    """The SDK's attempt timeout when none is given (its DEFAULT_TIMEOUT's one value)."""
    return int(sdk_default("DEFAULT_ATTEMPT_DURATION_IN_SECONDS"))


def retry_strategy(retries: int) -> dict[str, Any]:
    """The SDK's retry strategy (retry on SageMaker's internal error, else exit) with ``retries``
    more attempts than its one."""
    strategy = sdk_default("DEFAULT_SAGEMAKER_TRAINING_RETRY_CONFIG")
    strategy["attempts"] = int(strategy["attempts"]) + retries
    return strategy


def submit_request(queue: Mapping[str, Any], training: Mapping[str, Any]) -> dict[str, Any]:
    """SubmitServiceJob's parameters for the training request ``training`` on ``queue`` (the
    config's `compute.queue` as a mapping: name, priority, share, quota_share, preemption,
    retries, timeout, tags)."""
    payload = dict(training)
    training_tags = payload.pop("Tags", None)
    timeout = queue.get("timeout")
    request: dict[str, Any] = {
        "jobName": training["TrainingJobName"],
        "jobQueue": queue["name"],
        "retryStrategy": retry_strategy(int(queue.get("retries") or 0)),
        "serviceJobType": SERVICE_JOB_TYPE,
        "serviceRequestPayload": json.dumps(payload),
        "timeoutConfig": (
            {"attemptDurationSeconds": int(timeout if timeout is not None else default_timeout())}
        ),
    }
    # The SDK sends a priority only when it is not 0 (`if scheduling_priority:`); Batch's default
    # is 0, so the job is scheduled the same either way.
    if queue.get("priority"):
        request["schedulingPriority"] = int(queue["priority"])
    if queue.get("share"):
        request["shareIdentifier"] = queue["share"]
    if queue.get("quota_share"):
        request["quotaShareName"] = queue["quota_share"]
    if queue.get("preemption") is not None:
        retries = int(queue["preemption"])
        request["preemptionConfiguration"] = {"preemptionRetriesBeforeTermination": retries}
    tags = {**dict(queue.get("tags") or {}), **{t["Key"]: t["Value"] for t in training_tags or []}}
    if tags:
        request["tags"] = tags
    request["clientToken"] = training["TrainingJobName"]
    return request

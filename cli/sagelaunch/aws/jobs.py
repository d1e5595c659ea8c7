"""Training jobs: create (or attach), describe, stop, list, and wait through SecondaryStatus."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from sagelaunch.aws.errors import (
    DENIED,
    error_code,
    is_already_exists,
    may_have_landed,
    translated,
    unless_not_found,
)
from sagelaunch.errors import AwsError
from sagelaunch.job_events import Transition
from sagelaunch.statuses import TERMINAL

POLL_S = 5.0


@translated
def describe(sagemaker: Any, name: str) -> dict[str, Any] | None:
    """DescribeTrainingJob, or None when there is no such job."""
    return unless_not_found(lambda: sagemaker.describe_training_job(TrainingJobName=name))


@translated
def create(sagemaker: Any, request: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """CreateTrainingJob; returns the job's ARN, and its description when it already existed."""
    name = request["TrainingJobName"]
    return create_or_attach(
        lambda: sagemaker.create_training_job(**request),
        lambda: describe(sagemaker, name),
        "TrainingJobArn",
    )


def create_or_attach(
    send: Callable[[], dict[str, Any]],
    find: Callable[[], dict[str, Any] | None],
    arn_key: str,
) -> tuple[str, dict[str, Any] | None]:
    """Send a create; the ARN, and the description when the resource already existed.

    botocore retries a create that timed out or was throttled; when an earlier attempt had in
    fact gone through, the retry is refused as "already exists", and we attach to what it made
    instead of failing. A create that failed in any way that may have reached the server
    (`may_have_landed`: the answer was lost on the wire, or any attempt was retried) is looked
    up by ``find`` (a describe): when it landed, we attach (the caller checks it is ours)
    instead of failing, so a rerun without an idempotency key makes no second job."""
    try:
        response = send()
    except (ClientError, BotoCoreError) as exc:
        existing = _look_up(find) if is_already_exists(exc) or may_have_landed(exc) else None
        if existing is None:
            raise
        return existing[arn_key], existing
    return response[arn_key], None


def _look_up(find: Callable[[], dict[str, Any] | None]) -> dict[str, Any] | None:
    """``find``'s answer; None when it cannot tell either (the create's own error stands)."""
    try:
        return find()
    except (AwsError, BotoCoreError, ClientError):
        return None


@translated
def stop(sagemaker: Any, name: str) -> None:
    """StopTrainingJob: the job goes Stopping, then Stopped."""
    sagemaker.stop_training_job(TrainingJobName=name)


@translated
def list_jobs(
    sagemaker: Any, status: str | None = None, name_contains: str | None = None, limit: int = 20
) -> list[dict[str, Any]]:
    """The newest ``limit`` jobs, optionally filtered by status and name."""
    return newest(
        sagemaker.list_training_jobs, "TrainingJobSummaries", status, name_contains, limit
    )


def newest(
    list_call: Callable[..., dict[str, Any]],
    summaries: str,
    status: str | None,
    name_contains: str | None,
    limit: int,
) -> list[dict[str, Any]]:
    """A List… call's newest ``limit`` ``summaries``, page by page (training and tuning jobs)."""
    query: dict[str, Any] = {"SortBy": "CreationTime", "SortOrder": "Descending"}
    if status:
        query["StatusEquals"] = status
    if name_contains:
        query["NameContains"] = name_contains
    found: list[dict[str, Any]] = []
    while len(found) < limit:
        page = list_call(MaxResults=min(100, limit - len(found)), **query)
        found.extend(page.get(summaries, []))
        if not page.get("NextToken"):
            break
        query["NextToken"] = page["NextToken"]
    return found[:limit]


def watch(
    sagemaker: Any,
    name: str,
    timeout_s: float | None = None,
    poll_s: float | None = None,  # POLL_S, read when called
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[tuple[Transition, dict[str, Any]]]:
    """Describe ``name`` until it ends or ``timeout_s`` passes, yielding each new transition with
    the description it came from. The caller tells a timeout from an end by the last status."""
    return changes(
        lambda: describe(sagemaker, name),
        Transition.of,
        lambda: missing(name),
        Pacing(timeout_s, POLL_S if poll_s is None else poll_s, clock, sleep),
    )


@dataclass(frozen=True)
class Pacing:
    """How long to watch, how often to look, and the clock and sleep to do it with."""

    timeout_s: float | None
    poll_s: float
    clock: Callable[[], float]
    sleep: Callable[[float], None]


def changes(
    describe_now: Callable[[], dict[str, Any] | None],
    transition_of: Callable[[dict[str, Any]], Transition],
    missing_error: Callable[[], AwsError],
    pacing: Pacing,
) -> Iterator[tuple[Transition, dict[str, Any]]]:
    """Describe until the status is terminal or the timeout passes, yielding each new transition
    with its description (training and tuning jobs alike)."""
    clock, poll_s = pacing.clock, pacing.poll_s
    deadline = None if pacing.timeout_s is None else clock() + pacing.timeout_s
    last: Transition | None = None
    while True:
        job = describe_now()
        if job is None:
            raise missing_error()
        now = transition_of(job)
        if now != last:
            last = now
            yield now, job
        if now.status in TERMINAL or (deadline is not None and clock() >= deadline):
            return
        pacing.sleep(poll_s if deadline is None else max(0.0, min(poll_s, deadline - clock())))


def missing(name: str) -> AwsError:
    return AwsError(
        f"no training job named {name!r} in this account and region",
        hint="check the name (sagelaunch list) and --region",
    )


@translated
def tags(sagemaker: Any, arn: str) -> list[dict[str, str]]:
    """The job's tags (DescribeTrainingJob does not return them)."""
    found: list[dict[str, str]] = []
    query: dict[str, Any] = {"ResourceArn": arn}
    while True:
        page = sagemaker.list_tags(**query)
        found += page.get("Tags", [])
        if not page.get("NextToken"):
            return found
        query["NextToken"] = page["NextToken"]


@translated
def add_tags(sagemaker: Any, arn: str, tags: dict[str, str]) -> bool:
    """AddTags (idempotent: a tag of the same key is overwritten); False when the credentials
    may not tag (the caller carries on without)."""
    try:
        sagemaker.add_tags(ResourceArn=arn, Tags=[{"Key": k, "Value": v} for k, v in tags.items()])
    except ClientError as exc:
        if error_code(exc) in DENIED:
            return False
        raise
    return True

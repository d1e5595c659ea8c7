"""What a sweep on SageMaker writes into a trial's row (sweeps.results.TrialState): a job's
description (status, metrics, elapsed time and cost), and a failover's move to the next attempt
(the attempt left behind joins ``earlier``, and the row starts over, queued)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from sagelaunch.plan.cost import job_cost
from sagelaunch.sweeps.results import QUEUED

if TYPE_CHECKING:
    from sagelaunch.services.chain_walk import Passed
    from sagelaunch.sweeps.results import TrialState


def record_job(state: TrialState, job: dict[str, Any]) -> None:
    """The trial as its job's DescribeTrainingJob shows it."""
    state.status = job["TrainingJobStatus"]
    state.failure_reason = job.get("FailureReason") or None
    state.metrics = {
        m["MetricName"]: float(m["Value"]) for m in job.get("FinalMetricDataList") or []
    }
    state.elapsed_s = _elapsed(job)
    cost = job_cost(job)
    state.cost_usd = cost["usd"] if cost else None  # type: ignore[assignment]


def record_failover(
    state: TrialState, number: int, job_name: str, passed: list[Passed], why: str
) -> None:
    """The trial moves to attempt ``number`` (its job ``job_name``): the current attempt, and
    those passed over on the way, go to ``earlier``, and the row is the new attempt's, queued
    (same code, same bundle)."""
    made = state.job_name if state.status != QUEUED else None
    state.earlier.append(
        {"number": state.attempt, "job_name": made, "ended_because": why}
        | {"cost_usd": state.cost_usd}
    )
    state.earlier += [
        {"number": p.number, "job_name": None, "ended_because": p.reason, "cost_usd": None}
        for p in passed
    ]
    state.attempt, state.job_name, state.status = number, job_name, QUEUED
    state.attached, state.failure_reason, state.note = False, None, ""
    state.metrics, state.elapsed_s, state.cost_usd = {}, None, None


def _elapsed(job: dict[str, Any]) -> float | None:
    start = job.get("TrainingStartTime") or job.get("CreationTime")
    if not isinstance(start, datetime):
        return None
    end = job.get("TrainingEndTime")
    end = end if isinstance(end, datetime) else datetime.now(start.tzinfo or timezone.utc)
    return max(0.0, (end - start).total_seconds())

"""A sweep trial's failover chain (`compute.fallback`), walked as `submit` walks it.

When a trial's job fails for lack of capacity, or the quota pre-flight finds a quota below what
the trial asks on its own (no running job's end would make room), the trial moves to its next
alternative, planned like the trial itself (its parameters, the alternative's changes on top).
Attempt n's job is named from the sweep's key + `/attempt-n`, so a rerun of the sweep finds every
attempt it already made. A sweep runs in one region (one set of clients, one place to look for
its jobs): an alternative in another region is passed over, and the trial says so.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sagelaunch import naming
from sagelaunch.config.trials import with_overrides
from sagelaunch.services import planning
from sagelaunch.services.failover import chain_of
from sagelaunch.sweeps.planning import PlannedSweep, TrialPlan, trial_job_name

if TYPE_CHECKING:
    from sagelaunch.config.model import Fallback


@dataclass(frozen=True)
class NextAttempt:
    number: int
    plan: TrialPlan
    passed_over: list[dict[str, Any]]  # alternatives in another region, as `earlier` entries


def has_chain(trial: TrialPlan) -> bool:
    return bool(chain_of(trial.trial.loaded.config.compute))


def capacity_ending(job: dict[str, Any]) -> str | None:
    """Why the job ended, when SageMaker found no instances for it (the trial moves on); None
    when it did not end that way (its code failing does not move it on)."""
    from sagelaunch.services.attempts import ended_because, is_capacity_failure

    return ended_because(job) if is_capacity_failure(job) else None


def next_attempt(
    sweep: PlannedSweep, original: TrialPlan, after: int, progress: planning.Progress = nullcontext
) -> NextAttempt | None:
    """The trial's first attempt after ``after`` that can run in the sweep's region, planned;
    None when the chain has no more."""
    fallbacks = chain_of(original.trial.loaded.config.compute)
    region = original.plan.region
    passed: list[dict[str, Any]] = []
    for number in range(after + 1, len(fallbacks) + 1):
        alternative = fallbacks[number - 1]
        if alternative.region and alternative.region != region:
            reason = f"region: a sweep runs in one region ({region}), not {alternative.region}"
            passed.append(
                {"number": number, "job_name": None, "ended_because": reason, "cost_usd": None}
            )
            continue
        return NextAttempt(number, _planned(sweep, original, alternative, number, progress), passed)
    return None


def _planned(
    sweep: PlannedSweep,
    original: TrialPlan,
    alternative: Fallback,
    number: int,
    progress: planning.Progress,
) -> TrialPlan:
    loaded = with_overrides(original.trial, alternative.overrides())
    plan = planning.planned(
        loaded,
        job_name=naming.job_name_for(loaded.config),
        region=original.plan.region,
        role=planning.resolve_role(loaded),
        code=original.code,
        warnings=[],
        code_in_key=True,
        progress=progress,
    )
    key = f"{sweep.key}/attempt-{number}"
    name = trial_job_name(sweep.name, key, original.trial, plan.request)
    return TrialPlan(original.trial, plan.renamed(name), original.bundle, original.code)

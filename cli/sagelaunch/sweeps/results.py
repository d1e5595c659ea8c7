"""A sweep's results: one row per trial, the best trial, the exit code, and the results file.

Shared by sweeps on SageMaker (sweeps.scheduler) and local ones (sweeps.local), so both render,
rank, end and write the same way: `conclude_sweep` raises what the set of trials means for the
exit code, as services.follow's `conclude` does for one job. `--results FILE` writes JSON, or CSV
when FILE ends in .csv (one column per swept key), atomically: a CI artifact is never half
written.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sagelaunch import atomic
from sagelaunch.config.sweep import SweepObjective
from sagelaunch.errors import ExitCode, JobFailed, JobStopped, SagelaunchError, WaitTimeout
from sagelaunch.statuses import TERMINAL, JobStatus

QUEUED = "Queued"  # not created yet: waiting for a free slot (or for quota)


@dataclass
class TrialState:
    """One trial as the sweep last saw it."""

    index: int
    parameters: dict[str, Any]
    job_name: str
    status: str = QUEUED
    attached: bool = False  # the job existed already (a rerun under the same key)
    elapsed_s: float | None = None
    metrics: dict[str, float] = field(default_factory=dict)
    failure_reason: str | None = None
    cost_usd: float | None = None  # billable seconds × the dated price (plan.cost.job_cost)
    note: str = ""  # why it waits (quota), shown in the live table
    workdir: str | None = None  # local sweeps: the trial's run folder
    # the failover attempts before the current job: number, job_name, ended_because, cost_usd
    earlier: list[dict[str, Any]] = field(default_factory=list)
    attempt: int = 0  # the failover attempt the current job is (0: the trial's own config)

    @property
    def chain_cost_usd(self) -> float | None:
        """What the trial's jobs cost, earlier attempts included (None: none billed yet)."""
        costs = [a["cost_usd"] for a in self.earlier if a["cost_usd"] is not None]
        costs += [self.cost_usd] if self.cost_usd is not None else []
        return round(sum(costs), 2) if costs else None

    @property
    def done(self) -> bool:
        return self.status in TERMINAL

    @property
    def active(self) -> bool:
        return self.status in (JobStatus.InProgress.value, JobStatus.Stopping.value)


@dataclass
class SweepResult:
    """Every trial, and what ranks them."""

    name: str
    key: str | None
    trials: list[TrialState]
    objective: SweepObjective | None = None
    where: str = "sagemaker"  # or "local"

    def objective_of(self, trial: TrialState) -> float | None:
        return trial.metrics.get(self.objective.metric) if self.objective else None

    @property
    def best(self) -> TrialState | None:
        """The completed trial with the best objective value (None without an objective)."""
        ranked = [
            t
            for t in self.trials
            if t.status == JobStatus.Completed.value and self.objective_of(t) is not None
        ]
        if not ranked or self.objective is None:
            return None
        sign = 1.0 if self.objective.goal == "minimize" else -1.0
        return min(ranked, key=lambda t: sign * float(self.objective_of(t) or 0.0))

    def count(self, status: str) -> int:
        return sum(1 for t in self.trials if t.status == status)

    def exit_code(self, waited: bool) -> int:
        """0 all completed (or, without waiting, none failed so far), 1 any failed, 4 any
        stopped, 5 when waiting ended before every trial did."""
        if self.count(JobStatus.Failed.value):
            return ExitCode.JOB_FAILED
        if self.count(JobStatus.Stopped.value):
            return ExitCode.JOB_STOPPED
        if waited and not all(t.done for t in self.trials):
            return ExitCode.WAIT_TIMEOUT
        return ExitCode.OK

    def as_json(self) -> dict[str, Any]:
        best = self.best
        return {
            "sweep": self.name,
            "where": self.where,
            "idempotency_key": self.key,
            "objective": self.objective.model_dump() if self.objective else None,
            "best_trial": best.index if best else None,
            "counts": {s: self.count(s) for s in _statuses(self.trials)},
            "trials": [self._trial_json(t) for t in self.trials],
            "cost_usd": self.cost_usd,
        }

    @property
    def cost_usd(self) -> float | None:
        """What the sweep's billed trials cost so far (None: none billed yet)."""
        costs = [t.chain_cost_usd for t in self.trials if t.chain_cost_usd is not None]
        return round(sum(costs), 2) if costs else None

    def _trial_json(self, trial: TrialState) -> dict[str, Any]:
        return {
            "trial": trial.index,
            "parameters": trial.parameters,
            "job_name": trial.job_name,
            "status": trial.status,
            "attached": trial.attached,
            "elapsed_s": None if trial.elapsed_s is None else round(trial.elapsed_s, 1),
            "objective": self.objective_of(trial),
            "metrics": trial.metrics,
            "failure_reason": trial.failure_reason,
            "cost_usd": trial.cost_usd,
            "workdir": trial.workdir,
            **(
                {"attempt": trial.attempt, "earlier_attempts": trial.earlier}
                if trial.earlier
                else {}
            ),
        }


def _statuses(trials: list[TrialState]) -> list[str]:
    return list(dict.fromkeys(t.status for t in trials))


def write_results(path: Path, result: SweepResult) -> None:
    """JSON, or CSV when ``path`` ends in .csv."""
    text = _csv(result) if path.suffix.lower() == ".csv" else json.dumps(result.as_json(), indent=2)
    atomic.write_text(path, text if text.endswith("\n") else text + "\n")


def _csv(result: SweepResult) -> str:
    keys = list(result.trials[0].parameters) if result.trials else []
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["trial", *keys, "job_name", "status", "elapsed_s", "objective", "best"])
    best = result.best
    for row in result.as_json()["trials"]:
        values = [_cell(row["parameters"][k]) for k in keys]
        writer.writerow(
            [
                row["trial"],
                *values,
                row["job_name"],
                row["status"],
                "" if row["elapsed_s"] is None else row["elapsed_s"],
                "" if row["objective"] is None else row["objective"],
                "yes" if best is not None and row["trial"] == best.index else "",
            ]
        )
    return buffer.getvalue()


def _cell(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def conclude_sweep(result: SweepResult, waited: bool) -> None:
    """A set of trials: any failed 1, any stopped 4, waiting ended before every trial 5."""
    code = result.exit_code(waited)
    if code == ExitCode.OK:
        return
    total = len(result.trials)
    errors: dict[int, Callable[[], SagelaunchError]] = {
        ExitCode.JOB_FAILED: lambda: _trials_failed(result),
        ExitCode.JOB_STOPPED: lambda: JobStopped(
            f"{result.count(JobStatus.Stopped)} of {total} trials were stopped"
        ),
        ExitCode.WAIT_TIMEOUT: lambda: WaitTimeout(
            f"{sum(not t.done for t in result.trials)} trials had not ended when waiting stopped",
            hint="rerun the sweep with the same --idempotency-key to attach and keep waiting",
        ),
    }
    raise errors[code]()


def _trials_failed(result: SweepResult) -> JobFailed:
    failed = [t for t in result.trials if t.status == JobStatus.Failed]
    first = failed[0]
    return JobFailed(
        f"{len(failed)} of {len(result.trials)} trials failed; trial {first.index} "
        f"({first.job_name}): {first.failure_reason or 'no reason given'}"
    )

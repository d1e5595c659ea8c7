"""How tuning jobs look: status (counts of training jobs by state, the best training job), the
list table, and their JSON summaries (stable keys for CI)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from sagelaunch.commands.job_view import jsonable, status_text
from sagelaunch.output import stdout

if TYPE_CHECKING:
    from sagelaunch.plan_model import TuningPlan

RANGE_KINDS = ("Continuous", "Integer", "Categorical")


def render_tuning_plan(tuning: TuningPlan) -> None:
    """`plan` of a config with `tuning:`: the tuning job and its ranges as sent (-o json shows
    the whole CreateHyperParameterTuningJob request)."""
    config = tuning.request["HyperParameterTuningJobConfig"]
    objective = config.get("HyperParameterTuningJobObjective", {})
    limits = config.get("ResourceLimits", {})
    stdout.print(
        f"[bold]tuning[/bold] {tuning.job_name} · {config['Strategy']} · "
        f"{objective.get('Type', '?')} {objective.get('MetricName', '?')} · "
        f"{limits.get('MaxNumberOfTrainingJobs', 'every point')} jobs, "
        f"{limits.get('MaxParallelTrainingJobs')} at once · early stopping "
        f"{config.get('TrainingJobEarlyStoppingType', 'Off')}",
        highlight=False,
    )
    table = Table(title="tuned ranges (as sent)", title_justify="left", box=None)
    for column in ("hyperparameter", "kind", "range", "scaling"):
        table.add_column(column, overflow="fold")
    ranges = config.get("ParameterRanges", {})
    for kind in RANGE_KINDS:
        for item in ranges.get(f"{kind}ParameterRanges", []):
            span = (
                ", ".join(item["Values"])
                if kind == "Categorical"
                else f"{item['MinValue']} … {item['MaxValue']}"
            )
            table.add_row(item["Name"], kind.lower(), span, item.get("ScalingType", ""))
    stdout.print(table)


def tuning_summary(job: dict[str, Any], console_url: str) -> dict[str, Any]:
    """`status --output json` for a tuning job."""
    config = job.get("HyperParameterTuningJobConfig") or {}
    best = job.get("BestTrainingJob") or None
    objective = (best or {}).get("FinalHyperParameterTuningJobObjectiveMetric") or {}
    return jsonable(
        {
            "kind": "tuning",
            "tuning_job_name": job["HyperParameterTuningJobName"],
            "arn": job.get("HyperParameterTuningJobArn"),
            "status": job["HyperParameterTuningJobStatus"],
            "failure_reason": job.get("FailureReason") or None,
            "strategy": config.get("Strategy"),
            "objective": config.get("HyperParameterTuningJobObjective"),
            "resource_limits": config.get("ResourceLimits"),
            "training_jobs": job.get("TrainingJobStatusCounters") or {},
            "objectives": job.get("ObjectiveStatusCounters") or {},
            "best_training_job": None
            if best is None
            else {
                "job_name": best.get("TrainingJobName"),
                "status": best.get("TrainingJobStatus"),
                "objective": objective.get("Value"),
                "metric": objective.get("MetricName"),
                "hyperparameters": best.get("TunedHyperParameters") or {},
            },
            "created": job.get("CreationTime"),
            "ended": job.get("HyperParameterTuningEndTime"),
            "console_url": console_url,
        }
    )


def render_tuning(summary: dict[str, Any]) -> None:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row("tuning job", summary["tuning_job_name"])
    grid.add_row("status", status_text(summary["status"]))
    if summary["failure_reason"]:
        grid.add_row("failure", Text(summary["failure_reason"], style="red"))
    objective = summary["objective"] or {}
    grid.add_row("objective", f"{objective.get('Type', '?')} {objective.get('MetricName', '?')}")
    grid.add_row("strategy", str(summary["strategy"]))
    limits = summary["resource_limits"] or {}
    grid.add_row(
        "limits",
        f"{limits.get('MaxNumberOfTrainingJobs', '-')} jobs, "
        f"{limits.get('MaxParallelTrainingJobs', '-')} at once",
    )
    grid.add_row("training jobs", _counts(summary["training_jobs"]))
    best = summary["best_training_job"]
    if best:
        tuned = ", ".join(f"{k}={v}" for k, v in best["hyperparameters"].items())
        grid.add_row("best job", f"{best['job_name']} ({best['metric']} = {best['objective']})")
        grid.add_row("best values", tuned or "-")
    grid.add_row("console", summary["console_url"])
    stdout.print(grid)


def _counts(counters: dict[str, int]) -> str:
    shown = [f"{count} {state}" for state, count in counters.items() if count]
    return ", ".join(shown) or "none yet"


def tuning_list_summary(job: dict[str, Any]) -> dict[str, Any]:
    return jsonable(
        {
            "tuning_job_name": job["HyperParameterTuningJobName"],
            "arn": job.get("HyperParameterTuningJobArn"),
            "status": job["HyperParameterTuningJobStatus"],
            "strategy": job.get("Strategy"),
            "training_jobs": job.get("TrainingJobStatusCounters") or {},
            "created": job.get("CreationTime"),
            "ended": job.get("HyperParameterTuningEndTime"),
        }
    )


def render_tuning_list(jobs: list[dict[str, Any]]) -> None:
    if not jobs:
        stdout.print("no tuning jobs match")
        return
    table = Table(box=None)
    for column in ("name", "status", "strategy", "training jobs", "created"):
        table.add_column(column, no_wrap=column != "training jobs")
    for job in jobs:
        created = (job["created"] or "")[:16].replace("T", " ")
        table.add_row(
            job["tuning_job_name"],
            status_text(job["status"]),
            str(job["strategy"]),
            _counts(job["training_jobs"]),
            created,
        )
    stdout.print(table)

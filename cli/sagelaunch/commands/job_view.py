"""How jobs look: the status view, the list table, log lines with a coloured host prefix, and
JSON-ready summaries (stable keys for CI)."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from sagelaunch import resource_config
from sagelaunch.output import host_style, stdout
from sagelaunch.statuses import STYLE

if TYPE_CHECKING:
    from sagelaunch.job_events import LogEvent, Transition

STATUS_STYLE = STYLE


def jsonable(value: Any) -> Any:
    """AWS responses carry datetimes; JSON gets ISO 8601 strings."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items() if k != "ResponseMetadata"}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    return value


def job_summary(
    job: dict[str, Any], console_url: str, plans: Mapping[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """`status --output json`: stable keys first, then the whole (redacted) description. The
    instances are those that ran (a preferences job: the service's selection); ``plans``: the
    training plans it ran on, described, for its cost."""
    from sagelaunch.plan.cost import job_cost
    from sagelaunch.redact import redact

    running = resource_config.running(job.get("ResourceConfig", {}))
    return jsonable(
        {
            "job_name": job["TrainingJobName"],
            "arn": job.get("TrainingJobArn"),
            "status": job["TrainingJobStatus"],
            "secondary_status": job.get("SecondaryStatus"),
            "failure_reason": job.get("FailureReason"),
            "instance_type": running[0],
            "instance_count": running[1],
            "created": job.get("CreationTime"),
            "started": job.get("TrainingStartTime"),
            "ended": job.get("TrainingEndTime"),
            "billable_seconds": job.get("BillableTimeInSeconds"),
            "cost": job_cost(job, plans),
            "model_artifacts": job.get("ModelArtifacts", {}).get("S3ModelArtifacts"),
            "console_url": console_url,
            "transitions": [
                {
                    "status": t.get("Status"),
                    "start": t.get("StartTime"),
                    "end": t.get("EndTime"),
                    "message": t.get("StatusMessage", ""),
                }
                for t in job.get("SecondaryStatusTransitions", [])
            ],
            "description": redact(job),
        }
    )


def list_summary(job: dict[str, Any]) -> dict[str, Any]:
    return jsonable(
        {
            "job_name": job["TrainingJobName"],
            "arn": job.get("TrainingJobArn"),
            "status": job["TrainingJobStatus"],
            "secondary_status": job.get("SecondaryStatus"),
            "created": job.get("CreationTime"),
            "ended": job.get("TrainingEndTime"),
        }
    )


def status_text(status: str) -> Text:
    return Text(status, style=STATUS_STYLE.get(status, ""))


def render_status(summary: dict[str, Any]) -> None:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row("job", summary["job_name"])
    grid.add_row(
        "status",
        Text.assemble(status_text(summary["status"]), f" · {summary['secondary_status'] or '-'}"),
    )
    if summary["failure_reason"]:
        grid.add_row("failure", Text(summary["failure_reason"], style="red"))
    grid.add_row("cluster", f"{summary['instance_count']} × {summary['instance_type']}")
    for key in ("created", "started", "ended"):
        if summary[key]:
            grid.add_row(key, _time(summary[key]))
    for key in ("billable_seconds", "model_artifacts"):
        if summary[key] is not None:
            grid.add_row(key.replace("_", " "), str(summary[key]))
    if summary["cost"]:
        grid.add_row("cost", cost_line(summary["cost"]))
    environment = summary["description"].get("Environment") or {}
    if environment:
        grid.add_row("environment", ", ".join(f"{k}={v}" for k, v in environment.items()))
    grid.add_row("console", summary["console_url"])
    stdout.print(grid)
    if summary["transitions"]:
        stdout.print(_transitions(summary["transitions"]))
    if summary.get("attempts"):
        _attempts(summary["attempts"], summary.get("chain_cost_usd"))


def _attempts(attempts: list[dict[str, Any]], total: float | None) -> None:
    """The failover chain the job belongs to: each attempt, and why it ended (lines, not a
    table: reasons are long, and CI logs are narrow)."""
    cost = "unknown" if total is None else f"${total:,.2f}"
    stdout.print(f"[bold]failover chain[/bold]  {len(attempts)} attempts, cost {cost}")
    for a in attempts:
        where = f"{a['cluster']}{' spot' if a['spot'] else ''}, {a['region']}"
        job = f"{a['job_name']} ({where})  {a['status']}" if a["job_name"] else "no job"
        price = "" if a["cost_usd"] is None else f"  ${a['cost_usd']:,.2f}"
        stdout.print(f"  attempt {a['number']}  {job}{price}", highlight=False)
        stdout.print(f"    {a['ended_because'] or 'running'}", highlight=False)


def cost_line(cost: dict[str, Any]) -> str:
    """ "$12.34 (1,180 billable s; spot saved $5.00) at us-east-1 prices of 2025-06-01", or for
    a job on a training plan its share of the plan's fee, not an on-demand price."""
    if cost.get("billed_as") == "training plan":
        return _plan_cost_line(cost)
    if cost["usd"] is None:
        return (
            f"{cost['billable_seconds']:,} billable s × unknown price ("
            + (cost.get("note") or f"no {cost['price_region']} price known")
            + ")"
        )
    saved = cost.get("spot_savings_usd")
    spot = f"; spot saved ${saved:,.2f}" if saved is not None else ""
    return (
        f"${cost['usd']:,.2f} ({cost['billable_seconds']:,} billable s{spot}) "
        f"at {cost['price_region']} prices of {cost['prices_as_of']}"
    )


def _plan_cost_line(cost: dict[str, Any]) -> str:
    """ "$1.16 (3,600 billable s; training plan p5-week: 14,400 of its 1,209,600
    instance-seconds (1.19%) of its upfront fee of 100.00 USD), a share of the plan paid up
    front, not on-demand prices"."""
    amount = "unknown" if cost["usd"] is None else f"${cost['usd']:,.2f}"
    figures = [
        f"{cost['billable_seconds']:,} billable s",
        cost.get("price_source"),
        cost.get("note"),
    ]
    return (
        f"{amount} ({'; '.join(f for f in figures if f)}), a share of the plan paid up front, "
        "not on-demand prices"
    )


def _transitions(transitions: list[dict[str, Any]]) -> Table:
    table = Table(title="transitions", title_justify="left", box=None)
    table.add_column("status", no_wrap=True)
    table.add_column("since", no_wrap=True)
    table.add_column("message", overflow="fold")
    for t in transitions:
        table.add_row(t["status"], _time(t["start"] or "")[11:], t["message"])
    return table


def render_list(jobs: list[dict[str, Any]]) -> None:
    if not jobs:
        stdout.print("no training jobs match")
        return
    table = Table(box=None)
    table.add_column("name", no_wrap=True)  # names are what people copy: never folded
    table.add_column("status", no_wrap=True)
    table.add_column("created", no_wrap=True)
    table.add_column("ended", no_wrap=True)
    for job in jobs:
        status = status_text(job["status"])
        if job["secondary_status"] and job["secondary_status"] != job["status"]:
            status.append(f" · {job['secondary_status']}")
        table.add_row(
            job["job_name"], status, _time(job["created"])[5:16], _time(job["ended"])[5:16]
        )
    stdout.print(table)


def _time(value: str | None) -> str:
    """ISO 8601 as ``YYYY-MM-DD HH:MM:SS`` (UTC, as AWS returns it)."""
    return value[:19].replace("T", " ") if value else ""


def transition_line(transition: Transition) -> Text:
    line = Text.assemble(status_text(transition.status), f" · {transition.secondary}")
    if transition.message:
        line.append(f" — {transition.message}", style="dim")
    return line


def print_events(events: list[LogEvent], as_json: bool = False) -> None:
    """Log lines with a coloured ``[algo-N]`` prefix; ``as_json``: one JSON object per line."""
    from sagelaunch.job_events import host_index

    for event in events:
        if as_json:
            sys.stdout.write(json.dumps(event.as_json()) + "\n")
            continue
        style = host_style(host_index(event.host) - 1)
        stdout.print(Text.assemble((f"[{event.host}]", style), " ", event.message))
    sys.stdout.flush()

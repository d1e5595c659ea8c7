"""How a queued job and a job queue look: the submitted job with its place, its status (the
service job, then its training job), the queue's jobs in start order, one line per change
while it waits."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from rich.table import Table

from sagelaunch.output import stdout

if TYPE_CHECKING:
    from sagelaunch.services.queue import Waiting


def _place(place: int | None) -> str:
    return f", place {place} in the queue" if place else ""


def render_submitted(result: dict[str, Any]) -> None:
    verb = "attached to queued job" if result["attached"] else "queued job"
    stdout.print(
        f"{verb} [bold]{result['job_name']}[/bold] ({result['status']}{_place(result['place'])})"
    )
    stdout.print(f"  queue    {result['queue']}", highlight=False)
    stdout.print(f"  service  {result['service_job_arn']}", highlight=False)
    if result["bundle_sha256"]:
        code = "uploaded" if result["uploaded"] else "already in S3"
        stdout.print(f"  code     {code} (sha256 {result['bundle_sha256'][:12]}…)")
    stdout.print(
        f"  follow   sagelaunch wait {result['job_name']} --queue {result['queue']}",
        highlight=False,
    )


def render_status(summary: dict[str, Any]) -> None:
    reason = f" · {summary['status_reason']}" if summary.get("status_reason") else ""
    stdout.print(
        f"[bold]{summary['job_name']}[/bold]  {summary['status']}{_place(summary['place'])}"
        f"{reason}",
        highlight=False,
    )
    stdout.print(f"  queue     {summary['queue']}", highlight=False)
    share = f", share {summary['share']}" if summary.get("share") else ""
    stdout.print(f"  priority  {summary['priority']}{share}", highlight=False)
    stdout.print(f"  attempts  {summary['attempts']}", highlight=False)
    if summary.get("training_job"):
        stdout.print(
            f"  training  {summary['training_job']}  {summary['training_status']} · "
            f"{summary['secondary_status']}",
            highlight=False,
        )
        stdout.print(f"  console   {summary['console_url']}", highlight=False)


def render_queue(listing: dict[str, Any]) -> None:
    policy = "fair share" if listing["fair_share"] else "first in, first out by priority"
    stdout.print(
        f"[bold]{listing['queue']}[/bold]  {listing['state']} · queue priority "
        f"{listing['priority']} · {policy}",
        highlight=False,
    )
    table = Table(
        "place",
        "job",
        "status",
        "priority",
        "share",
        "instances",
        "created",
        "training job / reason",
    )
    for job in listing["jobs"]:
        table.add_row(
            str(job.get("place") or ""),
            job["job_name"],
            job["status"],
            str(job["priority"]),
            job.get("share") or "",
            str(job["instances"] or ""),
            _time(job.get("created_at")),
            job.get("training_job") or job.get("status_reason") or "",
        )
    stdout.print(table)
    if not listing["jobs"]:
        stdout.print("no jobs in this queue")
    elif listing["fair_share"] and any(job.get("place") for job in listing["jobs"]):
        stdout.print(FAIR_SHARE_PLACES, highlight=False)


# in_start_order's caveat, said where a user reads the places.
FAIR_SHARE_PLACES = (
    "place: priority, then submit order; a fair-share queue also takes turns between shares "
    "(by their weights and use), so its jobs may start in another order"
)


def _time(millis: int | None) -> str:
    if not millis:
        return ""
    return datetime.fromtimestamp(millis / 1000, tz=timezone.utc).strftime("%Y-%m-%d %H:%M")


def waiting_line(now: Waiting) -> str:
    reason = f" · {now.reason}" if now.reason else ""
    return f"queue  {now.status}{_place(now.place)}{reason}"

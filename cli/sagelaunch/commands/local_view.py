"""How a local run looks to `status --local` and `list --local`: its record (status, each host's
exit code and failure, its folder), and the runs under .sagelaunch/runs, newest first."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from rich.table import Table
from rich.text import Text

from sagelaunch.commands.job_view import status_text
from sagelaunch.output import stdout


def render_status(run: dict[str, Any]) -> None:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row("run", run["job_name"])
    grid.add_row("status", Text.assemble(status_text(run["status"]), f" · {run['launcher']}"))
    if run["failure_reason"]:
        grid.add_row("failure", Text(run["failure_reason"], style="red"))
    grid.add_row("started", _time(run["started_at"]))
    if run["ended_at"]:
        grid.add_row("ended", _time(run["ended_at"]))
    for host in run["hosts"]:
        code = host["exit_code"]
        state = "running" if code is None else f"exit {code}"
        failure = f" · {host['failure']}" if host.get("failure") else ""
        grid.add_row(host["host"], f"{state}{failure}")
    grid.add_row("folder", run["workdir"])
    stdout.print(grid)


def render_runs(runs: list[dict[str, Any]]) -> None:
    if not runs:
        stdout.print("no local runs match")
        return
    table = Table(box=None)
    table.add_column("name", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("hosts", no_wrap=True)
    table.add_column("started", no_wrap=True)
    table.add_column("folder", no_wrap=True)
    for run in runs:
        table.add_row(
            run["job_name"],
            status_text(run["status"]),
            str(len(run["hosts"])),
            _time(run["started_at"])[5:16],
            run["workdir"],
        )
    stdout.print(table)


def _time(seconds: float | None) -> str:
    if not seconds:
        return ""
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")

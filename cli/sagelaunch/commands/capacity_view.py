"""How training plans look: offerings (what a plan would buy), plans, one plan with its reserved
capacity and extensions, and extension offerings. Times in UTC, minutes."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from sagelaunch.output import stdout


def render_offerings(rows: list[dict[str, Any]]) -> None:
    table = Table(box=None)
    for column in ("offering", "instances", "start", "end", "hours", "upfront fee", "zone"):
        table.add_column(column, no_wrap=True)  # ids are what people copy: never folded
    for row in rows:
        table.add_row(
            row["offering_id"],
            _instances(row),
            _time(row["start"]),
            _time(row["end"]),
            str(row["duration_hours"] or ""),
            _fee(row),
            row["availability_zone"] or "",
        )
    stdout.print(table)
    stdout.print(
        "reserve one (it charges the upfront fee): sagelaunch capacity reserve OFFERING "
        "--name NAME --yes",
        highlight=False,
    )


def render_plans(rows: list[dict[str, Any]]) -> None:
    if not rows:
        stdout.print("no training plans in this account and region")
        return
    table = Table(box=None)
    for column in ("name", "status", "instances", "in use", "start", "end", "upfront fee"):
        table.add_column(column, no_wrap=True)
    for row in rows:
        table.add_row(
            row["name"],
            row["status"],
            _instances(row),
            str(row["in_use_instances"] if row["in_use_instances"] is not None else ""),
            _time(row["start"]),
            _time(row["end"]),
            _fee(row),
        )
    stdout.print(table)


def render_reserved(plan: dict[str, Any]) -> None:
    verb = "reserved" if plan["created"] else "already reserved"
    stdout.print(f"{verb} training plan [bold]{plan['name']}[/bold] ({plan['status']})")
    _plan_lines(plan)


def render_plan(plan: dict[str, Any]) -> None:
    stdout.print(f"[bold]{plan['name']}[/bold]  {plan['status']}")
    _plan_lines(plan)
    for extension in plan.get("extensions", []):
        stdout.print(
            f"  extended  +{extension['duration_hours']} h to {_time(extension['end'])} "
            f"({extension.get('status') or ''}, {_fee(extension)})",
            highlight=False,
        )


def render_extended(plan: dict[str, Any]) -> None:
    stdout.print(f"extended training plan [bold]{plan['name']}[/bold] to {_time(plan['end'])}")
    _plan_lines(plan)


def render_extension_offerings(rows: list[dict[str, Any]]) -> None:
    table = Table(box=None)
    for column in ("offering", "start", "end", "hours", "upfront fee", "zone"):
        table.add_column(column, no_wrap=True)
    for row in rows:
        table.add_row(
            row["offering_id"],
            _time(row["start"]),
            _time(row["end"]),
            str(row["duration_hours"] or ""),
            _fee(row),
            row["availability_zone"] or "",
        )
    stdout.print(table)
    stdout.print(
        "extend by one (it charges the upfront fee): sagelaunch capacity extend PLAN "
        "--offering OFFERING --yes",
        highlight=False,
    )


def _plan_lines(plan: dict[str, Any]) -> None:
    available = plan.get("available_instances")
    free = f", {available} available" if available is not None else ""
    stdout.print(f"  arn        {plan['arn']}", highlight=False)
    stdout.print(f"  instances  {_instances(plan)}{free}", highlight=False)
    stdout.print(
        f"  window     {_time(plan['start'])} to {_time(plan['end'])} UTC "
        f"({plan['duration_hours']} h)",
        highlight=False,
    )
    stdout.print(f"  fee        {_fee(plan)}", highlight=False)
    stdout.print(
        f"  run on it  compute.training_plan: {plan['arn']}  (target: "
        f"{', '.join(plan['target_resources'])})",
        highlight=False,
    )


def _instances(row: dict[str, Any]) -> str:
    return f"{row['instance_count']} × {row['instance_type']}"


def _fee(row: dict[str, Any]) -> str:
    return f"{row['upfront_fee']} {row['currency']}" if row.get("upfront_fee") else ""


def _time(iso: str | None) -> str:
    """``2030-01-06T12:00:00Z`` as ``2030-01-06 12:00``."""
    return iso[:16].replace("T", " ") if iso else ""

"""`capacity`: SageMaker training plans (reserved capacity) for a config's instances: `search`
offerings, `reserve` one, `list` and `describe` plans, `extend` one.

Buying (`reserve`, `extend`) charges an upfront fee at once: without --yes each says what it
would spend and exits 2. What they do with AWS is services.capacity's.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated

import typer

from sagelaunch.errors import UsageError
from sagelaunch.help_format import TidyCommand, TidyGroup
from sagelaunch.output import OutputFormat, OutputOption, RegionOption, SetOption, show

SUBCOMMANDS = typer.Typer(
    cls=TidyGroup, add_completion=False, rich_markup_mode="rich", no_args_is_help=True
)

YesFlag = Annotated[
    bool, typer.Option("--yes", help="Buy it: the upfront fee is charged at once, not refunded.")
]


@SUBCOMMANDS.callback()
def capacity() -> None:
    """Reserve GPU capacity as SageMaker training plans: search offerings, reserve, list, extend.

    A plan's ARN goes in a config's compute.training_plan (or an instance preference's
    training_plans); the job then runs on the plan's instances during its window."""


@SUBCOMMANDS.command("search", cls=TidyCommand)
def search(
    ctx: typer.Context,
    config: Annotated[Path, typer.Argument(help="Launch config (YAML): its compute instances.")],
    overrides: SetOption = None,
    duration: Annotated[
        str | None,
        typer.Option("--duration", help="How long the plan runs: hours, or e.g. 24h, 7d."),
    ] = None,
    start_after: Annotated[
        str | None,
        typer.Option("--start-after", help="Only plans starting after this time (ISO 8601, UTC)."),
    ] = None,
    end_before: Annotated[
        str | None,
        typer.Option("--end-before", help="Only plans ending before this time (ISO 8601, UTC)."),
    ] = None,
    output: OutputOption = OutputFormat.table,
    region: RegionOption = None,
) -> None:
    """List training-plan offerings for the config's compute.instance_type × instance_count.

    Each offering: its id, instances, window (UTC), duration, upfront fee and availability
    zone; --output json lists offering_id, instance_type, instance_count, start, end,
    duration_hours, upfront_fee, currency, availability_zone, target_resources (and ultraserver
    where it is one). None offered: exit 3."""
    from sagelaunch.commands.capacity_view import render_offerings
    from sagelaunch.services.capacity import Window, search

    window = Window(
        _hours(duration), _time("--start-after", start_after), _time("--end-before", end_before)
    )
    show(search(ctx.obj, config, overrides, region, window), output, render_offerings)


@SUBCOMMANDS.command("reserve", cls=TidyCommand)
def reserve(
    ctx: typer.Context,
    offering: Annotated[str, typer.Argument(help="Offering id, from `capacity search`.")],
    name: Annotated[str, typer.Option("--name", help="The training plan's name (unique).")],
    yes: YesFlag = False,
    output: OutputOption = OutputFormat.table,
    region: RegionOption = None,
) -> None:
    """Buy a training plan from an offering (CreateTrainingPlan); a rerun reports the plan.

    Without --yes it says the fee and exits 2. A plan already of that name is reported, not
    bought again (exit 0; "created": false in --output json, which has the keys of `capacity
    list`'s plans)."""
    from sagelaunch.commands.capacity_view import render_reserved
    from sagelaunch.services.capacity import reserve as reserve_plan

    show(reserve_plan(ctx.obj, region, offering, name, yes), output, render_reserved)


@SUBCOMMANDS.command("list", cls=TidyCommand)
def list_plans(
    ctx: typer.Context, output: OutputOption = OutputFormat.table, region: RegionOption = None
) -> None:
    """List the account's training plans: status, instances, window, fee.

    --output json: name, arn, status, instance_type, instance_count, available_instances,
    in_use_instances, start, end, duration_hours, upfront_fee, currency, availability_zone,
    target_resources."""
    from sagelaunch.commands.capacity_view import render_plans
    from sagelaunch.services.capacity import plans

    show(plans(ctx.obj, region), output, render_plans)


@SUBCOMMANDS.command("describe", cls=TidyCommand)
def describe(
    ctx: typer.Context,
    plan: Annotated[str, typer.Argument(help="Training plan name or ARN.")],
    output: OutputOption = OutputFormat.table,
    region: RegionOption = None,
) -> None:
    """Show one training plan: window, instances, fee, reserved capacity and extensions.

    --output json: `capacity list`'s keys, reserved_capacity and extensions. No such plan:
    exit 3."""
    from sagelaunch.commands.capacity_view import render_plan
    from sagelaunch.services.capacity import describe as describe_plan

    show(describe_plan(ctx.obj, region, plan), output, render_plan)


@SUBCOMMANDS.command("extend", cls=TidyCommand)
def extend(
    ctx: typer.Context,
    plan: Annotated[str, typer.Argument(help="Training plan name or ARN.")],
    offering: Annotated[
        str | None,
        typer.Option("--offering", help="Extension offering id (without: list them)."),
    ] = None,
    yes: YesFlag = False,
    output: OutputOption = OutputFormat.table,
    region: RegionOption = None,
) -> None:
    """Extend a training plan past its end: list its extension offerings, or buy one.

    Without --offering, the offerings (id, window, hours, fee); with it and --yes,
    ExtendTrainingPlan (without --yes: the fee, exit 2)."""
    from sagelaunch.commands import capacity_view
    from sagelaunch.services.capacity import extend as extend_plan
    from sagelaunch.services.capacity import extension_offerings

    if offering is None:
        rows = extension_offerings(ctx.obj, region, plan)
        show(rows, output, capacity_view.render_extension_offerings)
        return
    show(extend_plan(ctx.obj, region, plan, offering, yes), output, capacity_view.render_extended)


def _hours(duration: str | None) -> int | None:
    """--duration in whole hours (training plans are sold by the hour)."""
    if duration is None:
        return None
    from sagelaunch.config.model import parse_duration

    text = duration.strip().lower()
    try:
        seconds = int(text) * 3600 if text.isdigit() else int(parse_duration(text))  # type: ignore[call-overload]
    except ValueError as exc:
        raise UsageError(f"--duration: {exc}") from None
    if seconds <= 0 or seconds % 3600:
        raise UsageError(f"--duration: {duration!r} is not a whole number of hours (e.g. 24h, 7d)")
    return seconds // 3600


def _time(flag: str, value: str | None) -> datetime | None:
    """An ISO 8601 time (a date alone is its midnight; no zone: UTC)."""
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise UsageError(
            f"{flag}: {value!r} is not an ISO 8601 time",
            hint="e.g. 2030-01-06 or 2030-01-06T12:00Z",
        ) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)

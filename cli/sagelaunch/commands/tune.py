"""`sagelaunch tune CONFIG`: options and rendering; the work is `services.tune`."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sagelaunch.commands.follow import TimeoutOption, shown, timeout_seconds
from sagelaunch.output import (
    IdempotencyKeyOption,
    OutputFormat,
    OutputOption,
    RegionOption,
    SetOption,
    print_json,
    stderr,
    stdout,
)

if TYPE_CHECKING:
    from sagelaunch.services.tune import TuningSubmission


def tune(
    ctx: typer.Context,
    config: Annotated[Path, typer.Argument(help="Launch config (YAML) with a tuning: block.")],
    overrides: SetOption = None,
    idempotency_key: IdempotencyKeyOption = None,
    wait: Annotated[
        bool, typer.Option("--wait", help="Wait for the tuning job to end (exit 0/1/4/5).")
    ] = False,
    timeout: TimeoutOption = None,
    region: RegionOption = None,
    output: OutputOption = OutputFormat.table,
) -> None:
    """Create the config's tuning: block as a SageMaker tuning job (the SDK tuner's request)."""
    timeout_s = timeout_seconds(timeout)
    from sagelaunch.services.clients import given
    from sagelaunch.services.follow import TUNING, conclude, follow
    from sagelaunch.services.tune import deliver

    result, aws = deliver(
        config,
        overrides,
        idempotency_key,
        region,
        given(ctx.obj),
        progress=lambda: stderr.status("building the request with the SageMaker SDK (offline)…"),
    )
    end = None
    if wait:
        name = result.tuning_job_name
        if output is OutputFormat.table:
            verb = "attached to" if result.attached else "created"
            stderr.print(f"{verb} tuning job [bold]{name}[/bold]; waiting…")
        with shown(f"tuning job {name}") as observer:
            end = follow(aws, name, timeout_s, observer, kind=TUNING)
        result.status = end.status
    _report(result, output)
    if end is not None:
        conclude(end, timeout_s)


def _report(result: TuningSubmission, output: OutputFormat) -> None:
    if output is OutputFormat.json:
        print_json(asdict(result))
        return
    verb = "attached to existing tuning job" if result.attached else "created tuning job"
    code = ("uploaded" if result.uploaded else "already in S3") if result.bundle_sha256 else "none"
    stdout.print(f"{verb} [bold]{result.tuning_job_name}[/bold] ({result.status})")
    stdout.print(f"  arn      {result.arn}", highlight=False)
    stdout.print(f"  code     {code}")
    stdout.print(f"  console  {result.console_url}", highlight=False)

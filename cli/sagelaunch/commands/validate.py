"""`sagelaunch validate PATH...`: load and check configs without touching AWS."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sagelaunch.errors import ExitCode, UsageError
from sagelaunch.output import OutputFormat, OutputOption, SetOption, print_json

if TYPE_CHECKING:
    from sagelaunch.checks.validation import Report
    from sagelaunch.services.validate_cache import Answer


def validate(
    paths: Annotated[
        list[Path], typer.Argument(help="Launch config files, or folders of *.yaml / *.yml files.")
    ],
    overrides: SetOption = None,
    output: OutputOption = OutputFormat.table,
    strict: Annotated[
        bool, typer.Option("--strict", help="Treat warnings as errors (exit 2), e.g. in CI.")
    ] = False,
) -> None:
    """Load and check launch configs (schema and compatibility rules); no AWS calls."""
    from sagelaunch.config.paths import config_files
    from sagelaunch.services import validate_cache

    files = config_files(paths)
    if not files:
        raise UsageError(f"no *.yaml or *.yml configs in {', '.join(map(str, paths))}")
    key = validate_cache.key(files, overrides, output.value)
    answer = validate_cache.lookup(key)
    if answer is None:
        answer = _validate(files, overrides, output, key)
    elif output is OutputFormat.json:
        print_json(answer.reports)
    else:
        answer.replay()
    if not answer.ok:
        raise typer.Exit(ExitCode.INVALID)
    if strict and answer.warned:
        from sagelaunch.output import stderr

        stderr.print("[red]error:[/red] warnings with --strict")
        raise typer.Exit(ExitCode.INVALID)


def _validate(
    files: list[Path], overrides: list[str] | None, output: OutputFormat, key: str
) -> Answer:
    """Validate for real (pydantic, the rules, the SDK's data), show it and cache the answer."""
    from sagelaunch.checks.validation import validate_file
    from sagelaunch.services import validate_cache

    reports = [validate_file(path, overrides, plan_settings=True) for path in files]
    table = output is OutputFormat.table
    with validate_cache.recording(table) as rendered:
        if table:
            _print_table(reports)
        else:
            print_json([report.as_json() for report in reports])
    validate_cache.store(key, reports, rendered)
    return validate_cache.Answer([report.as_json() for report in reports], rendered)


def _print_table(reports: list[Report]) -> None:
    from rich.markup import escape
    from rich.table import Table

    from sagelaunch.errors import counted
    from sagelaunch.output import stderr, stdout

    table = Table(box=None, show_header=True, header_style="bold")
    table.add_column("config", no_wrap=True)
    table.add_column("result", no_wrap=True)
    table.add_column("job", no_wrap=True)
    for report in reports:
        job = ""
        if report.loaded:
            cfg = report.loaded.config
            job = f"{cfg.framework}/{cfg.distribution.strategy} "
            job += f"{cfg.compute.instance_count}×{cfg.compute.instance_type}"
        errors = counted(report.errors)
        result = "[green]ok[/green]" if report.ok else f"[red]{errors:,} error(s)[/red]"
        if report.warnings:
            result += f" [yellow]{len(report.warnings)} warning(s)[/yellow]"
        table.add_row(str(report.file), result, job)
    stdout.print(table)
    for report in reports:  # a sweep's size, counted from its block (nothing expanded)
        if report.loaded and (sweep := report.loaded.config.sweep) is not None:
            stdout.print(
                f"{escape(str(report.file))}: sweep of {sweep.size_text()}, at most "
                f"{sweep.max_trials:,} (sweep.max_trials)",
                highlight=False,
            )
    for report in reports:
        for problem in report.errors:
            stderr.print(f"[red]error:[/red] {escape(str(problem))}", highlight=False)
        for problem in report.warnings:
            stderr.print(f"[yellow]warning:[/yellow] {escape(str(problem))}", highlight=False)
    bad = sum(not r.ok for r in reports)
    summary = f"{len(reports) - bad} valid, {bad} invalid"
    stdout.print(f"[bold]{summary}[/bold]")

"""`sagelaunch local CONFIG`: run the job on this machine as the SageMaker container would."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sagelaunch.output import (
    OutputFormat,
    OutputOption,
    SetOption,
    host_style,
    print_json,
    stderr,
    stdout,
)

if TYPE_CHECKING:
    from sagelaunch.local.job import Result


def local(
    config: Annotated[Path, typer.Argument(help="Launch config (YAML).")],
    overrides: SetOption = None,
    hosts: Annotated[
        int | None,
        typer.Option("--hosts", min=1, max=16, help="Emulated hosts (default: local.hosts)."),
    ] = None,
    procs_per_host: Annotated[
        int | None,
        typer.Option(
            "--procs-per-host",
            min=1,
            help="Processes per host (default: local.processes_per_host).",
        ),
    ] = None,
    workdir: Annotated[
        Path | None,
        typer.Option("--workdir", help="Run folder (default: .sagelaunch/runs/JOB_NAME)."),
    ] = None,
    keep: Annotated[
        bool, typer.Option("--keep", help="Keep the hosts' trees after a successful run.")
    ] = False,
    docker: Annotated[
        bool, typer.Option("--docker", help="Use the SageMaker SDK's local mode (Docker Compose).")
    ] = False,
    timeout: Annotated[
        str | None,
        typer.Option(
            "--timeout",
            help="Stop the run after this long, e.g. 600, 10m, 2h (default: compute.max_run); "
            "a run stopped so exits 4.",
        ),
    ] = None,
    output: OutputOption = OutputFormat.table,
) -> None:
    """Run the job on this machine as the SageMaker container would.

    One /opt/ml-like tree per emulated host, the container's SM_* environment and launcher, logs
    prefixed with the host name, model.tar.gz at the end. On Linux each host's processes run in a
    sandbox (local.sandbox: auto) where /opt/ml is that host's tree and nothing outside the run
    folder can be written; the header and the summary say which mode ran (namespace or off)."""
    from sagelaunch.cli_params import folder_option
    from sagelaunch.services import local_run

    folder_option(workdir, "--workdir")
    if docker:
        local_run.run_in_docker(config, overrides, hosts, workdir)
        return
    from sagelaunch.local.options import Options

    display = local_run.Display(
        printer=_printer(),
        say=_say,
        progress=lambda: stderr.status("planning the request with the SageMaker SDK (offline)…"),
    )
    options = Options(hosts, procs_per_host, workdir, keep, timeout_s=_seconds(timeout))
    result = local_run.run(config, overrides, options, display)
    if output is OutputFormat.json:
        print_json(result.as_json())
    else:
        _summary(result)
    if result.failed:
        _report_failure(result)


def _seconds(timeout: str | None) -> int | None:
    """--timeout as seconds, read as the config reads a duration."""
    if timeout is None:
        return None
    from sagelaunch.config.model import parse_duration
    from sagelaunch.errors import UsageError

    try:
        seconds = parse_duration(timeout)
    except ValueError as error:
        raise UsageError(f"--timeout: {error}", hint="e.g. --timeout 600 or 10m") from None
    assert isinstance(seconds, int)
    if seconds < 1:
        raise UsageError("--timeout must be at least 1 second", hint="e.g. --timeout 10m")
    return seconds


def _printer() -> Any:
    from rich.text import Text

    lock = threading.Lock()
    styles: dict[str, str] = {}

    def print_line(host: str, line: str) -> None:
        style = styles.setdefault(host, host_style(len(styles)))
        with lock:
            stderr.print(Text.assemble((f"[{host}] ", style), line), highlight=False)

    return print_line


def _say(message: str) -> None:
    stderr.print(message, highlight=False)


def _summary(result: Result) -> None:
    from rich.table import Table

    table = Table(box=None, header_style="bold", title=f"local run {result.job_name}")
    for column in ("host", "exit", "duration", "last metrics"):
        table.add_column(column, no_wrap=column != "last metrics")
    for host in result.hosts:
        table.add_row(host.host, _exit_text(host), f"{host.duration_s:.1f}s", host.last_metrics)
    stdout.print(table)
    for label, path in (("model", result.model_artifact), ("output", result.output_artifact)):
        if path:
            stdout.print(f"{label}: {path}", highlight=False)
    stdout.print(f"sandbox: {result.sandbox}", highlight=False)


def _exit_text(host: Any) -> str:
    if host.exit_code is None:
        return "[dim]waited[/dim]"
    if host.stopped:
        return f"[yellow]stopped ({host.exit_code})[/yellow]"
    return "[green]0[/green]" if host.exit_code == 0 else f"[red]{host.exit_code}[/red]"


def _report_failure(result: Result) -> None:
    from sagelaunch.errors import JobFailed

    failed = result.failed[0]
    log = result.workdir / "logs" / f"{failed.host}.log"
    stderr.print(f"\n[red bold]{failed.host} failed[/red bold] (exit {failed.exit_code})")
    if failed.failure:
        stderr.print(f"[bold]failure reason:[/bold] {failed.failure}", highlight=False)
    stderr.print(f"[dim]last lines of {log}:[/dim]")
    for line in failed.tail:
        stderr.print(f"  {line}", markup=False, highlight=False)
    reason = (failed.failure or "see its log").splitlines()[0]
    kept = f"the hosts' trees are kept in {result.workdir}"
    raise JobFailed(
        f"local run failed on {failed.host} (exit {failed.exit_code}): {reason}",
        hint=f"{result.advice}; {kept}" if result.advice else kept,
    )

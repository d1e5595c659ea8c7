"""`sagelaunch local CONFIG`: run the job on this machine as the SageMaker container would."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sagelaunch.output import OutputFormat, OutputOption, SetOption, print_json, stderr, stdout

if TYPE_CHECKING:
    from sagelaunch.local.job import Prepared, Result

HOST_STYLES = ("cyan", "magenta", "green", "yellow", "blue", "red")


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
    output: OutputOption = OutputFormat.table,
) -> None:
    """Run the job here: one /opt/ml-like tree per emulated host, the container's SM_* environment
    and launcher, logs prefixed with the host name, model.tar.gz at the end."""
    if docker:
        _run_in_docker(config, overrides, hosts, workdir)
        return
    from sagelaunch.config.validation import load_valid
    from sagelaunch.local import job

    loaded, warnings = load_valid(config, overrides)
    options = job.Options(hosts, procs_per_host, workdir, keep)
    prepared = job.prepare(loaded, options)
    with job.warm_start(prepared) as agents:
        plan, code = _plan(prepared, warnings)
        for warning in plan["warnings"]:
            stderr.print(f"[yellow]warning:[/yellow] {warning}", highlight=False)
        result = job.run(prepared, plan, code, options, _printer(), _say, agents)
    if output is OutputFormat.json:
        print_json(result.as_json())
    else:
        _summary(result)
    if result.failed:
        _report_failure(result)


def _run_in_docker(
    config: Path, overrides: list[str] | None, hosts: int | None, workdir: Path | None
) -> None:
    """--docker: the SDK's own local mode, with the same estimator `plan` would build."""
    from sagelaunch.config.validation import load_valid
    from sagelaunch.local import docker as docker_mode
    from sagelaunch.local.variant import local_variant

    docker_mode.require()
    loaded, _ = load_valid(config, overrides)
    placeholders = local_variant(loaded).config  # role and region a laptop may not have
    from sagelaunch.sdk import local_mode

    compute = loaded.config.compute
    spec = local_mode.local_mode_spec(
        loaded,
        role=str(placeholders.role),
        region=str(placeholders.region),
        hosts=hosts or loaded.config.local.hosts or min(compute.instance_count, 2),
        output_dir=workdir or Path(".sagelaunch") / "docker" / loaded.config.name,
    )
    local_mode.run(spec, str(placeholders.region))


def _plan(prepared: Prepared, warnings: list[Any]) -> tuple[dict[str, Any], bytes | None]:
    """The request SageMaker would get for the local variant of the config (offline)."""
    from sagelaunch import bundle, naming
    from sagelaunch.local import plan_cache

    planned = prepared.planned
    code = bundle.build(planned.source_dir)
    job_name = naming.timestamped(planned.config.name)
    key = plan_cache.cache_key(planned)
    cached = plan_cache.load(plan_cache.CACHE_DIR, key)
    if cached is not None:
        return plan_cache.retarget(cached, job_name, code, [str(w) for w in warnings]), code.data
    with stderr.status("planning the request with the SageMaker SDK (offline)…"):
        from sagelaunch.sdk.plan import build_plan

        plan = build_plan(
            planned,
            job_name=job_name,
            region=str(planned.config.region),
            role=str(planned.config.role),
            bundle=code,
            warnings=warnings,
        )
    plan_cache.store(plan_cache.CACHE_DIR, key, plan)
    return plan, code.data


def _printer() -> Any:
    from rich.text import Text

    lock = threading.Lock()
    styles: dict[str, str] = {}

    def print_line(host: str, line: str) -> None:
        style = styles.setdefault(host, HOST_STYLES[len(styles) % len(HOST_STYLES)])
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
    raise JobFailed(
        f"local run failed on {failed.host} (exit {failed.exit_code}): {reason}",
        hint=f"the hosts' trees are kept in {result.workdir}",
    )

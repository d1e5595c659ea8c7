"""The job lifecycle: `status`, `wait`, `logs`, `stop` and `list`.

Each command asks the backend its flags name (services.backends: a training job, `--queue`'s
job queue, `--local`'s runs) and renders a table, or stable JSON with `--output json` for CI.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sagelaunch.commands.follow import (
    TimeoutOption,
    followed,
    report_cost,
    timeout_seconds,
    wait_summary,
)
from sagelaunch.output import (
    OutputFormat,
    OutputOption,
    QueueOption,
    RegionOption,
    print_json,
    show,
    stderr,
    stdout,
)
from sagelaunch.statuses import JobStatus

if TYPE_CHECKING:
    from collections.abc import Callable

    from sagelaunch.services.backends.base import Described
    from sagelaunch.services.follow import Ending

JobArgument = Annotated[str, typer.Argument(help="Training job (or tuning job) name.")]


LocalFlag = Annotated[
    bool,
    typer.Option(
        "--local",
        help="A run of `sagelaunch local` (its job name or folder) instead of a SageMaker job.",
    ),
]


def status(
    ctx: typer.Context,
    job: JobArgument,
    queue: QueueOption = None,
    local: LocalFlag = False,
    output: OutputOption = OutputFormat.table,
    region: RegionOption = None,
) -> None:
    """Show a job: status, secondary status, failure reason, timings, transitions.

    A job of a failover chain (compute.fallback) also shows every attempt of its chain, why each
    ended, and what the chain cost. With --queue, the queued job: its state in the queue (with
    its place while it waits), then its training job. With --local, a local run: its status,
    each host's exit code, its folder."""
    from sagelaunch.services.backends import backend_for

    found = backend_for(ctx.obj, region, queue, local).describe(job)
    summary, render = _status_view(found)
    show(summary, output, render)


def _status_view(found: Described) -> tuple[dict[str, Any], Callable[[Any], None]]:
    """`status`'s summary of a described job, and how it is drawn, by the kind of job."""
    if found.kind == "queued":
        from sagelaunch.commands.queue_view import render_status as render_queued

        return found.description, render_queued
    if found.kind == "local":
        from sagelaunch.commands.local_view import render_status as render_local

        return found.description, render_local
    if found.kind == "tuning":
        from sagelaunch.commands.tuning_view import render_tuning, tuning_summary

        return tuning_summary(found.description, str(found.console_url)), render_tuning
    from sagelaunch.commands.job_view import job_summary, render_status
    from sagelaunch.services.attempts import chain_cost

    summary = job_summary(found.description, str(found.console_url), found.plans)
    if found.chain is not None:
        attempts = [asdict(a) for a in found.chain]
        summary |= {"attempts": attempts, "chain_cost_usd": chain_cost(found.chain)}
    return summary, render_status


def wait(
    ctx: typer.Context,
    job: JobArgument,
    timeout: TimeoutOption = None,
    logs: Annotated[
        bool, typer.Option("--logs", help="Stream the job's logs while waiting.")
    ] = False,
    queue: QueueOption = None,
    local: LocalFlag = False,
    output: OutputOption = OutputFormat.table,
    region: RegionOption = None,
) -> None:
    """Wait for a job to end. Exit 0 Completed, 1 Failed, 4 Stopped, 5 timed out.

    With --queue, a queued job: its wait in the queue, then its training job. With --local, a
    local run (started in another terminal)."""
    from sagelaunch.services.backends import backend_for
    from sagelaunch.services.follow import TUNING, conclude

    timeout_s = timeout_seconds(timeout)
    backend = backend_for(ctx.obj, region, queue, local)
    end = followed(backend, job, timeout_s, logs)
    if output is OutputFormat.json:
        print_json(_tuning_wait_summary(end) if end.kind is TUNING else wait_summary(end))
    elif end.kind is not TUNING:
        report_cost(end)
    conclude(end, timeout_s)


def logs(
    ctx: typer.Context,
    job: JobArgument,
    follow_: Annotated[
        bool, typer.Option("--follow", "-f", help="Keep streaming until the job ends.")
    ] = False,
    host: Annotated[
        str | None, typer.Option("--host", help="Only this host's stream, e.g. algo-2.")
    ] = None,
    output: Annotated[
        OutputFormat,
        typer.Option("--output", "-o", help="table: [algo-N] lines; json: one object per line."),
    ] = OutputFormat.table,
    queue: QueueOption = None,
    local: LocalFlag = False,
    region: RegionOption = None,
) -> None:
    """Print a job's logs: every host, interleaved in time order, each line prefixed algo-N.

    With --queue, a queued job's: its training job's logs once one started; with --follow, the
    wait in the queue (on stderr), then the logs to the end. With --local, a local run's hosts'
    logs (host by host)."""
    from sagelaunch.commands.job_view import print_events
    from sagelaunch.services.backends import backend_for
    from sagelaunch.services.backends.base import NotStarted

    as_json = output is OutputFormat.json
    backend = backend_for(ctx.obj, region, queue, local)
    if follow_:
        followed(backend, job, None, with_logs=True, as_json=as_json, host=host)
        return
    try:
        events = backend.logs(job, host)
    except NotStarted as waiting:
        stderr.print(waiting.message, highlight=False)
        stderr.print(waiting.hint, highlight=False)
        raise typer.Exit(0) from None
    print_events(events, as_json=as_json)
    if not events:
        stderr.print(f"no log events for {job}{' on ' + host if host else ''} (yet)")


def stop(
    ctx: typer.Context,
    job: JobArgument,
    queue: QueueOption = None,
    local: LocalFlag = False,
    output: OutputOption = OutputFormat.table,
    region: RegionOption = None,
) -> None:
    """Ask SageMaker to stop a job (it goes Stopping, then Stopped).

    With --queue, end the queued job (TerminateServiceJob): it leaves the queue, or its
    training job is stopped. With --local, stop a local run as Ctrl-C stops it."""
    from sagelaunch.services.backends import backend_for

    backend = backend_for(ctx.obj, region, queue, local)
    stopped = backend.stop(job)
    show(stopped, output, lambda _: stdout.print(_stop_line(stopped, queue)))


def _stop_line(stopped: dict[str, Any], queue: str | None) -> str:
    job, kind = stopped["job_name"], stopped["kind"]
    if kind == "queued":
        return (
            f"ending queued job {job} (was {stopped['status']}); "
            f"see it with: sagelaunch status {job} --queue {queue}"
        )
    if kind == "local":
        if stopped["status"] != JobStatus.Stopping:
            return f"local run {job} is not running ({stopped['status']})"
        return f"stopping local run {job}; follow it with: sagelaunch wait {job} --local"
    return f"stopping {kind} job {job}; follow it with: sagelaunch wait {job}"


def list_jobs(
    ctx: typer.Context,
    status_: Annotated[
        JobStatus | None, typer.Option("--status", help="Only jobs with this status.")
    ] = None,
    name_contains: Annotated[
        str | None, typer.Option("--name-contains", help="Only jobs whose name contains this.")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="At most this many jobs.")] = 20,
    tuning: Annotated[
        bool, typer.Option("--tuning", help="List hyperparameter tuning jobs instead.")
    ] = False,
    queue: Annotated[
        str | None,
        typer.Option(
            "--queue",
            help="Show this AWS Batch job queue instead: its jobs with their place, priority, "
            "share and state.",
        ),
    ] = None,
    local: Annotated[
        bool, typer.Option("--local", help="List the runs of `sagelaunch local` instead.")
    ] = False,
    output: OutputOption = OutputFormat.table,
    region: RegionOption = None,
) -> None:
    """List training jobs (or, with --tuning, tuning jobs), newest first.

    With --queue, an AWS Batch job queue and its jobs: the waiting ones in start order. With
    --local, the local runs under .sagelaunch/runs."""
    from sagelaunch.services.backends import backend_for
    from sagelaunch.services.backends.base import Listing

    filters = Listing(status_.value if status_ else None, name_contains, limit, tuning)
    listed = backend_for(ctx.obj, region, queue, local).listing(filters)
    rows, render = _list_view(listed.kind, listed.rows)
    show(rows, output, render)


def _list_view(kind: str, rows: Any) -> tuple[Any, Callable[[Any], None]]:
    """`list`'s rows by the kind of job, and how they are drawn."""
    if kind == "queued":
        from sagelaunch.commands.queue_view import render_queue

        return rows, render_queue
    if kind == "local":
        from sagelaunch.commands.local_view import render_runs

        return rows, render_runs
    if kind == "tuning":
        from sagelaunch.commands.tuning_view import render_tuning_list, tuning_list_summary

        return [tuning_list_summary(job) for job in rows], render_tuning_list
    from sagelaunch.commands.job_view import list_summary, render_list

    return [list_summary(job) for job in rows], render_list


def _tuning_wait_summary(end: Ending) -> dict[str, str | None]:
    """`wait --output json` of a tuning job."""
    return {"tuning_job_name": end.name, "status": end.status, "failure_reason": end.failure_reason}

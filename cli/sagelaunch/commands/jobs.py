"""The job lifecycle: `status`, `wait`, `logs`, `stop` and `list`.

Each command connects (or takes the clients handed in), asks `services.jobs` / `services.follow`
and renders a table, or stable JSON with `--output json` for CI.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated

import typer

from sagelaunch.commands.follow import (
    TimeoutOption,
    followed_in_queue,
    report_cost,
    shown,
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
from sagelaunch.services.clients import connect
from sagelaunch.statuses import JobStatus

if TYPE_CHECKING:
    from sagelaunch.services.clients import Clients
    from sagelaunch.services.follow import Ending

JobArgument = Annotated[str, typer.Argument(help="Training job (or tuning job) name.")]


def status(
    ctx: typer.Context,
    job: JobArgument,
    queue: QueueOption = None,
    output: OutputOption = OutputFormat.table,
    region: RegionOption = None,
) -> None:
    """Show a job: status, secondary status, failure reason, timings, transitions.

    A job of a failover chain (compute.fallback) also shows every attempt of its chain, why each
    ended, and what the chain cost. With --queue, the queued job: its state in the queue (with
    its place while it waits), then its training job."""
    if queue:
        from sagelaunch.commands.queue_view import render_status
        from sagelaunch.services import queue as queues

        show(queues.status(connect(ctx.obj, region), queue, job), output, render_status)
        return
    from sagelaunch.commands.job_view import job_summary, render_status
    from sagelaunch.commands.tuning_view import render_tuning, tuning_summary
    from sagelaunch.services.attempts import chain_cost, read_chain
    from sagelaunch.services.follow import TUNING
    from sagelaunch.services.jobs import find

    aws = connect(ctx.obj, region)
    found = find(aws, job)
    if found.kind is TUNING:
        show(tuning_summary(found.description, found.console_url), output, render_tuning)
        return
    summary = job_summary(found.description, found.console_url)
    chain = read_chain(aws, found.description)
    if chain is not None:
        summary |= {"attempts": [asdict(a) for a in chain], "chain_cost_usd": chain_cost(chain)}
    show(summary, output, render_status)


def wait(
    ctx: typer.Context,
    job: JobArgument,
    timeout: TimeoutOption = None,
    logs: Annotated[
        bool, typer.Option("--logs", help="Stream the job's logs while waiting.")
    ] = False,
    queue: QueueOption = None,
    output: OutputOption = OutputFormat.table,
    region: RegionOption = None,
) -> None:
    """Wait for a job to end. Exit 0 Completed, 1 Failed, 4 Stopped, 5 timed out.

    With --queue, a queued job: its wait in the queue, then its training job."""
    from sagelaunch.services.follow import TRAINING, conclude, follow, kind_of

    timeout_s = timeout_seconds(timeout)
    aws = connect(ctx.obj, region)
    if queue:
        end = followed_in_queue(aws, queue, job, timeout_s, logs)
        if output is OutputFormat.json:
            print_json(wait_summary(end))
        else:
            report_cost(end)
        conclude(end, timeout_s)
        return
    kind = kind_of(aws, job)
    with shown(job, with_logs=logs and kind is TRAINING) as observer:
        end = follow(aws, job, timeout_s, observer, kind=kind)
    if output is OutputFormat.json:
        print_json(wait_summary(end) if kind is TRAINING else _tuning_wait_summary(end))
    elif kind is TRAINING:
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
    region: RegionOption = None,
) -> None:
    """Print a job's logs: every host, interleaved in time order, each line prefixed algo-N.

    With --queue, a queued job's: its training job's logs once one started; with --follow, the
    wait in the queue (on stderr), then the logs to the end."""
    from sagelaunch.commands.job_view import print_events
    from sagelaunch.services.follow import follow, read_logs

    as_json = output is OutputFormat.json
    aws = connect(ctx.obj, region)
    if queue and follow_:
        followed_in_queue(aws, queue, job, None, with_logs=True, as_json=as_json, host=host)
        return
    if queue:
        job = _started_training_job(aws, queue, job)
    if follow_:
        with shown(job, with_logs=True, as_json=as_json) as observer:
            follow(aws, job, None, observer, host=host)
        return
    events = read_logs(aws, job, host)
    print_events(events, as_json=as_json)
    if not events:
        stderr.print(f"no log events for {job}{' on ' + host if host else ''} (yet)")


def _started_training_job(aws: Clients, queue: str, name: str) -> str:
    """The training job a queued job started; a job still waiting has no logs yet (exit 0, said
    with its place, as `logs` of a job without streams says so)."""
    from sagelaunch.services import queue as queues

    summary = queues.status(aws, queue, name)
    if summary["training_job"] is None:
        where = f", place {summary['place']}" if summary["place"] else ""
        stderr.print(
            f"no log events for {name} yet: no training job started "
            f"({summary['status']}{where} in job queue {queue})"
        )
        stderr.print(f"follow it with: sagelaunch logs {name} --queue {queue} --follow")
        raise typer.Exit(0)
    return str(summary["training_job"])


def stop(
    ctx: typer.Context,
    job: JobArgument,
    queue: QueueOption = None,
    output: OutputOption = OutputFormat.table,
    region: RegionOption = None,
) -> None:
    """Ask SageMaker to stop a job (it goes Stopping, then Stopped).

    With --queue, end the queued job (TerminateServiceJob): it leaves the queue, or its
    training job is stopped."""
    if queue:
        from sagelaunch.services import queue as queues

        ended = queues.stop(connect(ctx.obj, region), queue, job)
        show(
            {"job_name": job, "kind": "queued", "queue": queue, "status": ended["status"]},
            output,
            lambda _: stdout.print(
                f"ending queued job {job} (was {ended['status']}); "
                f"see it with: sagelaunch status {job} --queue {queue}"
            ),
        )
        return
    from sagelaunch.services.jobs import stop as stop_job

    kind = stop_job(connect(ctx.obj, region), job)
    show(
        {"job_name": job, "kind": kind, "status": JobStatus.Stopping.value},
        output,
        lambda _: stdout.print(f"stopping {kind} job {job}; follow it with: sagelaunch wait {job}"),
    )


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
    output: OutputOption = OutputFormat.table,
    region: RegionOption = None,
) -> None:
    """List training jobs (or, with --tuning, tuning jobs), newest first.

    With --queue, an AWS Batch job queue and its jobs: the waiting ones in start order."""
    if queue:
        from sagelaunch.commands.queue_view import render_queue
        from sagelaunch.services.queue import listing

        show(listing(connect(ctx.obj, region), queue), output, render_queue)
        return
    from sagelaunch.services.jobs import newest

    if tuning:
        from sagelaunch.commands.tuning_view import render_tuning_list as render
        from sagelaunch.commands.tuning_view import tuning_list_summary as summarize
    else:
        from sagelaunch.commands.job_view import list_summary as summarize  # type: ignore[assignment]
        from sagelaunch.commands.job_view import render_list as render  # type: ignore[assignment]
    found = newest(
        connect(ctx.obj, region),
        tuning,
        status=status_.value if status_ else None,
        name_contains=name_contains,
        limit=limit,
    )
    show([summarize(job) for job in found], output, render)


def _tuning_wait_summary(end: Ending) -> dict[str, str | None]:
    """`wait --output json` of a tuning job."""
    return {"tuning_job_name": end.name, "status": end.status, "failure_reason": end.failure_reason}

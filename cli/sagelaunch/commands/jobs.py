"""The job lifecycle: `status`, `wait`, `logs`, `stop` and `list`.

Each command connects (or takes the clients handed in), calls the `aws` layer and renders a table,
or stable JSON with `--output json` for CI.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated

import typer

from sagelaunch.commands.follow import (
    TimeoutOption,
    conclude,
    connect,
    follow,
    report_cost,
    timeout_seconds,
    wait_summary,
)
from sagelaunch.links import console_url
from sagelaunch.output import (
    OutputFormat,
    OutputOption,
    RegionOption,
    print_json,
    show,
    stderr,
    stdout,
)
from sagelaunch.statuses import JobStatus

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients

JobArgument = Annotated[str, typer.Argument(help="Training job (or tuning job) name.")]


def status(
    ctx: typer.Context,
    job: JobArgument,
    output: OutputOption = OutputFormat.table,
    region: RegionOption = None,
) -> None:
    """Show a job: status, secondary status, failure reason, timings, transitions.

    A job of a failover chain (compute.fallback) also shows every attempt of its chain, why each
    ended, and what the chain cost."""
    from sagelaunch.aws import jobs
    from sagelaunch.commands.job_view import job_summary, render_status
    from sagelaunch.services.attempts import chain_cost, read_chain

    aws = connect(ctx, region)
    description = jobs.describe(aws.sagemaker, job)
    if description is None:
        _tuning_status(aws, job, output)
        return
    summary = job_summary(description, console_url(aws.region, job))
    chain = read_chain(aws, description)
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
    output: OutputOption = OutputFormat.table,
    region: RegionOption = None,
) -> None:
    """Wait for a job to end. Exit 0 Completed, 1 Failed, 4 Stopped, 5 timed out."""
    from sagelaunch.aws import jobs

    timeout_s = timeout_seconds(timeout)
    aws = connect(ctx, region)
    if jobs.describe(aws.sagemaker, job) is None:  # not a training job: a tuning job?
        _wait_for_tuning(aws, job, timeout_s, output)
        return
    final = follow(aws, job, timeout_s, with_logs=logs)
    if output is OutputFormat.json:
        print_json(wait_summary(final))
    else:
        report_cost(final)
    conclude(final, timeout_s)


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
    region: RegionOption = None,
) -> None:
    """Print a job's logs: every host, interleaved in time order, each line prefixed algo-N."""
    from sagelaunch.aws.logs import LogReader
    from sagelaunch.commands.job_view import print_events

    as_json = output is OutputFormat.json
    aws = connect(ctx, region)
    if follow_:
        follow(aws, job, None, with_logs=True, host=host, as_json=as_json)
        return
    events = LogReader(aws.logs, job, host).poll()
    print_events(events, as_json=as_json)
    if not events:
        stderr.print(f"no log events for {job}{' on ' + host if host else ''} (yet)")


def stop(
    ctx: typer.Context,
    job: JobArgument,
    output: OutputOption = OutputFormat.table,
    region: RegionOption = None,
) -> None:
    """Ask SageMaker to stop a job (it goes Stopping, then Stopped)."""
    from sagelaunch.aws import tuning

    kind = tuning.stop_training_or_tuning(connect(ctx, region).sagemaker, job)
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
    output: OutputOption = OutputFormat.table,
    region: RegionOption = None,
) -> None:
    """List training jobs (or, with --tuning, tuning jobs), newest first."""
    if tuning:
        from sagelaunch.aws.tuning import list_jobs as listed
        from sagelaunch.commands.tuning_view import render_tuning_list as render
        from sagelaunch.commands.tuning_view import tuning_list_summary as summarize
    else:
        from sagelaunch.aws.jobs import list_jobs as listed  # type: ignore[assignment]
        from sagelaunch.commands.job_view import list_summary as summarize  # type: ignore[assignment]
        from sagelaunch.commands.job_view import render_list as render  # type: ignore[assignment]
    found = listed(
        connect(ctx, region).sagemaker,
        status=status_.value if status_ else None,
        name_contains=name_contains,
        limit=limit,
    )
    show([summarize(job) for job in found], output, render)


# --- tuning jobs: the same commands, when the name is a hyperparameter tuning job's -------------


def _tuning_status(aws: Clients, name: str, output: OutputFormat) -> None:
    from sagelaunch.aws import tuning
    from sagelaunch.commands.tuning_view import render_tuning, tuning_summary
    from sagelaunch.links import tuning_console_url

    description = tuning.describe(aws.sagemaker, name)
    if description is None:
        raise tuning.missing(name)
    show(tuning_summary(description, tuning_console_url(aws.region, name)), output, render_tuning)


def _wait_for_tuning(
    aws: Clients, name: str, timeout_s: float | None, output: OutputFormat
) -> None:
    from sagelaunch.commands.tune import conclude_tuning, follow_tuning

    final = follow_tuning(aws, name, timeout_s)
    if output is OutputFormat.json:
        print_json(
            {
                "tuning_job_name": name,
                "status": final["HyperParameterTuningJobStatus"],
                "failure_reason": final.get("FailureReason") or None,
            }
        )
    conclude_tuning(final, timeout_s)

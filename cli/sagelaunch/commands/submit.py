"""`sagelaunch submit CONFIG|plan.json`: options and rendering; the work is `services.submit`."""

from __future__ import annotations

import os
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sagelaunch import output as out
from sagelaunch.commands.follow import (
    TimeoutOption,
    followed,
    report_cost,
    shown,
    timeout_seconds,
)
from sagelaunch.errors import UsageError
from sagelaunch.output import (
    IdempotencyKeyOption,
    OutputFormat,
    OutputOption,
    QueueOption,
    RegionOption,
    SetOption,
    print_json,
    show,
)

if TYPE_CHECKING:
    from sagelaunch.config.model import Fallback
    from sagelaunch.services.clients import Clients
    from sagelaunch.services.create_once import Submission
    from sagelaunch.services.failover import Attempt
    from sagelaunch.services.queue import QueuedSubmission


def submit(
    ctx: typer.Context,
    target: Annotated[
        Path, typer.Argument(help="Launch config (YAML) or a saved plan (plan.json).")
    ],
    overrides: SetOption = None,
    idempotency_key: IdempotencyKeyOption = None,
    wait: Annotated[
        bool, typer.Option("--wait", help="Wait for the job to end (exit 0/1/4/5).")
    ] = False,
    logs: Annotated[bool, typer.Option("--logs", help="Stream the logs while waiting.")] = False,
    timeout: TimeoutOption = None,
    check_quota: Annotated[
        bool,
        typer.Option(
            "--check-quota/--no-check-quota",
            help="Before uploading, check the account's SageMaker quotas (Service Quotas) "
            "against its running training jobs; exit 3 naming the quota the job would exceed "
            "(when Service Quotas cannot be read: a warning, and the job goes on). "
            "--no-check-quota leaves it to CreateTrainingJob (a failover chain always checks).",
        ),
    ] = True,
    queue: QueueOption = None,
    region: RegionOption = None,
    output: OutputOption = OutputFormat.table,
) -> None:
    """Upload the code (unless unchanged) and create the training job, or attach to it.

    Without --idempotency-key, an existing job of the planned name is attached to only when it
    runs exactly the planned request (else exit 2, with the differences). With compute.queue
    or --queue, the job waits for capacity in that AWS Batch job queue instead."""
    timeout_s = timeout_seconds(timeout)
    from sagelaunch.services import failover
    from sagelaunch.services.backends.training_job import TrainingJobs
    from sagelaunch.services.clients import given
    from sagelaunch.services.follow import TRAINING, conclude
    from sagelaunch.services.queue import QueuedSubmission
    from sagelaunch.services.submit import deliver

    options = {
        "aws": given(ctx.obj),
        "uploader": _upload,
        "warn": _warn,
        "progress": lambda: out.stderr.status(
            "building the request with the SageMaker SDK (offline)…"
        ),
    }
    from sagelaunch.services.queue import named_queue

    overrides = named_queue(target, overrides, queue)
    fallbacks = failover.fallbacks_of(target, overrides)
    if fallbacks and queue:
        raise UsageError(
            f"--queue {queue}: {target} has a failover chain (compute.fallback), which fails "
            "over when SageMaker has no capacity; a queued job waits for capacity instead",
            hint="drop --queue to fail over, or compute.fallback (--set compute.fallback=[]) "
            "to wait in the queue",
        )
    if fallbacks:
        waiting = timeout_s, logs, wait or logs
        _submit_chain(
            target, overrides, idempotency_key, region, fallbacks, options, output, waiting
        )
        return
    result, aws = deliver(
        target,
        overrides,
        idempotency_key,
        region,
        check_quota=check_quota,
        queue=queue,
        **options,
    )
    if isinstance(result, QueuedSubmission):
        _submitted_to_queue(aws, result, output, (timeout_s, logs, wait or logs))
        return
    end = None
    if wait or logs:
        _report(result, output, done=False)
        end = followed(TrainingJobs(aws, TRAINING), result.job_name, timeout_s, logs)
        result.status = end.status
    _report(result, output, done=True)
    if end is not None and output is not OutputFormat.json:
        report_cost(end)
    if end is not None:
        conclude(end, timeout_s)


def _submitted_to_queue(
    aws: Clients,
    result: QueuedSubmission,
    output: OutputFormat,
    waiting: tuple[float | None, bool, bool],
) -> None:
    """A job sent to a job queue: where it stands, and with --wait its way to the end."""
    from sagelaunch.commands.queue_view import render_submitted
    from sagelaunch.services.backends.job_queue import JobQueue
    from sagelaunch.services.follow import conclude

    timeout_s, logs, wait = waiting
    if not wait:
        show(asdict(result), output, render_submitted)
        return
    if output is not OutputFormat.json:
        render_submitted(asdict(result))
    end = followed(JobQueue(aws, result.queue), result.job_name, timeout_s, logs)
    result.status = end.status
    if output is OutputFormat.json:
        print_json({**asdict(result), "training_status": end.status})
    else:
        report_cost(end)
    conclude(end, timeout_s)


def _submit_chain(
    target: Path,
    overrides: list[str] | None,
    key: str | None,
    region: str | None,
    fallbacks: list[Fallback],
    options: dict[str, Any],
    output: OutputFormat,
    waiting: tuple[float | None, bool, bool],
) -> None:
    """`submit` of a config with `compute.fallback`: the failover chain. Without --wait it
    attaches to the attempt that runs now, or starts the next one when the last ended for
    lack of capacity (a rerun moves the chain on); with --wait it follows each to its end."""
    from sagelaunch.services import failover
    from sagelaunch.services.follow import conclude

    timeout_s, logs, wait = waiting
    with shown(str(target), with_logs=logs, announce=wait) as observer:
        following = failover.Following(timeout_s, observer, wait=wait)
        chain = failover.run(target, overrides, key, region, fallbacks, following, **options)

    assert chain.last is not None and chain.final is not None  # run raises when none ran
    if output is OutputFormat.json:
        attempts = [asdict(a) for a in chain.attempts]
        print_json({**asdict(chain.last), "attempts": attempts, "chain_cost_usd": chain.cost_usd})
    else:
        _report(chain.last, output, done=True)
        _report_attempts(chain.attempts)
        report_cost(chain.final)
        if chain.cost_usd is not None and len(chain.attempts) > 1:
            out.stderr.print(f"chain cost  ${chain.cost_usd:,.2f} (all attempts)")
    if wait:
        conclude(chain.final, timeout_s)


def _report_attempts(attempts: list[Attempt]) -> None:
    for attempt in attempts:
        out.stdout.print(
            f"  attempt {attempt.number}  {attempt.alternative} ({attempt.region})  "
            f"{attempt.job_name or '-'}  {attempt.ended_because or ''}",
            highlight=False,
        )


def _warn(message: str) -> None:
    from rich.markup import escape

    out.stderr.print(f"[yellow]warning:[/yellow] {escape(message)}", highlight=False)


def _upload(aws: Clients, uri: str, data: bytes | os.PathLike[str]) -> None:
    from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

    from sagelaunch.services.create_once import put

    columns = ("uploading code", BarColumn(), DownloadColumn(), TransferSpeedColumn())
    # Only on a terminal: a bar means nothing in CI logs (and one live display per console).
    with Progress(
        *columns, console=out.stderr, transient=True, disable=not out.stderr.is_terminal
    ) as progress:
        size = len(data) if isinstance(data, bytes) else os.stat(data).st_size
        task = progress.add_task("upload", total=size)
        put(aws, uri, data, progress=lambda sent: progress.update(task, completed=sent))


def _report(result: Submission, output: OutputFormat, done: bool) -> None:
    if output is OutputFormat.json:
        if done:
            print_json(asdict(result))
        return
    if not done:
        verb = "attached to" if result.attached else "created"
        out.stderr.print(f"{verb} [bold]{result.job_name}[/bold]; waiting…")
        return
    verb = "attached to existing job" if result.attached else "created job"
    code = ("uploaded" if result.uploaded else "already in S3") if result.bundle_sha256 else "none"
    out.stdout.print(f"{verb} [bold]{result.job_name}[/bold] ({result.status})")
    out.stdout.print(f"  arn      {result.arn}", highlight=False)
    out.stdout.print(
        f"  code     {code}"
        + (f" (sha256 {result.bundle_sha256[:12]}…)" if result.bundle_sha256 else "")
    )
    out.stdout.print(f"  console  {result.console_url}", highlight=False)

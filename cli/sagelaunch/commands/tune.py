"""`sagelaunch tune CONFIG`: options and rendering; the work is `services.tune`."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sagelaunch.commands.follow import TimeoutOption, given_clients, timeout_seconds
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
    from sagelaunch.aws.session import Clients
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
    from sagelaunch.services.tune import deliver

    result, aws = deliver(
        config,
        overrides,
        idempotency_key,
        region,
        given_clients(ctx),
        progress=lambda: stderr.status("building the request with the SageMaker SDK (offline)…"),
    )
    final = None
    if wait:
        if output is OutputFormat.table:
            verb = "attached to" if result.attached else "created"
            stderr.print(f"{verb} tuning job [bold]{result.tuning_job_name}[/bold]; waiting…")
        final = follow_tuning(aws, result.tuning_job_name, timeout_s)
        result.status = final["HyperParameterTuningJobStatus"]
    _report(result, output)
    if final is not None:
        conclude_tuning(final, timeout_s)


def follow_tuning(aws: Clients, name: str, timeout_s: float | None) -> dict[str, Any]:
    """Poll the tuning job until it ends (or the timeout); one line per change on stderr."""
    from sagelaunch.aws import tuning

    last: dict[str, Any] = {}
    with stderr.status(f"waiting for tuning job {name}…", spinner="dots"):
        for job in tuning.watch(aws.sagemaker, name, timeout_s):
            counts = job.get("TrainingJobStatusCounters") or {}
            shown = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no training jobs"
            stderr.print(f"{job['HyperParameterTuningJobStatus']} · {shown}", highlight=False)
            last = job
    return last


def conclude_tuning(job: dict[str, Any], timeout_s: float | None) -> None:
    """Failed 1, Stopped 4, still running 5 (the exit codes of `wait`)."""
    from sagelaunch.errors import JobFailed, JobStopped, WaitTimeout

    name, status = job["HyperParameterTuningJobName"], job["HyperParameterTuningJobStatus"]
    if status == "Completed":
        return
    if status == "Failed":
        raise JobFailed(f"tuning job {name} failed: {job.get('FailureReason') or 'no reason'}")
    if status == "Stopped":
        raise JobStopped(f"tuning job {name} was stopped")
    raise WaitTimeout(
        f"tuning job {name} is still {status}"
        + (f" after waiting {timeout_s:g}s" if timeout_s is not None else ""),
        hint=f"keep waiting with: sagelaunch wait {name}",
    )


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

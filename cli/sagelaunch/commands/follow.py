"""What `submit --wait`, `wait` and `logs --follow` share: the clients, following a job to its
end (SecondaryStatus transitions, optionally its logs) and the exit code its end deserves.

boto3 is imported inside the functions, never at module level: `--help` stays fast.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sagelaunch import output as out
from sagelaunch.errors import JobFailed, JobStopped, UsageError, WaitTimeout
from sagelaunch.statuses import JobStatus

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients

TimeoutOption = Annotated[
    str | None,
    typer.Option("--timeout", help="Give up waiting after this long: seconds, or e.g. 90m, 2h."),
]


def connect(ctx: typer.Context, region: str | None) -> Clients:
    """The command's AWS clients: those handed in by the caller, else new ones for ``region``."""
    from sagelaunch.aws.session import clients

    return given_clients(ctx) or clients(region)


def given_clients(ctx: typer.Context) -> Clients | None:
    """Clients handed in through the context (`CliRunner.invoke(..., obj=Clients(...))`): how
    tests pass e.g. a client under botocore's Stubber."""
    from sagelaunch.aws.session import Clients

    return ctx.obj if isinstance(ctx.obj, Clients) else None


def timeout_seconds(value: str | None) -> float | None:
    """``--timeout`` as seconds (the config's duration syntax: 3600, 90m, 2h, 1h30m)."""
    if value is None:
        return None
    from sagelaunch.config.model import parse_duration

    try:
        return float(parse_duration(value))  # type: ignore[arg-type]
    except ValueError as exc:
        raise UsageError(f"--timeout: {exc}") from None


def follow(
    aws: Clients,
    name: str,
    timeout_s: float | None,
    with_logs: bool,
    host: str | None = None,
    as_json: bool = False,
    stop_when: Callable[[dict[str, Any]], str | None] | None = None,
) -> dict[str, Any]:
    """Follow ``name`` until it ends or the timeout passes; returns its last description.

    Transitions go to stderr (under a spinner when no logs are streamed); with ``with_logs`` the
    logs of every host go to stdout between polls, and once more after the end for the tail
    (``as_json``: as JSON lines). ``stop_when``: stop the job once it gives a reason for a
    description (a spot job interrupted too often), and follow it to Stopped."""
    from sagelaunch.aws import jobs
    from sagelaunch.aws.logs import LogReader
    from sagelaunch.commands.job_view import print_events, transition_line

    reader = LogReader(aws.logs, name, host) if with_logs else None
    last: dict[str, Any] = {}

    def stop_if_due() -> None:
        # Checked at each transition and each poll: a duration passes without a transition.
        nonlocal stop_when
        reason = stop_when(last) if stop_when is not None and last else None
        if reason and last["TrainingJobStatus"] == "InProgress":
            out.stderr.print(f"stopping {name}: {reason}; the chain goes on demand")
            jobs.stop(aws.sagemaker, name)
            stop_when = None

    def sleep(seconds: float) -> None:
        if reader is not None:
            print_events(reader.poll(), as_json)
        stop_if_due()
        time.sleep(seconds)

    with out.stderr.status(f"waiting for {name}…", spinner="dots") as spinner:
        if reader is not None:
            spinner.stop()  # log lines and a live spinner would fight over the terminal
        for transition, job in jobs.watch(aws.sagemaker, name, timeout_s, sleep=sleep):
            out.stderr.print(transition_line(transition), highlight=False)
            spinner.update(f"{name}: {transition.status} · {transition.secondary}")
            last = job
            stop_if_due()
    if reader is not None:
        print_events(reader.poll(), as_json)
    return last


def report_cost(job: dict[str, Any]) -> None:
    """The ended job's cost, on stderr (billable seconds × the dated price table)."""
    from sagelaunch.commands.job_view import cost_line
    from sagelaunch.config.cost import job_cost

    cost = job_cost(job)
    if cost is not None:
        out.stderr.print(f"cost  {cost_line(cost)}", highlight=False)


def conclude(job: dict[str, Any], timeout_s: float | None) -> None:
    """Raise what the job's end means for the exit code: Failed 1, Stopped 4, still running 5."""
    name, status = job["TrainingJobName"], job["TrainingJobStatus"]
    if status == JobStatus.Completed:
        return
    if status == JobStatus.Failed:
        raise JobFailed(f"job {name} failed: {job.get('FailureReason') or 'no reason given'}")
    if status == JobStatus.Stopped:
        raise JobStopped(f"job {name} was stopped")
    raise WaitTimeout(
        f"job {name} is still {status} ({job.get('SecondaryStatus', '?')})"
        + (f" after waiting {timeout_s:g}s" if timeout_s is not None else ""),
        hint=f"keep waiting with: sagelaunch wait {name}",
    )


def wait_summary(job: dict[str, Any]) -> dict[str, Any]:
    """`wait --output json`: where the job ended up, and what it cost."""
    from sagelaunch.config.cost import job_cost

    return {
        "job_name": job["TrainingJobName"],
        "status": job["TrainingJobStatus"],
        "secondary_status": job.get("SecondaryStatus"),
        "failure_reason": job.get("FailureReason"),
        "cost": job_cost(job),
    }

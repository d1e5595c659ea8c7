"""`sagelaunch submit CONFIG|plan.json`: plan (or load the reviewed plan), upload, create — once.

Submit is plan + upload + `create_training_job(**request)`: what `plan` showed is what is sent.
A saved plan is sent as is, without importing the SageMaker SDK.

Idempotency (SPEC §4): with `--idempotency-key K` the job name is derived from K and the request,
so a retried CI step computes the same name and attaches to the job it already created. The
requests are ordered so that a first submit costs no more calls than the SDK's own `fit()`:

1. HeadObject on the bundle's content-addressed key (skipped for built-in algorithms).
2. DescribeTrainingJob, only when the name may already exist (a key or a saved plan's fixed name)
   and the bundle is already in S3: we upload before we create, so a job of ours with this
   request cannot exist while its bundle is missing.
3. PutObject when the bundle is missing (the key carries its sha256: present means identical).
4. CreateTrainingJob; a retried create that is refused as "already exists" attaches (aws.jobs).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sagelaunch.commands.follow import (
    TimeoutOption,
    conclude,
    console_url,
    follow,
    given_clients,
    timeout_seconds,
)
from sagelaunch.errors import UsageError
from sagelaunch.output import (
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

NAME_MAX = 63
IDEMPOTENT_SUFFIX = 24  # "-" + 23 hex characters (naming.idempotent)
_TIMESTAMP = re.compile(r"-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}-\d{3}$")


@dataclass
class Submission:
    """`submit --output json` (stable keys)."""

    job_name: str
    arn: str
    status: str  # InProgress for a job just created; described when attached; final with --wait
    uploaded: bool  # bytes were sent to S3 (False: the bundle was there, or nothing to upload)
    bundle_sha256: str | None
    console_url: str
    attached: bool  # the job already existed (same key and request, or same plan file)


def submit(
    ctx: typer.Context,
    target: Annotated[
        Path, typer.Argument(help="Launch config (YAML) or a saved plan (plan.json).")
    ],
    overrides: SetOption = None,
    idempotency_key: Annotated[
        str | None,
        typer.Option(
            "--idempotency-key",
            envvar="SAGELAUNCH_IDEMPOTENCY_KEY",
            help="Same key + same request = same job: a retry attaches instead of resubmitting.",
        ),
    ] = None,
    wait: Annotated[
        bool, typer.Option("--wait", help="Wait for the job to end (exit 0/1/4/5).")
    ] = False,
    logs: Annotated[bool, typer.Option("--logs", help="Stream the logs while waiting.")] = False,
    timeout: TimeoutOption = None,
    region: RegionOption = None,
    output: OutputOption = OutputFormat.table,
) -> None:
    """Upload the code (unless unchanged) and create the training job, or attach to it."""
    timeout_s = timeout_seconds(timeout)
    result, aws = deliver(target, overrides, idempotency_key, region, given_clients(ctx))
    final = None
    if wait or logs:
        _report(result, output, done=False)
        final = follow(aws, result.job_name, timeout_s, with_logs=logs)
        result.status = final["TrainingJobStatus"]
    _report(result, output, done=True)
    if final is not None:
        conclude(final, timeout_s)


def deliver(
    target: Path,
    overrides: list[str] | None,
    key: str | None,
    region: str | None,
    aws: Clients | None = None,
) -> tuple[Submission, Clients]:
    """All of `submit` but waiting: plan (or load), name, upload, create or attach."""
    from sagelaunch import naming
    from sagelaunch.aws.session import clients

    plan, bundle_data, from_file = load_plan(target, overrides, region)
    request = plan["request"]
    if key:
        name = idempotent_name(plan["job_name"], key, request)
        request = naming.with_job_name(request, name)
    aws = aws or clients(plan["region"])
    result = send(aws, request, plan.get("upload"), bundle_data, may_exist=from_file or bool(key))
    return result, aws


def load_plan(
    target: Path, overrides: list[str] | None, region: str | None
) -> tuple[dict[str, Any], bytes | None, bool]:
    """The plan and its bundle bytes, and whether it came from a saved plan file."""
    if target.suffix != ".json":
        from sagelaunch.commands.plan import make_plan

        return (*make_plan(target, overrides, region, None), False)
    from sagelaunch import plan_file

    if overrides:
        raise UsageError("--set cannot change a saved plan", hint="make a new plan with --set")
    plan, data = plan_file.load(target)
    if region and region != plan["region"]:
        raise UsageError(f"{target} was planned for {plan['region']}, not {region}")
    return plan, data, True


def idempotent_name(planned_name: str, key: str, request: dict[str, Any]) -> str:
    """The job name for ``key``: the planned name's base (without its timestamp) + a digest."""
    from sagelaunch import naming

    base = _TIMESTAMP.sub("", planned_name)[: NAME_MAX - IDEMPOTENT_SUFFIX]
    return naming.idempotent(base, key, request)


def send(
    aws: Clients,
    request: dict[str, Any],
    upload: dict[str, Any] | None,
    data: bytes | None,
    may_exist: bool,
) -> Submission:
    """Upload and create, or attach (the order is explained in the module docstring)."""
    from sagelaunch.aws import jobs
    from sagelaunch.aws.upload import exists

    name = request["TrainingJobName"]
    code_there = upload is None or exists(aws.s3, upload["s3_uri"])
    existing = jobs.describe(aws.sagemaker, name) if may_exist and code_there else None
    if existing is None:
        if not code_there:
            assert upload is not None and data is not None  # plan_file/make_plan pair them
            _upload(aws, upload["s3_uri"], data)
        arn, existing = jobs.create(aws.sagemaker, request)
    else:
        arn = existing["TrainingJobArn"]
    return Submission(
        job_name=name,
        arn=arn,
        status=existing["TrainingJobStatus"] if existing else "InProgress",
        uploaded=not code_there,
        bundle_sha256=upload["sha256"] if upload else None,
        console_url=console_url(aws.region, name),
        attached=existing is not None,
    )


def _upload(aws: Clients, uri: str, data: bytes) -> None:
    from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

    from sagelaunch.aws.upload import put

    columns = ("uploading code", BarColumn(), DownloadColumn(), TransferSpeedColumn())
    # Only on a terminal: a bar means nothing in CI logs (and one live display per console).
    with Progress(
        *columns, console=stderr, transient=True, disable=not stderr.is_terminal
    ) as progress:
        task = progress.add_task("upload", total=len(data))
        put(aws.s3, uri, data, progress=lambda sent: progress.update(task, completed=sent))


def _report(result: Submission, output: OutputFormat, done: bool) -> None:
    if output is OutputFormat.json:
        if done:
            print_json(asdict(result))
        return
    if not done:
        verb = "attached to" if result.attached else "created"
        stderr.print(f"{verb} [bold]{result.job_name}[/bold]; waiting…")
        return
    verb = "attached to existing job" if result.attached else "created job"
    code = ("uploaded" if result.uploaded else "already in S3") if result.bundle_sha256 else "none"
    stdout.print(f"{verb} [bold]{result.job_name}[/bold] ({result.status})")
    stdout.print(f"  arn      {result.arn}", highlight=False)
    stdout.print(
        f"  code     {code}"
        + (f" (sha256 {result.bundle_sha256[:12]}…)" if result.bundle_sha256 else "")
    )
    stdout.print(f"  console  {result.console_url}", highlight=False)

"""`sagelaunch plan CONFIG`: the exact CreateTrainingJob request, offline, with cost, topology."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sagelaunch.errors import SagelaunchError, UsageError
from sagelaunch.output import QueueOption, RegionOption, SetOption, print_json, stderr, stdout

if TYPE_CHECKING:
    from sagelaunch.services.plan_capacity import Finding
    from sagelaunch.services.plan_check import PlanReport
    from sagelaunch.services.quota_check import QuotaReport


class PlanFormat(str, Enum):
    table = "table"
    json = "json"
    yaml = "yaml"


OUTPUT_HELP = (
    "table for people; json or yaml with the keys: schema_version, job_name, region, "
    "estimator (the SDK class and its kwargs), request (CreateTrainingJob parameters as sent), "
    "cost (instance_type, instance_count, hourly_usd, max_usd, spot, prices_as_of), topology "
    "(hosts, processes_per_host, world_size, launcher), upload (the code bundle: files, bytes, "
    "sha256, s3_uri; null for built-in algorithms), warnings (source, message, file/line) and "
    "quota (checked, note, quotas: name, quota, in_use, asks, fits; absent with "
    "--no-check-quota) and, for a job on training plans, training_plans (checked, note, plans: "
    "arn, name, status, start, end, upfront_fee, currency, instances, ...; findings: plan, key, "
    "severity, message, hint; absent with --no-check-quota)."
)


def plan(
    config: Annotated[Path, typer.Argument(help="Launch config (YAML).")],
    overrides: SetOption = None,
    output: Annotated[PlanFormat, typer.Option("--output", "-o", help=OUTPUT_HELP)] = (
        PlanFormat.table
    ),
    out: Annotated[
        Path | None, typer.Option("--out", help="Save the plan (and its code bundle) for submit.")
    ] = None,
    region: RegionOption = None,
    queue: QueueOption = None,
    job_name: Annotated[
        str | None,
        typer.Option("--job-name", help="Exact job name (default: job_name, or NAME-timestamp)."),
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Treat warnings as errors (exit 2), e.g. in CI.")
    ] = False,
    check_quota: Annotated[
        bool | None,
        typer.Option(
            "--check-quota/--no-check-quota",
            help="Read the account's SageMaker quotas and running jobs. Default: when AWS "
            "credentials are configured (a short quota is a warning; without credentials, a "
            "note says it was not checked). --check-quota requires it (exit 3 when the job "
            "would exceed a quota); --no-check-quota stays offline. The job's training plans "
            "are described alike.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Show exactly what submit would send: estimator, request, cost, topology, upload.

    An unchanged config (same content, code, sagelaunch and SDK versions) is answered from
    .sagelaunch/cache/plans without running the SDK again."""
    from rich.markup import escape

    from sagelaunch.cli_params import output_file
    from sagelaunch.services.failover import alternative_costs
    from sagelaunch.services.planning import make_plan
    from sagelaunch.services.queue import named_queue

    overrides = named_queue(config, overrides, queue)
    if config.is_dir():
        raise _folder_error(config)
    output_file(out, "--out", "plan.json")
    result, bundle_data, loaded = make_plan(
        config,
        overrides,
        region,
        job_name,
        progress=lambda: stderr.status("building the request with the SageMaker SDK (offline)…"),
        advise=lambda line: stderr.print(f"[yellow]warning:[/yellow] {escape(line)}"),
    )
    for warning in result.warnings:  # on stderr in every format; json also lists them
        stderr.print(f"[yellow]warning:[/yellow] {escape(str(warning))}", highlight=False)
    if strict and result.warnings:
        raise SagelaunchError(
            f"{len(result.warnings)} warning(s) and --strict: nothing planned",
            hint="fix them, or drop --strict to accept them",
        )
    quota = _check_quota(result.region, result.request, check_quota)
    if strict and quota is not None and quota.short:
        raise SagelaunchError(
            "a quota would refuse this job and --strict: nothing planned",
            hint="request an increase (see the warning), or use --no-check-quota",
        )
    training_plans = _check_plans(result.region, result.request, check_quota)
    if strict and training_plans is not None and training_plans.refusals:
        raise SagelaunchError(
            "a training plan cannot run this job and --strict: nothing planned",
            hint="fix it (see the warning), or use --no-check-quota",
        )
    if out:
        from sagelaunch import plan_file

        plan_file.save(out, result, bundle_data)
        stderr.print(f"saved plan to [bold]{out}[/bold]; submit it with: sagelaunch submit {out}")
    shown = result.redacted()  # secret-looking environment values: the display only
    alternatives = alternative_costs(loaded, overrides)
    as_data = {**shown.as_json(), **({"alternatives": alternatives} if alternatives else {})}
    if quota is not None:
        as_data["quota"] = quota.as_json()
    if training_plans is not None and training_plans.uses:
        as_data["training_plans"] = training_plans.as_json()
    if bundle_data is not None and isinstance(as_data.get("upload"), dict):
        as_data["upload"] = {**as_data["upload"], **bundle_data.as_json()}  # what it came from
    if output is PlanFormat.json:
        print_json(as_data)
    elif output is PlanFormat.yaml:
        _print_yaml(as_data)
    else:
        from rich.markup import escape

        from sagelaunch.commands.plan_view import (
            render,
            render_alternatives,
            render_training_plans,
        )

        render(shown)
        if bundle_data is not None:
            stdout.print(f"[bold]code[/bold] {escape(bundle_data.description())}", highlight=False)
        if alternatives:
            render_alternatives(alternatives, shown.region)
        if training_plans is not None:
            render_training_plans(list(training_plans.plans.values()))


def _check_quota(region: str, request: dict[str, Any], mode: bool | None) -> QuotaReport | None:
    """The quota pre-flight of submit, reported on stderr: required (exit 3 when the job would
    not fit), off (None), or by default when credentials are configured (else a note)."""
    from sagelaunch.services import quota_check

    if mode is False:
        return None
    if mode:
        from sagelaunch.services.clients import connect

        report = quota_check.require_room(connect(None, region), request)
    else:
        report = quota_check.check_if_possible(region, request)
    if report.note:
        stderr.print(f"[dim]note:[/dim] {report.note}", highlight=False)
    for use in report.uses:
        stderr.print(f"quota  {use}", highlight=False)
    for use in report.short:
        stderr.print(
            f"[yellow]warning:[/yellow] submit would refuse this job now: {use}", highlight=False
        )
    return report


def _check_plans(region: str, request: dict[str, Any], mode: bool | None) -> PlanReport | None:
    """Submit's training-plan pre-flight, as the quota one runs (``mode``): required with
    --check-quota (exit 3 when a plan cannot run the job), off with --no-check-quota, else when
    credentials are configured; what it found is on stderr."""
    from rich.markup import escape

    from sagelaunch.services import plan_check

    if mode is False:
        return None
    if mode:
        from sagelaunch.services.clients import connect

        report = plan_check.require_usable(connect(None, region), request)
    else:
        report = plan_check.check_if_possible(region, request)
    if report.note:
        stderr.print(f"[dim]note:[/dim] {escape(report.note)}", highlight=False)
    for finding in report.findings:
        stderr.print(_finding_line(finding), highlight=False)
    return report


def _finding_line(finding: Finding) -> str:
    """A note, a warning, or the warning that submit would refuse the job."""
    from rich.markup import escape

    if finding.severity == "note":
        return f"[dim]note:[/dim] {escape(str(finding))}"
    refused = "submit would refuse this job: " if finding.severity == "refuse" else ""
    return f"[yellow]warning:[/yellow] {refused}{escape(str(finding))}"


def _folder_error(folder: Path) -> UsageError:
    """A plan is one job: name one of the folder's configs (validate takes the whole folder)."""
    from sagelaunch.config.paths import config_files

    first = next(iter(config_files([folder])), None)
    example = f"sagelaunch plan {first}" if first else f"sagelaunch plan {folder}/NAME.yaml"
    return UsageError(
        f"plan takes one config file, not a folder: {folder}",
        hint=f"name one config, e.g. `{example}`; `sagelaunch validate {folder}` checks them all",
    )


def _print_yaml(data: dict[str, Any]) -> None:
    import sys

    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.dump(data, sys.stdout)
    stdout.file.flush()

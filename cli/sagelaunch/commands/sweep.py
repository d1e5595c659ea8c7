"""`sagelaunch sweep CONFIG`: options and rendering; the protocol is `sweeps.scheduler`
(SageMaker) and `sweeps.local` (--local)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from sagelaunch.commands.follow import TimeoutOption, timeout_seconds
from sagelaunch.output import (
    IdempotencyKeyOption,
    OutputFormat,
    OutputOption,
    QueueOption,
    RegionOption,
    SetOption,
    print_json,
    stderr,
    stdout,
)

if TYPE_CHECKING:
    from sagelaunch.services.planning import Progress
    from sagelaunch.sweeps.planning import PlannedSweep, SweepStream
    from sagelaunch.sweeps.results import SweepResult


def sweep(
    ctx: typer.Context,
    config: Annotated[Path, typer.Argument(help="Launch config (YAML) with a sweep: block.")],
    overrides: SetOption = None,
    local: Annotated[
        bool, typer.Option("--local", help="Run the trials here, as `sagelaunch local` does.")
    ] = False,
    max_parallel: Annotated[
        int | None,
        typer.Option(
            "--max-parallel",
            min=1,
            help="Trials at once (default: sweep.max_parallel; --local: what the cores hold).",
        ),
    ] = None,
    idempotency_key: IdempotencyKeyOption = None,
    check_quota: Annotated[
        bool,
        typer.Option(
            "--check-quota/--no-check-quota",
            help="Hold trials the account's SageMaker quotas cannot take now (Service Quotas "
            "against the running training jobs) instead of learning it from refused creates "
            "(when Service Quotas cannot be read: a warning, and the trials go on); "
            "--no-check-quota learns it from the creates.",
        ),
    ] = True,
    wait: Annotated[
        bool,
        typer.Option(
            "--wait", help="Run the whole sweep to its end (else: start what fits, and return)."
        ),
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Show the trials and their requests; send nothing."),
    ] = False,
    results: Annotated[
        Path | None,
        typer.Option("--results", help="Write the results: JSON, or CSV when FILE ends in .csv."),
    ] = None,
    workdir: Annotated[
        Path | None,
        typer.Option(
            "--workdir", help="--local: the sweep's folder (default .sagelaunch/sweeps/NAME-TIME)."
        ),
    ] = None,
    timeout: TimeoutOption = None,
    queue: QueueOption = None,
    region: RegionOption = None,
    output: OutputOption = OutputFormat.table,
) -> None:
    """Run one job per trial of the config's sweep: block (grid or random), with a results table.

    Exit 0 when every trial completed, 1 when any failed, 4 when any was stopped, 5 when --wait
    timed out."""
    from sagelaunch.cli_params import folder_option, output_file

    output_file(results, "--results", "results.json")
    folder_option(workdir, "--workdir")
    timeout_s = timeout_seconds(timeout)
    progress = _progress(output)
    if local:
        from sagelaunch.checks.validation import expand
        from sagelaunch.sweeps import local as sweep_local

        spec = expand(config, overrides)
        _warn([str(w) for trial in spec.trials for w in trial.warnings])
        parallel = max_parallel or sweep_local.default_parallel(spec)
        with _live(output) as notify:
            result = sweep_local.run(spec, parallel, workdir, notify, progress)
        _finish(result, output, results, waited=True)
        return
    from sagelaunch.services.queue import named_queue
    from sagelaunch.sweeps.planning import plan_trials, stream_trials

    overrides = named_queue(config, overrides, queue)

    if dry_run and output is OutputFormat.table:  # streamed: the first trial shows at once
        _dry_run(stream_trials(config, overrides, region, idempotency_key), progress)
        return
    planned = plan_trials(config, overrides, region, idempotency_key, progress)
    _warn([str(w) for trial in planned.trials for w in trial.plan.warnings])
    if dry_run:
        from sagelaunch.commands.sweep_view import dry_run_json

        print_json(dry_run_json(planned))
        return
    _run_on_sagemaker(ctx, planned, max_parallel, wait, timeout_s, output, results, check_quota)


def _run_on_sagemaker(
    ctx: typer.Context,
    planned: PlannedSweep,
    max_parallel: int | None,
    wait: bool,
    timeout_s: float | None,
    output: OutputFormat,
    results: Path | None,
    check_quota: bool = False,
) -> None:
    from sagelaunch.services.clients import connect
    from sagelaunch.sweeps import queued
    from sagelaunch.sweeps.scheduler import Pacing, Scheduler

    aws = connect(ctx.obj, planned.trials[0].plan.region)
    if queued.is_queued(planned):
        with _live(output if wait else OutputFormat.json) as notify:
            result = queued.run(aws, planned, wait, timeout_s, notify=notify, say=_say)
        _finish(result, output, results, waited=wait)
        return
    if not planned.key_given:
        stderr.print(
            f"sweep key [bold]{planned.key}[/bold]: rerun with --idempotency-key {planned.key} "
            "to attach to these trials"
        )
    parallel = max_parallel or planned.spec.sweep.max_parallel
    with _live(output if wait else OutputFormat.json) as notify:
        scheduler = Scheduler(
            aws,
            planned,
            parallel,
            Pacing(timeout_s=timeout_s),
            notify=notify,
            say=_say,
            check_quota=check_quota,
        )
        result = scheduler.run(wait)
    _finish(result, output, results, waited=wait)


def _finish(result: SweepResult, output: OutputFormat, results: Path | None, waited: bool) -> None:
    from sagelaunch.commands.sweep_view import results_table
    from sagelaunch.sweeps.results import conclude_sweep, write_results

    if results is not None:
        write_results(results, result)
        stderr.print(f"wrote the results to [bold]{results}[/bold]")
    if output is OutputFormat.json:
        print_json(result.as_json())
    else:
        _print_table(results_table(result, final=True))
    conclude_sweep(result, waited)


def _dry_run(stream: SweepStream, progress: Progress) -> None:
    """The trial table, a row as each trial is built and checked (so a bad trial fails the
    sweep before any request is made), then each trial's request as it is planned."""
    from sagelaunch.commands.sweep_view import TrialRows

    rows = TrialRows(stream.name, stream.sweep)
    _line(rows.title())
    _line(rows.header())
    checked = []
    for trial in stream.trials():
        _line(rows.row(trial))
        checked.append(trial)
    seen: set[str] = set()
    for trial in stream.plans(checked, progress):
        _warn([w for w in map(str, trial.plan.warnings) if w not in seen])
        seen.update(map(str, trial.plan.warnings))
        stdout.print(f"\n[bold]trial {trial.trial.index}[/bold] {trial.plan.job_name}")
        print_json(trial.plan.redacted().request)


def _line(text: str) -> None:
    """One line of the streamed table, sent at once (a pipe's reader sees it now)."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _live(output: OutputFormat):  # type: ignore[no-untyped-def]
    """A context giving the callback that redraws the live table (quiet for JSON)."""
    from sagelaunch.commands.sweep_view import live_table

    return live_table(enabled=output is OutputFormat.table and stderr.is_terminal)


def _progress(output: OutputFormat):  # type: ignore[no-untyped-def]
    return lambda: stderr.status("building the trials' requests with the SageMaker SDK (offline)…")


def _print_table(table: object) -> None:
    """A terminal's width where there is one; in CI logs and pipes the table's natural width,
    every cell whole (output.stdout is not bounded there), so job names stay on one line."""
    stdout.print(table)


def _warn(warnings: list[str]) -> None:
    """Each distinct warning once (trials share most of their config, and so their warnings)."""
    for warning in dict.fromkeys(warnings):
        stderr.print(f"[yellow]warning:[/yellow] {escape(warning)}", highlight=False)


def _say(message: str) -> None:
    stderr.print(message, highlight=False)

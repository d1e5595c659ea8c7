"""The `sagelaunch` command line: lazily registered commands and the one error boundary.

A command's module is imported only when that command runs (or shows its own --help): the
top-level --help is built from ``COMMANDS`` alone, so it costs no command module, no
`rich.markdown` and no `rich.traceback`. A test checks the table against each command's own
docstring.
"""

from __future__ import annotations

import importlib
from typing import Annotated, Any, NamedTuple

import typer
from typer.core import TyperGroup

from sagelaunch import __version__, completion, output
from sagelaunch.errors import ConfigError, ExitCode, SagelaunchError
from sagelaunch.help_format import TidyCommand


class Entry(NamedTuple):
    module: str  # under sagelaunch.commands
    function: str
    summary: str  # the first line of the function's docstring (tested)


COMMANDS: dict[str, Entry] = {
    "validate": Entry(
        "validate",
        "validate",
        "Load and check launch configs (schema and compatibility rules); no AWS calls.",
    ),
    "init": Entry(
        "init",
        "init",
        "Write a starter launch config from a template (one per distributed strategy).",
    ),
    "schema": Entry(
        "schema",
        "schema",
        "Print the launch-config JSON schema (editors use it for completion and hover docs).",
    ),
    "recommend": Entry(
        "recommend",
        "recommend",
        "Pick DDP, FSDP, SMP v2 or Neuron torchrun and an instance count from a memory model.",
    ),
    "instances": Entry(
        "instances",
        "instances",
        "Show the instance catalog: accelerators, memory, network, EFA, processes per host.",
    ),
    "plan": Entry(
        "plan",
        "plan",
        "Show exactly what submit would send: estimator, request, cost, topology, upload.",
    ),
    "submit": Entry(
        "submit",
        "submit",
        "Upload the code (unless unchanged) and create the training job, or attach to it.",
    ),
    "status": Entry(
        "jobs",
        "status",
        "Show a job: status, secondary status, failure reason, timings, transitions.",
    ),
    "wait": Entry(
        "jobs", "wait", "Wait for a job to end. Exit 0 Completed, 1 Failed, 4 Stopped, 5 timed out."
    ),
    "logs": Entry(
        "jobs",
        "logs",
        "Print a job's logs: every host, interleaved in time order, each line prefixed algo-N.",
    ),
    "stop": Entry("jobs", "stop", "Ask SageMaker to stop a job (it goes Stopping, then Stopped)."),
    "list": Entry(
        "jobs", "list_jobs", "List training jobs (or, with --tuning, tuning jobs), newest first."
    ),
    "local": Entry(
        "local",
        "local",
        "Run the job on this machine as the SageMaker container would.",
    ),
    "sweep": Entry(
        "sweep",
        "sweep",
        "Run one job per trial of the config's sweep: block (grid or random), with a results "
        "table.",
    ),
    "tune": Entry(
        "tune",
        "tune",
        "Create the config's tuning: block as a SageMaker tuning job (the SDK tuner's request).",
    ),
    "import": Entry(
        "import_",
        "import_job",
        "Turn an existing training job into a launch config that plans to the same request.",
    ),
    "export": Entry(
        "export",
        "export",
        "Write a runnable SageMaker SDK script that creates the same training job.",
    ),
    "metrics": Entry(
        "metrics", "metrics", "Show a job's or a local run's metrics over time: table, chart, PNG."
    ),
    "capacity": Entry(
        "capacity",
        "capacity",
        "Reserve GPU capacity as SageMaker training plans: search offerings, reserve, list, "
        "extend.",
    ),
}


class _LazyGroup(TyperGroup):
    """Commands from ``COMMANDS``, each built on first use; the boundary that turns
    SagelaunchError into a clean message and its exit code.

    Living in the group (rather than around `app()`) keeps the boundary in force under Typer's
    CliRunner too, so tests see exactly what users see.
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        from sagelaunch.cli_params import lighten

        lighten(self, ctx)  # --debug, --version, --help: no pydantic for plain flags
        return list(super().parse_args(ctx, args))

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        if cmd_name not in self.commands:
            self.commands[cmd_name] = _build(cmd_name, entry, ctx)
        return self.commands[cmd_name]

    def shell_complete(self, ctx: Any, incomplete: str) -> list[Any]:
        """Command names from the static table: a TAB builds no command module."""
        if incomplete.startswith("-"):
            return super().shell_complete(ctx, incomplete)  # the group's options
        return completion.commands(COMMANDS, incomplete)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """Plain help from the static table: no command module, no Rich help renderer."""
        self.format_usage(ctx, formatter)
        self.format_help_text(ctx, formatter)
        self.format_options(ctx, formatter)  # the group's options, then format_commands
        self.format_epilog(ctx, formatter)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, entry.summary) for name, entry in COMMANDS.items()])

    def invoke(self, ctx: Any) -> Any:  # typer's vendored click.Context
        debug = bool(ctx.params.get("debug"))
        try:
            return super().invoke(ctx)
        except SagelaunchError as exc:
            if debug:
                _print_traceback()
            _report(exc)
            raise typer.Exit(exc.exit_code) from None
        except (typer.Exit, typer.Abort, typer.TyperException):  # usage errors, --help, exits
            raise
        except BrokenPipeError:  # the reader left early (`sagelaunch plan --help | head`)
            _silence_stdout()
            raise typer.Exit(ExitCode.OK) from None
        except KeyboardInterrupt:
            output.stderr.print("[red]interrupted[/red]")
            raise typer.Exit(ExitCode.INTERRUPTED) from None
        except Exception as exc:
            if debug:
                _print_traceback()
            output.stderr.print(
                f"[red]internal error:[/red] {type(exc).__name__}: {exc}", markup=True
            )
            if not debug:
                output.stderr.print("rerun with --debug for the traceback, and please report it")
            raise typer.Exit(ExitCode.INTERNAL) from None


def _build(name: str, entry: Entry, ctx: Any) -> Any:
    """The click command of one entry: its module imported now, and only now. A module with
    ``SUBCOMMANDS`` (a Typer whose callback is the entry's function) is a group of them."""
    module = importlib.import_module(f"sagelaunch.commands.{entry.module}")
    from sagelaunch.cli_params import lighten

    group = getattr(module, "SUBCOMMANDS", None)
    if isinstance(group, typer.Typer):
        command = lighten(typer.main.get_group(group), ctx)
        for sub_name, sub in command.commands.items():
            completion.attach(f"{name} {sub_name}", lighten(sub, ctx))
        return command
    single = typer.Typer(add_completion=False, rich_markup_mode="rich")
    single.command(name, cls=TidyCommand)(getattr(module, entry.function))
    command = lighten(typer.main.get_command(single), ctx)
    completion.attach(name, command)
    return command


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that Python's flush at exit does not fail again."""
    import os
    import sys

    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _print_traceback() -> None:
    import traceback

    output.stderr.print(traceback.format_exc(), markup=False)


def _report(exc: SagelaunchError) -> None:
    from rich.markup import escape

    stderr = output.stderr
    if isinstance(exc, ConfigError):
        for problem in exc.problems:
            stderr.print(f"[red]error:[/red] {escape(str(problem))}", markup=True, highlight=False)
    else:
        stderr.print(f"[red]error:[/red] {escape(exc.message)}", markup=True, highlight=False)
    if exc.hint:
        stderr.print(f"[dim]hint:[/dim] {escape(exc.hint)}", markup=True)


app = typer.Typer(
    cls=_LazyGroup,
    name="sagelaunch",
    help="Validate, plan, submit, follow and locally run SageMaker training jobs "
    "from one YAML launch config.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion (sagelaunch/completion.py)
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"sagelaunch {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks for errors.")] = False,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """sagelaunch: SageMaker training jobs from one YAML launch config."""


def main() -> None:
    app()

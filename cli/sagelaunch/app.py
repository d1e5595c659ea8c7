"""The `sagelaunch` command line: command registration and the one error boundary."""

from __future__ import annotations

import traceback
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from sagelaunch import __version__
from sagelaunch.commands import init, jobs, local, plan, recommend, schema, submit, validate
from sagelaunch.errors import ConfigError, SagelaunchError
from sagelaunch.output import stderr

INTERNAL_ERROR = 70  # a bug in sagelaunch, not in the user's config or AWS


class _ErrorBoundary(TyperGroup):
    """Turns SagelaunchError into a clean message and its exit code (SPEC §4).

    Living in the group (rather than around `app()`) keeps the boundary in force under Typer's
    CliRunner too, so tests see exactly what users see.
    """

    def invoke(self, ctx: Any) -> Any:  # typer's vendored click.Context
        debug = bool(ctx.params.get("debug"))
        try:
            return super().invoke(ctx)
        except SagelaunchError as exc:
            if debug:
                stderr.print(traceback.format_exc(), markup=False)
            _report(exc)
            raise typer.Exit(exc.exit_code) from None
        except (typer.Exit, typer.Abort, typer.TyperException):  # usage errors, --help, exits
            raise
        except KeyboardInterrupt:
            stderr.print("[red]interrupted[/red]")
            raise typer.Exit(130) from None
        except Exception as exc:
            stderr.print(traceback.format_exc() if debug else "", markup=False, end="")
            stderr.print(f"[red]internal error:[/red] {type(exc).__name__}: {exc}", markup=True)
            if not debug:
                stderr.print("rerun with --debug for the traceback, and please report it")
            raise typer.Exit(INTERNAL_ERROR) from None


def _report(exc: SagelaunchError) -> None:
    if isinstance(exc, ConfigError):
        for problem in exc.problems:
            stderr.print(f"[red]error:[/red] {problem}", markup=True, highlight=False)
    else:
        stderr.print(f"[red]error:[/red] {exc.message}", markup=True, highlight=False)
    if exc.hint:
        stderr.print(f"[dim]hint:[/dim] {exc.hint}", markup=True)


app = typer.Typer(
    cls=_ErrorBoundary,
    name="sagelaunch",
    help="Validate, plan, submit, follow and locally run SageMaker training jobs "
    "from one YAML launch config.",
    no_args_is_help=True,
    add_completion=False,
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


app.command("validate")(validate.validate)
app.command("init")(init.init)
app.command("schema")(schema.schema)
app.command("recommend")(recommend.recommend)
app.command("plan")(plan.plan)
app.command("submit")(submit.submit)
app.command("status")(jobs.status)
app.command("wait")(jobs.wait)
app.command("logs")(jobs.logs)
app.command("stop")(jobs.stop)
app.command("list")(jobs.list_jobs)
app.command("local")(local.local)


def main() -> None:
    app()

"""The fast path stays fast: in a fresh interpreter, --help / validate / init / schema import none
of the heavy SDKs, no command module but the one that runs, and neither `rich.markdown` nor
`rich.traceback` for the top-level help and validate (other tests' imports cannot hide a
regression here)."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

from sagelaunch.app import COMMANDS
from tests.conftest import EXAMPLES

HEAVY = {
    *("sagemaker", "boto3", "botocore", "torch", "xgboost", "deepspeed", "moto", "numpy", "pandas"),
    *("tensorflow", "keras"),
}
RICH_EXTRAS = {"rich.markdown", "rich.traceback", "typer.rich_utils"}
COMMAND_MODULES = {f"sagelaunch.commands.{entry.module}" for entry in COMMANDS.values()}


def imported_modules(*args: str) -> set[str]:
    """Every module (dotted name) the command imported."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "sagelaunch", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode in (0, 2), proc.stderr[-2000:]
    lines = [line for line in proc.stderr.splitlines() if line.startswith("import time:")]
    assert lines, "importtime produced no data"
    return {line.rsplit("|", 1)[-1].strip() for line in lines}


@pytest.mark.parametrize(
    "args",
    [("--help",), ("validate", str(EXAMPLES)), ("init",), ("schema",), ("validate", "--help")],
)
def test_fast_path_imports_no_heavy_sdk(args):
    modules = imported_modules(*args)
    tops = {name.split(".")[0] for name in modules}
    assert "sagelaunch" in tops
    assert not (tops & HEAVY), f"{' '.join(args)} imported {sorted(tops & HEAVY)}"
    running = {f"sagelaunch.commands.{COMMANDS[args[0]].module}"} if args[0] in COMMANDS else set()
    others = (modules & COMMAND_MODULES) - running
    assert not others, f"{' '.join(args)} imported the modules of other commands: {others}"


@pytest.mark.parametrize("args", [("--help",), ("validate", str(EXAMPLES))])
def test_help_and_validate_skip_rich_markdown_and_traceback(args):
    modules = imported_modules(*args)
    assert not (modules & RICH_EXTRAS), sorted(modules & RICH_EXTRAS)


def test_the_static_help_table_matches_each_command():
    """The top-level --help lists COMMANDS without importing them: the table must stay true."""
    import importlib

    for name, entry in COMMANDS.items():
        function = getattr(
            importlib.import_module(f"sagelaunch.commands.{entry.module}"), entry.function
        )
        first_line = inspect.getdoc(function).splitlines()[0]
        assert entry.summary == first_line, name


def test_every_command_runs_its_own_help(cli):
    for name in COMMANDS:
        result = cli(name, "--help")
        assert result.exit_code == 0, (name, result.output)
        assert f"sagelaunch {name}" in result.output or name in result.output

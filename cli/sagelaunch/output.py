"""Output conventions shared by every command: Rich for people, stable JSON for CI."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

if TYPE_CHECKING:
    from rich.console import Console

    # Tables and results go to stdout; messages, progress and errors to stderr, so that
    # `--output json` on stdout is always parseable.
    stdout: Console
    stderr: Console

_consoles: dict[str, Console] = {}
T = TypeVar("T")


def __getattr__(name: str) -> Console:
    """``stdout`` and ``stderr``, made on first use: Rich costs a tenth of a second to import,
    which `--help` and a cached `validate` never pay."""
    if name not in ("stdout", "stderr"):
        raise AttributeError(name)
    if name not in _consoles:
        from rich.console import Console

        console = Console(stderr=name == "stderr", highlight=False, soft_wrap=True)
        if not console.is_terminal:
            # No terminal to fit (a pipe, a CI log, a file): Rich would draw tables 80 columns
            # wide (or $COLUMNS) and cut their cells ("resu…", two rows of one "name-…"). Wide
            # enough that every table is its natural width: each cell whole, on one line.
            console.width = UNBOUNDED_WIDTH
        _consoles[name] = console
    return _consoles[name]


# The width of a console that is not a terminal: a table is drawn at its natural width, never
# this wide (Rich pads a table to its columns, not to the console's width).
UNBOUNDED_WIDTH = 100_000


# One colour per emulated host or job host, in host order (local runs and job logs alike).
HOST_STYLES = ("cyan", "magenta", "green", "yellow", "blue", "red")


def host_style(index: int) -> str:
    """The style of the host at ``index`` (0 for algo-1)."""
    return HOST_STYLES[index % len(HOST_STYLES)]


class OutputFormat(str, Enum):
    table = "table"
    json = "json"


OutputOption = Annotated[
    OutputFormat,
    typer.Option("--output", "-o", help="table for people, json (stable keys) for CI."),
]
RegionOption = Annotated[
    str | None,
    typer.Option("--region", help="AWS region (default: config, $AWS_REGION, the profile's)."),
]
SetOption = Annotated[
    list[str] | None,
    typer.Option("--set", help="Override a config key: key.path=value (value parsed as YAML)."),
]
QueueOption = Annotated[
    str | None,
    typer.Option(
        "--queue",
        help="AWS Batch job queue (SAGEMAKER_TRAINING) the job waits in for capacity: its name "
        "or ARN (default: the config's compute.queue).",
    ),
]
IdempotencyKeyOption = Annotated[
    str | None,
    typer.Option(
        "--idempotency-key",
        envvar="SAGELAUNCH_IDEMPOTENCY_KEY",
        help="Same key + same request = same job names: a retry or rerun attaches to the jobs "
        "the key already created and creates only what is missing.",
    ),
]


def show(data: T, output: OutputFormat, render: Callable[[T], None]) -> None:
    """``data`` as JSON (stable keys, for CI) or drawn by ``render`` (for people)."""
    if output is OutputFormat.json:
        print_json(data)
    else:
        render(data)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")
    sys.stdout.flush()

"""Output conventions shared by every command: Rich for people, stable JSON for CI."""

from __future__ import annotations

import json
import sys
from enum import Enum
from typing import Annotated, Any

import typer
from rich.console import Console

# Tables and results go to stdout; messages, progress and errors to stderr, so that
# `--output json` on stdout is always parseable.
stdout = Console(highlight=False, soft_wrap=True)
stderr = Console(stderr=True, highlight=False, soft_wrap=True)


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


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")
    sys.stdout.flush()

"""Command help as users of a CLI expect it: flags without a type, values with the familiar
metavars (TEXT, INTEGER, PATH, [json|table]), arguments by name, docstrings reflowed.

Typer labels every option with its Python type (`--debug <bool>`, `--set <list[str]>`); the
command class below replaces those labels when the command lists its parameters, so every
command (and its --help option) gets the same treatment without repeating metavars per option.
"""

from __future__ import annotations

import re
from typing import Any, get_args

from typer.core import TyperCommand, TyperGroup

_NAMES = {str: "TEXT", int: "INTEGER", float: "FLOAT"}


def metavar(param: Any) -> str:
    """What follows the option or argument in help: "" for a flag."""
    if param.param_type_name == "argument":
        return str(param.name).upper()  # usage adds "..." to one that takes many
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return ""
    described = getattr(param, "type_descriptor", None)
    if described is None:
        return "VALUE"
    if described.choices:
        return "[" + "|".join(str(getattr(c, "value", c)) for c in described.choices) + "]"
    if described.is_path:
        return "PATH"
    annotation = described.annotation
    if described.is_list:
        annotation = get_args(annotation)[0]
    return _NAMES.get(annotation, getattr(annotation, "__name__", "VALUE").upper())


def reflow(text: str | None) -> str | None:
    """Paragraphs joined into lines (the terminal wraps them); blank lines and indented or
    bulleted lines kept as written."""
    if not text:
        return text
    paragraphs = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(_join(p) for p in paragraphs)


def _join(paragraph: str) -> str:
    lines = paragraph.splitlines()
    if any(line.startswith(("  ", "-", "*", "\b")) for line in lines[1:]):
        return paragraph  # a list or a block: as written
    return " ".join(line.strip() for line in lines)


class _Tidy:
    """Conventional metavars and reflowed paragraphs, for a command or a group."""

    help: str | None

    def get_params(self, ctx: Any) -> list[Any]:
        params: list[Any] = super().get_params(ctx)  # type: ignore[misc]
        for param in params:
            if param.metavar is not None:
                continue
            param.metavar = metavar(param)
            if param.param_type_name == "argument":
                # Its name column shows the metavar; the type column says what it takes.
                kind = "PATH" if getattr(param, "type_descriptor").is_path else "TEXT"  # noqa: B009
                setattr(param, "display_type_rich", lambda ctx, kind=kind: kind)  # noqa: B010
        return params

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self.help = reflow(self.help)
        super().format_help(ctx, formatter)  # type: ignore[misc]


class TidyCommand(_Tidy, TyperCommand):
    """A Typer command whose help shows conventional metavars and reflowed paragraphs."""


class TidyGroup(_Tidy, TyperGroup):
    """A group of subcommands (`capacity search`, ...) with its commands' help style."""

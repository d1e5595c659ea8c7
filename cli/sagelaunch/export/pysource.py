"""Python source for plain data: literals a reader can review, and keyword-argument calls."""

from __future__ import annotations

import json
from typing import Any

WIDTH = 100  # a line of the exported script, before it wraps a literal over several lines
INDENT = "    "


def literal(value: Any, depth: int = 0, used: int = 0) -> str:
    """``value`` (JSON-like data) as a Python expression, one line when it fits (``used``: what
    precedes it on its line besides the indent), else one item per line. Strings are
    JSON-quoted, which Python reads the same way."""
    flat = _flat(value)
    fits = len(INDENT) * depth + used + len(flat) + 1 <= WIDTH
    if fits or not isinstance(value, (dict, list)) or not value:
        return flat
    inner = INDENT * (depth + 1)
    if isinstance(value, dict):
        items = [
            f"{inner}{_flat(k)}: {literal(v, depth + 1, len(_flat(k)) + 2)},"
            for k, v in value.items()
        ]
        return "{\n" + "\n".join(items) + f"\n{INDENT * depth}}}"
    items = [f"{inner}{literal(v, depth + 1)}," for v in value]
    return "[\n" + "\n".join(items) + f"\n{INDENT * depth}]"


def _flat(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_flat(k)}: {_flat(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flat(v) for v in value) + "]"
    raise TypeError(f"no Python literal for {type(value).__name__}")


def call(
    function: str, kwargs: dict[str, Any], depth: int = 0, raw: frozenset[str] = frozenset()
) -> str:
    """``function(key=value, ...)``, one keyword per line. Keys in ``raw`` hold source text
    (a variable, another call) rather than data."""
    if not kwargs:
        return f"{function}()"
    inner = INDENT * (depth + 1)
    lines = [
        f"{inner}{key}={value if key in raw else literal(value, depth + 1, len(key) + 1)},"
        for key, value in kwargs.items()
    ]
    return f"{function}(\n" + "\n".join(lines) + f"\n{INDENT * depth})"


def source_list(items: list[str], depth: int = 0, used: int = 0) -> str:
    """``[a, b]`` of source texts (calls): one line when it fits, else one item per line."""
    flat = "[" + ", ".join(items) + "]"
    if len(INDENT) * depth + used + len(flat) + 1 <= WIDTH or not items:
        return flat
    inner = INDENT * (depth + 1)
    return "[\n" + "".join(f"{inner}{item},\n" for item in items) + f"{INDENT * depth}]"

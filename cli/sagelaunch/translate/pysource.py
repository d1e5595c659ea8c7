"""Python source for plain data: literals a reader can review, and keyword-argument calls."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sagelaunch.sdk.objects import is_call

WIDTH = 100  # a line of the exported script, before it wraps a literal over several lines
INDENT = "    "


@dataclass(frozen=True)
class Source:
    """Source text standing where data would (a variable holding a shared SDK object)."""

    text: str


def literal(value: Any, depth: int = 0, used: int = 0) -> str:
    """``value`` (JSON-like data) as a Python expression, one line when it fits (``used``: what
    precedes it on its line besides the indent), else one item per line. Strings are
    JSON-quoted, which Python reads the same way."""
    flat = _flat(value)
    fits = len(INDENT) * depth + used + len(flat) + 1 <= WIDTH
    if fits or not isinstance(value, (dict, list)) or not value:
        return flat
    if isinstance(value, dict) and is_call(value):
        return sdk_call(value, depth)
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
    if isinstance(value, Source):
        return value.text
    if is_call(value):
        args = [_flat(a) for a in value.get("args", [])]
        kwargs = [f"{k}={_flat(v)}" for k, v in value.get("kwargs", {}).items()]
        return f"{value['sdk']}({', '.join(args + kwargs)})"
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


def sdk_call(value: dict[str, Any], depth: int = 0) -> str:
    """An SDK object's description (sdk/objects.py) as the call that makes it, one argument a
    line."""
    inner = INDENT * (depth + 1)
    args = [f"{inner}{literal(a, depth + 1)}," for a in value.get("args", [])]
    kwargs = [
        f"{inner}{key}={literal(v, depth + 1, len(key) + 1)},"
        for key, v in value.get("kwargs", {}).items()
    ]
    return f"{value['sdk']}(\n" + "\n".join(args + kwargs) + f"\n{INDENT * depth})"


def sdk_modules(value: Any) -> set[str]:
    """The ``sagemaker.X`` modules a script imports to reach every SDK call in ``value``."""
    if is_call(value):
        found = {".".join(value["sdk"].split(".")[:2])}
        return found | sdk_modules(value.get("args", [])) | sdk_modules(value.get("kwargs", {}))
    if isinstance(value, dict):
        return set().union(*(sdk_modules(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(sdk_modules(v) for v in value))
    return set()


def hoist_shared(value: Any, prefix: str = "shared") -> tuple[Any, list[tuple[str, Any]]]:
    """``value`` with every SDK call that occurs more than once replaced by a variable, and the
    variables' definitions: the SDK compares some objects by identity (an InstanceGroup named in
    both instance_groups and distribution), so a script must pass one object twice, as planning
    does."""
    counts: dict[str, int] = {}

    def count(item: Any) -> None:
        if is_call(item):
            key = json.dumps(item, sort_keys=True)
            counts[key] = counts.get(key, 0) + 1
        if isinstance(item, dict):
            for v in item.values():
                count(v)
        elif isinstance(item, list):
            for v in item:
                count(v)

    count(value)
    names: dict[str, str] = {}
    definitions: list[tuple[str, Any]] = []

    def swap(item: Any) -> Any:
        if is_call(item):
            key = json.dumps(item, sort_keys=True)
            if counts[key] > 1:
                if key not in names:
                    names[key] = _variable(item, f"{prefix}_{len(names) + 1}", set(names.values()))
                    definitions.append((names[key], item))
                return Source(names[key])
            return item
        if isinstance(item, dict):
            return {k: swap(v) for k, v in item.items()}
        if isinstance(item, list):
            return [swap(v) for v in item]
        return item

    return swap(value), definitions


def _variable(description: dict[str, Any], fallback: str, taken: set[str]) -> str:
    """A readable name for a shared SDK object: an instance group's own name when it is one."""
    name = str(description.get("kwargs", {}).get("instance_group_name", ""))
    return name if name.isidentifier() and name not in taken else fallback


def source_list(items: list[str], depth: int = 0, used: int = 0) -> str:
    """``[a, b]`` of source texts (calls): one line when it fits, else one item per line."""
    flat = "[" + ", ".join(items) + "]"
    if len(INDENT) * depth + used + len(flat) + 1 <= WIDTH or not items:
        return flat
    inner = INDENT * (depth + 1)
    return "[\n" + "".join(f"{inner}{item},\n" for item in items) + f"{INDENT * depth}]"

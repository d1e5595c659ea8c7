"""The config reference page, generated from LaunchConfig's JSON schema (never written by hand).

Every key of the schema becomes one row: its dotted path, type, default, description, and an
example value taken from the configs in launch_configs/ (real, validated configs) when one sets it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from tables import cell, code

Row = dict[str, str]


def schema() -> dict[str, Any]:
    from sagelaunch.commands.schema import json_schema

    return json_schema()


def _resolve(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target = defs[node["$ref"].rsplit("/", 1)[1]]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def _variants(node: dict[str, Any], defs: dict[str, Any]) -> list[dict[str, Any]]:
    node = _resolve(node, defs)
    alternatives = node.get("anyOf") or node.get("oneOf")
    if not alternatives:
        return [node]
    return [v for alt in alternatives for v in _variants(alt, defs)]


def _type(node: dict[str, Any], defs: dict[str, Any]) -> str:
    names = []
    for variant in _variants(node, defs):
        if "const" in variant:
            name = json.dumps(variant["const"])
        elif "enum" in variant:
            name = " | ".join(json.dumps(v) for v in variant["enum"])
        elif variant.get("type") == "array":
            name = f"list[{_type(variant.get('items', {}), defs)}]"
        elif "title" in variant and variant.get("type") == "object" and "properties" in variant:
            name = variant["title"]
        else:
            name = str(variant.get("type", "any"))
        if name not in names:
            names.append(name)
    return " | ".join(names)


def _children(node: dict[str, Any], defs: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(suffix, schema) of every key below this one: object keys, list items, mapping values."""
    for variant in _variants(node, defs):
        for key, child in variant.get("properties", {}).items():
            yield f".{key}", child
        if variant.get("type") == "array" and "items" in variant:
            for suffix, child in _children(variant["items"], defs):
                yield f"[]{suffix}", child
        extra = variant.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            for suffix, child in _children(extra, defs):
                yield f".<name>{suffix}", child


def rows(root: dict[str, Any] | None = None) -> list[Row]:
    root = root or schema()
    defs = root.get("$defs", {})
    examples = example_values()
    found: dict[str, Row] = {}

    def walk(prefix: str, node: dict[str, Any]) -> None:
        for suffix, child in _children(node, defs):
            path = (prefix + suffix).lstrip(".")
            resolved = _resolve(child, defs)
            if path not in found:
                found[path] = {
                    "key": path,
                    "type": _type(child, defs),
                    "default": _default(resolved),
                    "description": resolved.get("description", ""),
                    "example": examples.get(path, ""),
                }
            walk(path, child)

    walk("", root)
    return list(found.values())


def _default(node: dict[str, Any]) -> str:
    return json.dumps(node["default"]) if "default" in node else ""


def example_values(folder: Path = Path("launch_configs")) -> dict[str, str]:
    """The first value each dotted key has in the example configs (lists of mappings as `[]`)."""
    values: dict[str, str] = {}

    def flatten(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, child in value.items():
                flatten(f"{prefix}.{key}" if prefix else str(key), child)
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for child in value:
                flatten(f"{prefix}[]", child)
        elif prefix and prefix not in values:
            values[prefix] = json.dumps(value, default=str)

    for path in sorted(folder.glob("**/*.yaml")):
        flatten("", yaml.safe_load(path.read_text()))
    return values


def markdown() -> str:
    lines = [
        "# Config reference",
        "",
        "Generated from the launch-config model (`sagelaunch.config.model.LaunchConfig`) when the",
        "site is built: every key, its type, default and description. Examples are the values the",
        "configs in `launch_configs/` give it. `[]` is an item of a list, `<name>` a key you",
        "choose.",
        "`sagelaunch schema` prints the same schema as JSON (editors complete from it).",
        "",
        "| key | type | default | description | example |",
        "|---|---|---|---|---|",
    ]
    for row in rows():
        cells = [code(row["key"]), code(row["type"]), row["default"] and code(row["default"])]
        cells += [row["description"], row["example"] and code(row["example"])]
        lines.append("| " + " | ".join(cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"

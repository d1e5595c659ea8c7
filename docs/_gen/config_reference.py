"""The config reference page, generated from LaunchConfig's JSON schema (never written by hand).

Every key of the schema becomes one row: its dotted path, type, default, description, and an
example value taken from the configs in launch_configs/ (real, validated configs) when one sets it.
A union of models told apart by a constant key (`distribution`, by `strategy`) is one row whose
type links to one table per member: each member's keys, from its own model, under its own
heading, with the examples of the configs that choose it (as dstack renders one page per
configuration type).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from markdown.extensions.toc import slugify
from tables import cell, code

Row = dict[str, str]
COLUMNS = ("key", "type", "default", "description", "example")


@dataclass
class Table:
    """One table of the page: the config's keys, or one union member's (`heading` set)."""

    heading: str = ""
    intro: list[str] = field(default_factory=list)
    rows: dict[str, Row] = field(default_factory=dict)  # by key, in schema order

    @property
    def anchor(self) -> str:
        """The id the `toc` extension gives the heading (what the union's row links to)."""
        return slugify(self.heading.replace("`", ""), "-")


@dataclass(frozen=True)
class Member:
    """One model of a union: the value of the key that selects it, and its schema."""

    value: Any
    node: dict[str, Any]


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


def members(node: dict[str, Any], defs: dict[str, Any]) -> tuple[str, list[Member]] | None:
    """The key that tells a union's models apart and each model, or None (not such a union):
    several models, each with a constant at that key."""
    models = [v for v in _variants(node, defs) if "properties" in v]
    if len(models) < 2:
        return None
    for key in models[0]["properties"]:
        consts = [_resolve(m["properties"].get(key, {}), defs) for m in models]
        if all("const" in c for c in consts):
            return key, [Member(c["const"], m) for c, m in zip(consts, models, strict=True)]
    return None


def tables(root: dict[str, Any] | None = None) -> list[Table]:
    """The page's tables: the config's keys first, then one per member of each union."""
    root = root or schema()
    defs = root.get("$defs", {})
    documents = _documents()
    found = [Table()]

    def walk(table: Table, examples: dict[str, str], prefix: str, node: dict[str, Any]) -> None:
        for suffix, child in _children(node, defs):
            path = (prefix + suffix).lstrip(".")
            union, new = members(child, defs), path not in table.rows
            if new:
                table.rows[path] = _row(path, child, defs, examples)
            if union is None:
                walk(table, examples, path, child)
            elif new:
                table.rows[path]["type_markdown"] = split(path, *union)

    def split(path: str, key: str, chosen: list[Member]) -> str:
        """One table per member, walked from its own model; the union's type links to each."""
        links = []
        for member in chosen:
            choosing = [d for d in documents if _chooses(d, path, key, member)]
            own = _member_table(path, key, member, choosing)
            found.append(own)
            links.append(f"[{code(_scalar(member.value))}](#{own.anchor})")
            walk(own, example_values(choosing), path, member.node)
            first = f"{path}.{key}"  # the key that selects the model heads its table
            own.rows = {k: own.rows[k] for k in sorted(own.rows, key=lambda k: k != first)}
        return f"by {code(key)}: " + " | ".join(links)

    walk(found[0], example_values(documents), "", root)
    return found


def rows(root: dict[str, Any] | None = None) -> list[Row]:
    """Every row of every table (a key several members share has a row in each)."""
    return [row for table in tables(root) for row in table.rows.values()]


def _row(path: str, node: dict[str, Any], defs: dict[str, Any], examples: dict[str, str]) -> Row:
    resolved = _resolve(node, defs)
    return {
        "key": path,
        "type": _type(node, defs),
        "default": _default(resolved),
        "description": resolved.get("description", ""),
        "example": examples.get(path, ""),
    }


def _member_table(path: str, key: str, member: Member, choosing: list[Document]) -> Table:
    """The member's heading and what it says above its table: the model's description, the
    value that selects it, and the fullest example among the configs that choose it."""
    chosen_by = f"`{key}: {_scalar(member.value)}`"
    table = Table(heading=f"`{path}` with {chosen_by}")
    absent = (
        f" (also what an absent `{key}` means)"
        if "default" in member.node["properties"][key]
        else ""
    )
    table.intro.append(
        f"{member.node.get('description', '')} Model `{member.node.get('title', '')}`: "
        f"{chosen_by} selects it{absent}; with it, `{path}` accepts only the keys below."
    )
    if choosing:
        where, document = max(choosing, key=lambda d: len(_at(d[1], path)))
        example = yaml.safe_dump({path: _at(document, path)}, sort_keys=False).strip()
        table.intro += ["", f"In `{where}`:", "", "```yaml", example, "```"]
    return table


def _scalar(value: Any) -> str:
    """A constant as YAML writes it plainly: `torchrun`, `2`, `true`."""
    return value if isinstance(value, str) else json.dumps(value)


def _default(node: dict[str, Any]) -> str:
    return json.dumps(node["default"]) if "default" in node else ""


Document = tuple[str, Any]  # (path, the loaded YAML)


def _documents(folder: Path = Path("launch_configs")) -> list[Document]:
    return [(str(p), yaml.safe_load(p.read_text())) for p in sorted(folder.glob("**/*.yaml"))]


def _at(document: Any, path: str) -> Any:
    """The value at a dotted path of plain keys (None where it is absent or crosses a list)."""
    for part in path.split("."):
        document = document.get(part) if isinstance(document, dict) else None
    return document


def _chooses(document: Document, path: str, key: str, member: Member) -> bool:
    section = _at(document[1], path)
    default = member.node["properties"][key].get("default")
    return isinstance(section, dict) and section.get(key, default) == member.value


def example_values(documents: list[Document] | None = None) -> dict[str, str]:
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

    for _, document in _documents() if documents is None else documents:
        flatten("", document)
    return values


def markdown() -> str:
    main, *others = tables()
    lines = [
        "# Config reference",
        "",
        "Generated from the launch-config model (`sagelaunch.config.model.LaunchConfig`) when the",
        "site is built: every key, its type, default and description. Examples are the values the",
        "configs in `launch_configs/` give it. `[]` is an item of a list, `<name>` a key you",
        "choose. A key whose type is a choice of models (`distribution`: by `strategy`) links to",
        "one table per model below, each with the keys that model accepts.",
        "`sagelaunch schema` prints the same schema as JSON (editors complete from it).",
        "",
        *_table(main),
    ]
    for table in others:
        lines += ["", f"## {table.heading}", "", *table.intro, "", *_table(table)]
    return "\n".join(lines) + "\n"


def _table(table: Table) -> list[str]:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|---|---|---|---|---|"]
    for row in table.rows.values():
        cells = [code(row["key"]), row.get("type_markdown") or code(row["type"])]
        cells += [row["default"] and code(row["default"]), row["description"]]
        cells += [row["example"] and code(row["example"])]
        lines.append("| " + " | ".join(cell(c) for c in cells) + " |")
    return lines

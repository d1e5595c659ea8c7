"""YAML documents that remember where every key came from.

ruamel's round-trip loader keeps line/column for each key; we flatten that into a position index
(key path -> file, line, col) next to plain Python data, so every later error — pydantic's, a
compatibility rule's, the SDK's — can point at the YAML line the user has to fix.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq, TaggedScalar
from ruamel.yaml.constructor import ConstructorError, RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import Event
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.parser import RoundTripParser

from sagelaunch.config.yamlguard import CORE, ShapeGuard, tag_refusal
from sagelaunch.errors import ConfigError, Problem

KeyPath = tuple[str | int, ...]
Position = tuple[str, int, int]  # file, 1-based line, 1-based column

# Keys whose unquoted numbers must keep their exact text: `framework_version: 1.10` is "1.10".
_VERBATIM_KEYS = frozenset({"framework_version"})
_NUMBER_TOKEN = re.compile(r"[-+]?[0-9][0-9._eE+-]*")
_KEY_TOKEN = re.compile(r"[^\s:,\[\]{}]*")


@dataclass
class Document:
    """Plain data plus where each key path was written."""

    data: Any
    label: str  # the file (or --set flag) a missing key is reported against
    positions: dict[KeyPath, Position] = field(default_factory=dict)
    sources: list[Path] = field(default_factory=list)  # the files read (a base's too), resolved

    def position(self, path: KeyPath) -> Position:
        """Position of ``path``, or of its nearest written ancestor."""
        for end in range(len(path), -1, -1):
            found = self.positions.get(tuple(path[:end]))
            if found:
                return found
        return (self.label, 1, 1)


def format_path(path: KeyPath) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


class _TextDates(RoundTripConstructor):
    """An unquoted date or time (``start: 2024-01-01``) is the text written: a launch config's
    values are text, numbers, booleans, null, lists and mappings (hyperparameters reach the
    job as text, and the SDK's JSON cannot carry a date). An explicit ``!!timestamp`` is
    refused at its tag (yamlguard)."""


_TextDates.add_constructor(CORE + "timestamp", lambda self, node: str(node.value))


def _number(construct: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """ruamel's number constructor, its crash on a text it resolved as a number and cannot
    read (``0b_``, ``-0x_``: an IndexError; found by the fuzz test) a located YAML error."""

    def checked(self: Any, node: Any) -> Any:
        try:
            return construct(self, node)
        except (ValueError, IndexError):
            raise ConstructorError(
                problem=f"{node.value!r} reads as a number but is none: quote it to keep it as "
                "text, or write the number",
                problem_mark=node.start_mark,
            ) from None

    return checked


for _kind in ("int", "float"):
    _TextDates.add_constructor(
        CORE + _kind, _number(RoundTripConstructor.yaml_constructors[CORE + _kind])
    )


def _yaml(label: str) -> YAML:
    """The round-trip loader, its parser's events checked by a ShapeGuard as they are composed:
    alias bombs, deep nesting and tags a plain value cannot have are refused before they load,
    in one read of the text."""
    guard = ShapeGuard(label)

    class GuardedParser(RoundTripParser):
        def get_event(self) -> Event:
            event = super().get_event()
            guard.see(event)
            refusal = tag_refusal(label, event, self._implicit)
            if refusal is not None:
                raise refusal
            return event

        def _implicit(self, text: str) -> str:
            tag = str(self.loader.resolver.resolve(ScalarNode, text, (True, False)))
            return tag.removeprefix(CORE)

    yaml = YAML(typ="rt")
    yaml.Parser = GuardedParser
    yaml.Constructor = _TextDates
    yaml.allow_duplicate_keys = False
    return yaml


def parse_text(text: str, label: str, key: str | None = None) -> Document:
    """Parse one YAML document; syntax errors become located ConfigErrors. ``key``: the key
    the whole document is the value of (a `--set key=value`), read as a file reads its value."""
    try:
        root = _yaml(label).load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        message = _syntax_message(exc, text, line)
        raise ConfigError([Problem(label, line, col, "", message)]) from None
    except ValueError as exc:
        # ruamel's scalar constructors raise plain ValueError on some malformed numbers
        # (e.g. a "0x" prefix followed by text); found by the fuzz test.
        raise ConfigError([Problem(label, 1, 1, "", f"invalid YAML: {exc}")]) from None
    except YAMLError as exc:  # pragma: no cover - ruamel raises Marked errors for documents
        raise ConfigError([Problem(label, 1, 1, "", f"invalid YAML: {exc}")]) from None
    doc = Document(data=None, label=label)
    lines = text.splitlines()
    if key is not None:
        root = _verbatim(key, root, lambda: _NUMBER_TOKEN.match(text.lstrip()))
    doc.data = _plain(root, (), doc.positions, label, lines)
    return doc


def _syntax_message(exc: MarkedYAMLError, text: str, line: int) -> str:
    problem = (exc.problem or str(exc)).strip()
    lines = text.splitlines()
    if "\t" in (lines[line - 1] if 0 < line <= len(lines) else ""):
        return "tab characters are not allowed in YAML indentation: use spaces"
    if "duplicate key" in problem:
        return problem.replace("found ", "") + " (each key may appear once)"
    return f"invalid YAML: {problem}"


def _plain(node: Any, path: KeyPath, positions: dict, label: str, lines: list[str]) -> Any:
    if isinstance(node, CommentedMap):
        result: dict[str, Any] = {}
        for key, value in node.items():
            line, col = _key_position(node, key)
            name = _key_name(key, (label, line + 1, col + 1), lines)
            child = (*path, name)
            positions[child] = (label, line + 1, col + 1)
            value = _verbatim(name, value, partial(_source_token, node, key, lines))
            result[name] = _plain(value, child, positions, label, lines)
        return result
    if isinstance(node, CommentedSeq):
        items = []
        for index, value in enumerate(node):
            line, col = node.lc.item(index)
            item_path = (*path, index)
            positions[item_path] = (label, line + 1, col + 1)
            items.append(_plain(value, item_path, positions, label, lines))
        return items
    if isinstance(node, TaggedScalar):  # !!str x: the only tag left on a scalar (yamlguard)
        return str(node.value)
    if isinstance(node, bool):
        return bool(node)
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return str(node)
    return node


def _key_name(key: Any, where: Position, lines: list[str]) -> str:
    """A mapping key as the name it is: text (a date's as written, ``!!str 1`` the text "1"), an
    integer's digits; a key YAML reads as true/false, null, a float or a collection names
    nothing the user meant (``true`` would become "True"): refused, with the fix."""
    if isinstance(key, TaggedScalar):
        return str(key.value)
    if isinstance(key, str):
        return str(key)
    if isinstance(key, int) and not isinstance(key, bool):
        return str(int(key))
    if isinstance(key, (bool, float)) or key is None:
        kind = {bool: "true/false", type(None): "null"}.get(type(key), "a number")
        _, line, col = where
        written = _KEY_TOKEN.match(lines[line - 1][col - 1 :] if line <= len(lines) else "")
        text = written.group(0) if written else ""
        message = f"this key is read as {kind}, not as a name: quote it ('{text}': ...)"
        if not text:
            message = "this key is empty: write a name before the ':'"
    else:
        message = "a key must be a single name, not a list or a mapping: write one name"
    raise ConfigError([Problem(*where, "", message)])


def _key_position(node: CommentedMap, key: Any) -> tuple[int, int]:
    """0-based line and column of ``key``; a key merged in with `<<` is found in its own map."""
    if key in (node.lc.data or {}):  # None in a mapping that holds only a `<<` merge
        return node.lc.key(key)
    for merged in node.merge:
        if key in merged:
            return _key_position(merged, key)
    return node.lc.line or 0, node.lc.col or 0


def _verbatim(key: str, value: Any, token: Callable[[], re.Match[str] | None]) -> Any:
    """The value of ``key``, its number kept as written where the key asks for it."""
    if key not in _VERBATIM_KEYS or not isinstance(value, (int, float)) or value is True:
        return value
    found = token()
    return found.group(0) if found else value


def _source_token(node: CommentedMap, key: Any, lines: list[str]) -> re.Match[str] | None:
    if key not in node.lc.data:  # merged in with `<<`: its text is elsewhere
        return None
    line, col = node.lc.value(key)
    return _NUMBER_TOKEN.match(lines[line][col:]) if line < len(lines) else None


def read_document(path: Path) -> Document:
    label = str(path)
    doc = parse_text(_read_text(path, label), label)
    doc.sources = [path.resolve()]
    if doc.data is None:
        raise ConfigError(
            [Problem(label, 1, 1, "", "empty file: expected a launch config mapping")]
        )
    if not isinstance(doc.data, dict):
        kind = type(doc.data).__name__
        raise ConfigError(
            [Problem(label, 1, 1, "", f"top level must be a mapping of keys, not a {kind}")]
        )
    return doc


def _read_text(path: Path, label: str) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError([Problem(label, 1, 1, "", "file not found")]) from None
    except IsADirectoryError:
        message = "is a folder: name one config file in it (e.g. DIR/train.yaml)"
        raise ConfigError([Problem(label, 1, 1, "", message)]) from None
    except OSError as exc:
        raise ConfigError([Problem(label, 1, 1, "", f"cannot read: {exc}")]) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError([_not_utf8(data, exc, label)]) from None


def _not_utf8(data: bytes, exc: UnicodeDecodeError, label: str) -> Problem:
    """Where the first byte that is not UTF-8 sits: line, and column counted in bytes."""
    line_start = data.rfind(b"\n", 0, exc.start) + 1
    line = data.count(b"\n", 0, exc.start) + 1
    message = (
        f"not UTF-8: byte 0x{data[exc.start]:02x} at byte {exc.start} of the file "
        "(column counted in bytes); save the file as UTF-8"
    )
    return Problem(label, line, exc.start - line_start + 1, "", message)

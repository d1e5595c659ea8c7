"""Load launch configs: `extends:` chains, `--set` overrides, and the model, with located errors."""

from __future__ import annotations

import difflib
import functools
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from sagelaunch.catalog import facts
from sagelaunch.config.debugger_settings import SETTINGS, SWITCH
from sagelaunch.config.model import LaunchConfig
from sagelaunch.config.paths import config_files, default_source_dir, resolve_source_dir
from sagelaunch.config.sweep import RANGE_TAGS
from sagelaunch.config.yamlsource import (
    Document,
    KeyPath,
    Position,
    format_path,
    parse_text,
    read_document,
)
from sagelaunch.errors import MAX_PROBLEMS, ConfigError, Problem, more
from sagelaunch.strategies import registry

SET_LABEL = "--set"
# How many bases an `extends:` chain may have: a team's chain is a handful deep; a runaway one
# (generated, or a loop through ever-new paths) is refused at the extends that goes too far,
# not left to exhaust the recursion.
MAX_EXTENDS = 32
SWITCH_TAGS = (SWITCH, SETTINGS)
__all__ = ["LoadedConfig", "config_files", "default_source_dir", "load"]


@dataclass(frozen=True)
class LoadedConfig:
    """A validated config with the file it came from and where each key was written."""

    path: Path
    config: LaunchConfig
    document: Document

    def problem(self, path: KeyPath, message: str, severity: str = "error") -> Problem:
        file, line, col = self.document.position(path)
        return Problem(file, line, col, format_path(path), message, severity)

    def error(self, path: KeyPath, message: str) -> ConfigError:
        """A located error to raise: ``raise loaded.error(("role",), "...")``."""
        return ConfigError([self.problem(path, message)])

    @property
    def source_dir(self) -> Path:
        """The code directory: relative to the config file, default beside it, else the
        framework's shipped entry points (paths.py)."""
        config = self.config
        return resolve_source_dir(
            self.path, config.source_dir, config.entry_point, config.framework
        )


def load(path: Path, overrides: list[str] | None = None) -> LoadedConfig:
    """Load, merge and validate one launch config; raise ConfigError with located problems."""
    return from_document(path, load_document(path, overrides))


def load_document(path: Path, overrides: list[str] | None = None) -> Document:
    """The merged document (extends, then --set), not yet validated: what sweeps vary."""
    doc = _resolve_extends(path, chain=())
    apply_overrides(doc, overrides or [])
    return doc


def from_document(path: Path, doc: Document) -> LoadedConfig:
    """Validate a merged document; ConfigError with its problems located."""
    return LoadedConfig(path=path, config=_validate(doc), document=doc)


# --- extends -------------------------------------------------------------------------------------


def _resolve_extends(path: Path, chain: tuple[Path, ...]) -> Document:
    doc = read_document(path)
    base_ref = doc.data.get("extends")
    if base_ref is None:
        return doc
    where = doc.position(("extends",))
    if not isinstance(base_ref, str):
        raise ConfigError([Problem(*where, "extends", "must be a path to a base config")])
    base_path = (path.parent / base_ref).resolve()
    if len(chain) >= MAX_EXTENDS:  # this file would be base number MAX_EXTENDS + 1
        message = (
            f"extends chain longer than {MAX_EXTENDS} bases (from {chain[0]}): merge some of "
            "the bases into one, or extend a base nearer the top of the chain"
        )
        raise ConfigError([Problem(*where, "extends", message)])
    if base_path in (*chain, path.resolve()):
        cycle = " -> ".join(str(p) for p in (*chain, path.resolve(), base_path))
        raise ConfigError([Problem(*where, "extends", f"extends cycle: {cycle}")])
    if not base_path.is_file():
        raise ConfigError([Problem(*where, "extends", f"base config not found: {base_path}")])
    base = _resolve_extends(base_path, (*chain, path.resolve()))
    del doc.data["extends"]
    return _merge(base, doc)


def _merge(base: Document, over: Document) -> Document:
    """Deep merge: maps merge key by key, lists and scalars from ``over`` replace."""
    positions = {key: pos for key, pos in base.positions.items() if not _replaced(key, over.data)}
    positions.update(over.positions)
    merged = Document(_merge_data(base.data, over.data), over.label, positions)
    merged.sources = [*base.sources, *over.sources]
    return merged


def _merge_data(base: Any, over: Any) -> Any:
    if isinstance(base, dict) and isinstance(over, dict):
        merged = dict(base)
        for key, value in over.items():
            merged[key] = _merge_data(base[key], value) if key in base else value
        return merged
    return over


def _replaced(path: KeyPath, over: Any) -> bool:
    """True when ``over`` replaces the value at ``path`` (or an ancestor) with a non-mapping."""
    node = over
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
        if not isinstance(node, dict):
            return True
    return False


# --- --set ---------------------------------------------------------------------------------------


def apply_overrides(doc: Document, overrides: list[str]) -> None:
    """Apply `--set key.path=value` overrides to ``doc``, in order."""
    for override in overrides:
        _apply_override(doc, override)


def _apply_override(doc: Document, override: str) -> None:
    key, sep, raw = override.partition("=")
    parts = [p for p in key.strip().split(".") if p]
    if not sep or not parts:
        problem = Problem(SET_LABEL, 1, 1, "", f"{override!r}: expected key.path=value")
        raise ConfigError([problem])
    value = parse_text(raw, f"{SET_LABEL} {key}", key=parts[-1]).data if raw.strip() else ""
    position = (f"{SET_LABEL} {override}", 1, 1)
    assign(doc, tuple(parts), value, position)
    for depth in range(1, len(parts)):
        doc.positions[tuple(parts[:depth])] = position


def assign(doc: Document, path: tuple[str, ...], value: Any, position: Position) -> None:
    """Set the key at ``path`` (maps created as needed), written at ``position``: the one way a
    `--set` flag and a sweep's trial change a config, so their errors point where they were
    written (the flag, or the sweep's line for the value)."""
    node = doc.data
    for depth, part in enumerate(path[:-1], start=1):
        child = node.get(part)
        if not isinstance(child, dict):
            child = node[part] = {}
            doc.positions[path[:depth]] = position
        node = child
    node[path[-1]] = value
    for old in [p for p in doc.positions if p[: len(path)] == path]:
        del doc.positions[old]  # the value replaced keys written below it
    doc.positions[path] = position


# --- model validation ----------------------------------------------------------------------------


def _validate(doc: Document) -> LaunchConfig:
    try:
        return LaunchConfig.model_validate(doc.data)
    except ValidationError as exc:
        raise ConfigError(_problems(doc, exc.errors())) from None


def _problems(doc: Document, errors: list[Any]) -> list[Problem]:
    """pydantic's errors as located problems, in file order, each written once: only the first
    MAX_PROBLEMS get a message (a did-you-mean is a fuzzy match); the rest are counted."""
    located = sorted(
        ((doc.position(loc), loc, error) for error in errors for loc in [_location(error)]),
        key=lambda item: item[0],
    )
    problems: dict[tuple[str, str], Problem] = {}
    listed: dict[KeyPath, int] = {}  # where the valid keys of a mapping were listed
    for index, (_, loc, error) in enumerate(located):
        problem = _problem(doc, loc, error, listed)
        problems.setdefault((problem.path, problem.message), problem)
        if len(problems) > MAX_PROBLEMS:
            rest = {
                (format_path(loc), error["type"], str(error["msg"]))
                for _, loc, error in located[index + 1 :]
            }
            return [*problems.values(), *([more(problem, len(rest))] if rest else [])]
    return list(problems.values())


def _location(error: Any) -> KeyPath:
    """The key path an error is about, as written in the YAML."""
    loc = _without_union_tag(tuple(error["loc"]))
    if not loc and error["type"] == "value_error":
        return _key_named_in(str(error["msg"]))
    if error["type"] == "union_tag_invalid":
        return (*loc, "strategy")
    return loc


def _problem(doc: Document, loc: KeyPath, error: Any, listed: dict[KeyPath, int]) -> Problem:
    kind = error["type"]
    file, line, col = doc.position(loc)
    if kind == "extra_forbidden" and loc[:1] == ("distribution",) and len(loc) == 2:
        message = _not_for_strategy(doc, str(loc[1]), listed, line)
    elif kind == "extra_forbidden" and len(loc) == 1 and str(loc[0]) in _legacy_arguments():
        message = _legacy_message(str(loc[0]))
    elif kind == "extra_forbidden":
        message = f"unknown key {loc[-1]!r}" + _did_you_mean(loc, listed, line)
    elif kind == "union_tag_invalid":
        message = f"strategy must be one of {', '.join(registry.names())}"
    elif kind == "missing":
        message = f"missing required key {loc[-1]!r}"
    else:
        message = pydantic_message(error)
    return Problem(file, line, col, format_path(loc), message)


def _legacy_arguments() -> dict[str, str]:
    return dict(facts.load("tensorflow")["legacy_estimator_arguments"])


def _legacy_message(key: str) -> str:
    """TF 1.x framework-mode estimator arguments, which SDK v2 removed: say where each went."""
    return (
        f"{key} is a legacy TensorFlow 1.x estimator argument that SageMaker SDK v2 removed "
        f"(script mode only): {_legacy_arguments()[key]}"
    )


def _without_union_tag(loc: KeyPath) -> KeyPath:
    """pydantic puts the strategy tag in the location (distribution.mpi.key); the YAML has none."""
    if len(loc) > 1 and loc[0] == "distribution" and loc[1] in registry.names():
        return (loc[0], *loc[2:])
    if len(loc) > 1 and loc[1] in SWITCH_TAGS:  # debugger/profiler: true | false | {...}
        return (loc[0], *loc[2:])
    if len(loc) > 3 and loc[:2] == ("tuning", "ranges") and loc[3] in RANGE_TAGS:
        return (*loc[:3], *loc[4:])  # the range kind (continuous, integer, categorical)
    return loc


def _key_named_in(message: str) -> KeyPath:
    """A whole-config check names its key first ("framework_version is required")."""
    words = message.removeprefix("Value error, ").split()
    return (words[0],) if words and words[0] in LaunchConfig.model_fields else ()


def _not_for_strategy(doc: Document, key: str, listed: dict[KeyPath, int], line: int) -> str:
    """A distribution key that the chosen strategy does not have: say which strategies do."""
    owners = [name for name, model in registry.models().items() if key in model.model_fields]
    strategy = doc.data.get("distribution", {}).get("strategy", registry.DEFAULT)
    if not owners:
        return f"unknown key {key!r}" + _did_you_mean(("distribution", key), listed, line)
    return f"{key} applies to strategy {' or '.join(owners)}, not {strategy}"


def pydantic_message(error: Any) -> str:
    """One pydantic error in our words ("must be", "expected X, got Y"), without its link."""
    message = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] == "string_pattern_mismatch" and error["loc"] == ("name",):
        return "use letters, digits and '-' only (starting and ending with a letter or digit)"
    if error["type"] in {"literal_error", "enum"}:
        return message.replace("Input should be", "must be")
    got = error.get("input")
    if error["type"].endswith("_type") and not isinstance(got, (dict, list)):
        return f"{message.replace('Input should be', 'expected')}, got {got!r}"
    return message.replace("Input should be", "must be")


def _did_you_mean(loc: KeyPath, listed: dict[KeyPath, int], line: int) -> str:
    """One suggestion: the closest key here, else where a key of that name belongs, else the
    valid keys here (listed once per mapping: later unknown keys in it point to that line)."""
    key, parent = str(loc[-1]), loc[:-1]
    fields = _fields_at(LaunchConfig, parent)
    close = difflib.get_close_matches(key, fields, n=1, cutoff=0.6)
    if close:
        return f"; did you mean {close[0]!r}?"
    elsewhere = [format_path(p) for p in _all_field_paths(LaunchConfig, ()) if p[-1] == key]
    if elsewhere:
        return f"; it belongs at {elsewhere[0]!r}"
    if not fields:
        return ""
    if parent in listed:
        return f"; valid keys here: as listed for line {listed[parent]}"
    listed[parent] = line
    return f"; valid keys here: {', '.join(sorted(fields))}"


def _model_types(annotation: Any) -> list[Any]:
    """The member types of ``X | None``, of a (discriminated, Annotated) union, or [annotation]."""
    if typing.get_origin(annotation) is typing.Annotated:
        return _model_types(typing.get_args(annotation)[0])
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        return [m for member in members for m in _model_types(member)]
    return [annotation]


def _fields_at(model: type[BaseModel], loc: KeyPath) -> list[str]:
    annotation: Any = model
    for part in loc:
        annotation = _step(annotation, part)
        if annotation is None:
            return []
    fields = [
        name
        for member in _model_types(annotation)
        if isinstance(member, type) and issubclass(member, BaseModel)
        for name in member.model_fields
    ]
    return list(dict.fromkeys(fields))


def _step(annotation: Any, part: str | int) -> Any:
    for member in _model_types(annotation):
        origin = typing.get_origin(member)
        if isinstance(member, type) and issubclass(member, BaseModel):
            field = member.model_fields.get(str(part))
            return field.annotation if field else None
        if origin is dict:
            return typing.get_args(member)[1]
        if origin is list:
            return typing.get_args(member)[0]
    return None


@functools.cache
def _all_field_paths(model: type[BaseModel], prefix: KeyPath) -> tuple[KeyPath, ...]:
    paths: list[KeyPath] = []
    for name, field in model.model_fields.items():
        paths.append((*prefix, name))
        for member in _model_types(field.annotation):
            if isinstance(member, type) and issubclass(member, BaseModel):
                paths += _all_field_paths(member, (*prefix, name))
    return tuple(paths)

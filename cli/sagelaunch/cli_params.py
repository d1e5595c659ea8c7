"""Plain command-line values converted without pydantic, and the checks of the paths the
commands write (``folder_option``, ``output_file``).

Typer turns each value into its parameter's type through a pydantic TypeAdapter, which costs a
pydantic import and a schema build per parameter (a quarter of a second on a 2-core machine)
before a command even starts. Most of our values are plain: a str, a Path Typer checks nothing
about, a member of a str Enum, lists of those. ``lighten`` gives such parameters a converter that
returns what Typer's would for exactly those values, and hands any other value (a bad choice, an
unreadable path) or any other parameter (numbers with bounds, parsers) to Typer's own converter,
which reports the error exactly as before. Tests run every command through this path.
"""

from __future__ import annotations

import os
import types
import typing
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from typer._coercion import RuntimeParam, build_runtime_param
from typer.core import _TyperParameter

from sagelaunch.errors import UsageError

_NOT_PLAIN = object()


@dataclass(frozen=True)
class _Plain(RuntimeParam):
    descriptor: Any = None

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        normalize = getattr(ctx, "token_normalize_func", None)
        converted = _convert(_unwrap(self.annotation), self.parameter_info, value, normalize)
        if converted is _NOT_PLAIN:
            typer_own = build_runtime_param(self.descriptor)
            return typer_own._coerce_value(value, param=param, ctx=ctx)
        return converted


def lighten(command: Any, ctx: Any) -> Any:
    """Give ``command``'s parameters, its --help included, the plain converter (Typer builds
    its own lazily, so nothing has been built yet)."""
    for param in [*command.params, command.get_help_option(ctx)]:
        if isinstance(param, _TyperParameter) and param._runtime_param is None:
            desc = param.type_descriptor
            if desc.file_annotation is None:
                param._runtime_param = _Plain(
                    parameter_info=desc.parameter_info, annotation=desc.annotation, descriptor=desc
                )
    return command


def _unwrap(annotation: Any) -> Any:
    """``X | None`` is X here: a missing value never reaches the converter."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return args[0] if len(args) == 1 else annotation
    return annotation


def _convert(annotation: Any, info: Any, value: Any, normalize: Any) -> Any:
    if info.parser is not None or info.callback is not None:
        return _NOT_PLAIN
    if typing.get_origin(annotation) is list:
        (item,) = typing.get_args(annotation) or (Any,)
        if not isinstance(value, (list, tuple)):
            return _NOT_PLAIN
        items = [_leaf(item, info, v, normalize) for v in value]
        return _NOT_PLAIN if any(i is _NOT_PLAIN for i in items) else items
    return _leaf(annotation, info, value, normalize)


def _leaf(annotation: Any, info: Any, value: Any, normalize: Any) -> Any:
    if annotation is bool and isinstance(value, bool):
        return value
    if annotation is str and isinstance(value, str):
        return value
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return _member(annotation, info, value, normalize)
    if annotation is Path and isinstance(value, (str, Path)):
        return _path(info, value)
    return _NOT_PLAIN


def _member(enum: type[Enum], info: Any, value: Any, normalize: Any) -> Any:
    if isinstance(value, enum):
        return value
    if not isinstance(value, str) or not info.case_sensitive or normalize is not None:
        return _NOT_PLAIN
    return next((m for m in enum if str(m.value) == value), _NOT_PLAIN)


def _path(info: Any, value: str | Path) -> Any:
    checks = (info.exists, info.resolve_path, info.allow_dash, info.writable, info.path_type)
    if any(checks) or not (info.file_okay and info.dir_okay):
        return _NOT_PLAIN
    if info.readable and os.path.exists(value) and not os.access(value, os.R_OK):
        return _NOT_PLAIN  # Typer's converter says "is not readable"
    return Path(value)


# --- paths the commands write ----------------------------------------------------------------
# Checked before a command does any work, so a wrong path is one exit-2 line that names it and
# the fix, and nothing is written: never a FileExistsError (exit 70) halfway through a run, and
# never a folder tree created from a typo.


def folder_option(path: Path | None, option: str) -> Path | None:
    """A folder a command creates (with the folders above it) or reuses: refused when it, or
    a folder above it, is a file, or when it cannot be created there."""
    if path is None:
        return None
    existing = _nearest_existing(path)
    if not existing.is_dir():
        what = f"{option} {path}" if existing == path else f"{option} {path}: {existing}"
        raise UsageError(
            f"{what} is a file, not a folder",
            hint=f"{option} takes a folder (created when missing): name another one, "
            f"or move the file {existing} away",
        )
    if existing != path and not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(
            f"{option} {path}: cannot create it: {existing} is not writable",
            hint=f"name a folder where you may write, e.g. {option} ./{path.name}",
        )
    return path


def output_file(path: Path | None, option: str, example: str = "FILE") -> Path | None:
    """A file a command writes: its folder must exist (a typo never creates folders, anywhere
    up to the filesystem's root); refused when it is a folder, or its folder is a file."""
    if path is None:
        return None
    if path.is_dir():
        raise UsageError(
            f"{option} {path} is a folder, not a file",
            hint=f"name the file to write, e.g. {option} {path / example}",
        )
    folder = path.parent
    existing = _nearest_existing(folder)
    if not existing.is_dir():
        raise UsageError(
            f"{option} {path}: {existing} is a file, not a folder; nothing written",
            hint=f"name a file in an existing folder, e.g. {option} ./{path.name}",
        )
    if existing != folder:
        raise UsageError(
            f"{option} {path}: the folder {folder} does not exist; nothing written",
            hint=f"create it first (mkdir -p {folder}), or write to an existing folder",
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(
            f"{option} {path}: cannot write in {folder} (not writable); nothing written",
            hint=f"write to a folder where you may, e.g. {option} ./{path.name}",
        )
    return path


def _nearest_existing(path: Path) -> Path:
    """``path`` or the nearest folder above it that exists (a link counts as what it names)."""
    for candidate in (path, *path.parents):
        if os.path.lexists(candidate):
            return candidate
    return Path(path.anchor or ".")

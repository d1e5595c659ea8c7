"""Saved plans (`plan --out plan.json`): the reviewed request plus its code bundle beside it.

Terraform's plan/apply pattern: review the file in a pull request, `submit plan.json` on merge.
The bundle's sha256 is recorded, so a bundle that changed after review is refused. The file is
``Plan.as_json()`` (with its ``schema_version``) plus ``bundle_path``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sagelaunch import atomic
from sagelaunch.errors import ConfigError, UsageError
from sagelaunch.plan_model import SCHEMA_VERSION, Plan

OLD_FORMAT = "sagelaunch-plan/1"
_REMAKE = "make the plan again (sagelaunch writes it): sagelaunch plan CONFIG --out {name}"


def bundle_path_for(plan_path: Path) -> Path:
    return plan_path.with_name(plan_path.stem + ".sourcedir.tar.gz")


def save(plan_path: Path, plan: Plan, bundle_data: bytes | os.PathLike[str] | None) -> None:
    """The plan, and its bundle (bytes, or the bundle's file: copied, never read into memory)
    beside it."""
    document = plan.as_json()
    if bundle_data is not None:
        bundle_path = bundle_path_for(plan_path)
        if isinstance(bundle_data, bytes):
            atomic.write_bytes(bundle_path, bundle_data)
        else:
            _copy(Path(os.fspath(bundle_data)), bundle_path)
        document["bundle_path"] = bundle_path.name
    atomic.write_text(plan_path, json.dumps(document, indent=2) + "\n")


def _copy(source: Path, target: Path) -> None:
    """``source`` to ``target`` through a temporary file beside it (readers never see half)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
    )
    os.close(handle)
    try:
        shutil.copyfile(source, temporary)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def load(plan_path: Path) -> tuple[Plan, Path | None]:
    """A saved plan and its bundle's file, verified against the recorded sha256 (read in
    chunks: a large bundle is never held in memory)."""
    document = _document(plan_path)
    bundle_name = document.pop("bundle_path", None)
    try:
        plan = Plan.model_validate(document)
    except ValidationError as exc:
        raise _invalid(plan_path, exc.errors()) from None
    if bundle_name is None or plan.upload is None:
        return plan, None
    bundle_path = plan_path.parent / str(bundle_name)
    try:
        digest = hashlib.sha256()
        with bundle_path.open("rb") as file:
            while chunk := file.read(1024 * 1024):
                digest.update(chunk)
    except OSError as exc:
        raise UsageError(f"{plan_path}: its bundle {bundle_path} is missing: {exc}") from None
    if digest.hexdigest() != plan.upload.sha256:
        raise UsageError(
            f"{bundle_path} changed after the plan was made (sha256 mismatch)",
            hint="make a new plan: sagelaunch plan CONFIG --out " + plan_path.name,
        )
    return plan, bundle_path


def _invalid(plan_path: Path, errors: list[Any]) -> UsageError:
    """The first problem of a plan file, at its line in the JSON, and how many more there are:
    a plan is written by `plan --out`, so the fix is to make it again, not to edit it."""
    from sagelaunch.config.loader import pydantic_message
    from sagelaunch.config.yamlsource import format_path

    where = _positions(plan_path)
    located = sorted((where(tuple(e["loc"])), i, e) for i, e in enumerate(errors))
    (file, line, col), _, first = located[0]
    path = format_path(tuple(first["loc"]))
    if first["type"] == "missing":
        what = f"missing required key {first['loc'][-1]!r}"
    elif first["type"] == "extra_forbidden":
        what = f"unknown key {first['loc'][-1]!r}"
    else:
        what = pydantic_message(first)
    rest = len(errors) - 1
    more = f" (and {rest} more problem{'s' if rest > 1 else ''})" if rest else ""
    return UsageError(
        f"{file}:{line}:{col}: {path}: {what}{more}: not a valid sagelaunch plan",
        hint=_REMAKE.format(name=plan_path.name),
    )


def _positions(plan_path: Path) -> Callable[[tuple[str | int, ...]], tuple[str, int, int]]:
    """Where each key path of the plan file is written (JSON read as YAML keeps the lines), or
    the file's first line for every path when it cannot be read that way."""
    from sagelaunch.config.yamlsource import read_document

    try:
        return read_document(plan_path).position
    except ConfigError:
        return lambda path: (str(plan_path), 1, 1)


def _document(plan_path: Path) -> dict[str, object]:
    try:
        document = json.loads(plan_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{plan_path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}",
            hint=_REMAKE.format(name=plan_path.name),
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{plan_path}: not a readable plan file: {exc}") from None
    if not isinstance(document, dict):
        raise UsageError(f"{plan_path}: not a sagelaunch plan (expected {SCHEMA_VERSION})")
    version = document.get("schema_version", document.get("format"))
    if version == OLD_FORMAT:
        raise UsageError(
            f"{plan_path} was saved by an older sagelaunch ({OLD_FORMAT}); this one reads "
            f"{SCHEMA_VERSION}",
            hint=f"make the plan again: sagelaunch plan CONFIG --out {plan_path.name}",
        )
    if version != SCHEMA_VERSION:
        raise UsageError(f"{plan_path}: not a sagelaunch plan (expected {SCHEMA_VERSION})")
    return document

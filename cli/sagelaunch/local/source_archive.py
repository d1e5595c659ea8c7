"""A local `.tar.gz` as source_dir, as SDK v3's `SourceCode(source_dir=...)` accepts it: the
archive is the code bundle as it is, and the entry point must be a file in it."""

from __future__ import annotations

import tarfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sagelaunch.bundle import Bundle

SUFFIXES = (".tar.gz", ".tgz")
SHOWN = 8


def is_archive(path: Path) -> bool:
    return path.name.endswith(SUFFIXES)


def members(path: Path) -> list[str]:
    """The archive's file names (./ stripped); raises ValueError for a file that is no tar.gz."""
    try:
        with tarfile.open(path, mode="r:gz") as tar:
            return [m.name.removeprefix("./") for m in tar.getmembers() if m.isfile()]
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise ValueError(f"{path.name} is not a gzipped tar archive ({exc})") from exc


def entry_point_problem(path: Path, entry_point: str) -> str | None:
    """Why ``path`` cannot be the code of ``entry_point``, naming what it holds, or None."""
    if not path.is_file():
        return f"{path} not found"
    try:
        names = members(path)
    except ValueError as exc:
        return str(exc)
    if entry_point in names:
        return None
    shown = ", ".join(sorted(names)[:SHOWN]) + (", ..." if len(names) > SHOWN else "")
    held = f"it holds {len(names)} file(s): {shown}" if names else "it holds no files"
    return f"{entry_point} is not at the top of {path.name}: {held}"


def as_bundle(path: Path) -> Bundle:
    """The archive as the code bundle, byte for byte (v3 uploads the tarball it is given)."""
    from sagelaunch.bundle import Bundle

    with tarfile.open(path, mode="r:gz") as tar:
        files = [m for m in tar.getmembers() if m.isfile()]
    names = tuple(sorted(m.name.removeprefix("./") for m in files))
    return Bundle(path.read_bytes(), names, sum(m.size for m in files))

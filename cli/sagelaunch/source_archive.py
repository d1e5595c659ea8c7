"""A local `.tar.gz` as source_dir, as SDK v3's `SourceCode(source_dir=...)` accepts it: the
archive is the code bundle as it is (bundle.build takes it byte for byte), and the entry point
must be a file in it. Packaging, beside the bundle: the rules and the plan read it, not only
local runs."""

from __future__ import annotations

import tarfile
from pathlib import Path

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

"""The job's outputs as SageMaker uploads them: model.tar.gz and output.tar.gz from the master."""

from __future__ import annotations

import tarfile
from pathlib import Path


def pack(folder: Path, target: Path) -> Path:
    """``folder``'s contents as a gzipped tar, entries relative to it (like ``tar -C folder .``).
    A failed write names ``target`` (gzip's own errors name no file)."""
    try:
        with tarfile.open(target, "w:gz") as tar:
            for path in sorted(folder.rglob("*")):
                tar.add(path, arcname=path.relative_to(folder).as_posix(), recursive=False)
    except OSError as error:
        target.unlink(missing_ok=True)  # a cut archive is no artifact
        if error.filename is not None:
            raise
        raise OSError(error.errno, error.strerror, str(target)) from error
    return target


def members(archive: Path) -> list[str]:
    with tarfile.open(archive, "r:gz") as tar:
        return tar.getnames()

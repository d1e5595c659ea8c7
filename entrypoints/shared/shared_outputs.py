"""What a job leaves behind, written whole: the one atomic writer and the one metrics.json writer
of every entry point.

A reader (SageMaker's upload, a restarted job, a test) sees the old file or the new one, never
half of one: each write goes to a temp file in the same folder, is fsync'ed, renamed over the
target, and the folder fsync'ed so the rename survives a crash. Standard library only.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import BinaryIO

METRICS_FILE = "metrics.json"  # in SM_OUTPUT_DATA_DIR: what the run did, for people and tools


def atomic_write(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Replace ``path`` with what ``write`` writes to the open file, all at once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    atomic_write(path, lambda handle: handle.write(data))


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def fsync_dir(path: Path) -> None:
    """Make a rename or a new file in ``path`` durable (the folder's entry is data too)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_metrics(output_data_dir: Path, metrics: Mapping[str, object]) -> Path:
    """``metrics.json`` in ``output_data_dir`` (SM_OUTPUT_DATA_DIR), written whole."""
    path = output_data_dir / METRICS_FILE
    atomic_write_text(path, json.dumps(metrics, indent=2) + "\n")
    return path

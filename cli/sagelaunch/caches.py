"""Where sagelaunch keeps what it can compute again (plans, validate answers, warm-up hints):
``.sagelaunch/cache/`` under the working folder, or the folder ``SAGELAUNCH_CACHE_DIR`` names, so
that every checkout of a project (or a CI cache step) shares one. An entry is keyed by what it
depends on, never by where it was made; deleting the folder only makes the next run slower."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_DIR_ENV = "SAGELAUNCH_CACHE_DIR"
DEFAULT = Path(".sagelaunch") / "cache"


def folder(kind: str) -> Path:
    """The folder of one kind of entry ("plans", "validate", "warm"), read at each call."""
    root = os.environ.get(CACHE_DIR_ENV)
    return (Path(root).expanduser() if root else DEFAULT) / kind

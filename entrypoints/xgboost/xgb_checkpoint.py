"""Checkpoints of the XGBoost entry point: one model file per saved round, written atomically.

A file is ``xgboost-checkpoint.<round>.json`` where ``<round>`` is the number of boosting rounds in
it, zero-padded so names sort by round. Files appear whole or not at all (temp file + rename), and
a file that does not parse (say, cut short by a sync) is skipped for the one before it, so a job
killed at any moment resumes from its newest complete round. JSON, not UBJSON, because XGBoost 1.7
and 3.x both recognise it from its content, whatever the file is called.

Standard library only.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import shared_outputs

KEEP = 5  # as the SageMaker XGBoost container: enough to step back past a damaged file
_NAME = re.compile(r"^xgboost-checkpoint\.(\d+)\.json$")


def path_for(directory: Path, rounds: int) -> Path:
    return directory / f"xgboost-checkpoint.{rounds:06d}.json"


def saved_rounds(directory: Path) -> list[int]:
    """Rounds with a checkpoint in ``directory``, oldest first."""
    if not directory.is_dir():
        return []
    found = (_NAME.match(entry.name) for entry in directory.iterdir())
    return sorted(int(match.group(1)) for match in found if match)


def save(directory: Path, rounds: int, model: bytes) -> Path:
    """Save the model after ``rounds`` rounds, then drop all but the newest ``KEEP`` files."""
    path = path_for(directory, rounds)
    shared_outputs.atomic_write_bytes(path, model)
    for old in saved_rounds(directory)[:-KEEP]:
        path_for(directory, old).unlink(missing_ok=True)
    return path


def latest(directory: Path) -> tuple[int, bytes] | None:
    """The newest checkpoint that parses, as (rounds, model JSON), or None when there is none."""
    for rounds in reversed(saved_rounds(directory)):
        path = path_for(directory, rounds)
        try:
            data = path.read_bytes()
            json.loads(data)
        except (OSError, ValueError) as exc:
            print(f"WARNING: skipping unreadable checkpoint {path}: {exc}", file=sys.stderr)
            continue
        return rounds, data
    return None

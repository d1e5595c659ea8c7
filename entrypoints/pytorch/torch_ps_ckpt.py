"""Parameter-server checkpoints: every server saves its shard at the same update numbers.

Each file is written atomically (torch_ckpt.atomic_save: temp file, fsync, rename), so a SIGKILL
leaves whole files only; but one server may have saved update N and another not yet, so a resume
takes the newest update number that every server has. The servers must share the checkpoint dir
(one host, or a shared file system).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import torch_ckpt

FILE = re.compile(r"^ps(\d+)-(\d+)\.pt$")


def path(root: Path, server: int, version: int) -> Path:
    return root / "ps" / f"ps{server}-{version:08d}.pt"


def _versions(root: Path) -> dict[int, set[int]]:
    found: dict[int, set[int]] = {}
    folder = root / "ps"
    for item in folder.iterdir() if folder.is_dir() else []:
        match = FILE.match(item.name)
        if match:
            found.setdefault(int(match.group(1)), set()).add(int(match.group(2)))
    return found


def newest_common(root: Path, num_ps: int) -> int:
    """The newest update every server saved (0: none)."""
    versions = _versions(root)
    sets = [versions.get(server, set()) for server in range(num_ps)]
    common = set.intersection(*sets) if sets else set()
    return max(common, default=0)


def save(root: Path, server: int, version: int, state: dict[str, Any], keep: int) -> None:
    torch_ckpt.atomic_save(state, path(root, server, version))
    # Keep one more than asked: a peer may not have written the newest yet.
    for old in sorted(_versions(root).get(server, set()), reverse=True)[keep + 1 :]:
        path(root, server, old).unlink(missing_ok=True)


def load(root: Path, server: int, version: int) -> dict[str, Any]:
    state = torch_ckpt.load_verified(path(root, server, version), None)
    assert isinstance(state, dict)
    return state

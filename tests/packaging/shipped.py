"""What a built sagelaunch must hold: every file of its source folders, under its installed name.

The package's folders are cli/sagelaunch/ (installed as sagelaunch/) and entrypoints/ (installed
as sagelaunch/entrypoints/, package-dir in pyproject.toml). Every file a checkout has there ships,
modules and data alike, except NOT_SHIPPED: a new package, a new framework folder of entry points
or a new data file needs no packaging edit, and one that would not ship fails tests/packaging.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

SOURCES = {"cli/sagelaunch/": "sagelaunch/", "entrypoints/": "sagelaunch/entrypoints/"}
NOT_SHIPPED = {"sagelaunch/commands/ruff.toml"}  # that folder's lint settings


def checkout_files(root: Path) -> list[str]:
    """The files a clone of ``root`` would have, with what is not committed yet: git's tracked
    and untracked files, less the ignored ones (caches, build outputs) and the deleted ones."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root, capture_output=True, check=True,
    ).stdout.decode()  # fmt: skip
    return sorted({p for p in listed.split("\0") if p and os.path.lexists(root / p)})


def expected_in_wheel(files: list[str]) -> set[str]:
    """The wheel's names of the package's files among ``files`` (paths in a checkout)."""
    names = set()
    for path in files:
        for folder, installed in SOURCES.items():
            if path.startswith(folder):
                names.add(installed + path.removeprefix(folder))
    return names - NOT_SHIPPED


def copy_checkout(root: Path, target: Path) -> list[str]:
    """Copy the checkout's files to ``target`` (links as links, as git stores them); returns
    their paths."""
    files = checkout_files(root)
    for path in files:
        source, copy = root / path, target / path
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            copy.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, copy)
    return files

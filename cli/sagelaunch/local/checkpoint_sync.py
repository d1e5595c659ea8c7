"""SageMaker's checkpoint sync, emulated in the run folder.

With a CheckpointConfig in the request (a launch config's ``checkpoint: {s3_uri, local_path}``),
SageMaker copies the S3 prefix into the checkpoint folder of every instance before the script
starts, and copies what the instances write there back to the same prefix while they run: a job
restarted after a spot interruption, or run again with the same prefix, finds its checkpoints.
Without it the folder is the instance's own and ends with it.

Locally the prefix is a folder of the run, ``<workdir>/checkpoint-s3``: restored into every
host's folder when the trees are built, and each host's folder merged back into it when the hosts
have stopped, whatever stopped them (the end, a failure, a SIGKILLed process, an interrupt, the
time limit), since SageMaker's upload runs while the job does. A rerun in the same workdir (a
restarted job) resumes from it; delete the folder to start afresh. Files the hosts deleted stay in
it, as a sync to S3 leaves them; two hosts writing one path: the later host's copy is kept.
"""

from __future__ import annotations

import shutil
from pathlib import Path, PurePosixPath
from typing import Any

from sagelaunch.local.tree import HostTree

STORE = "checkpoint-s3"
CONTAINER_ROOT = PurePosixPath("/opt/ml")
DEFAULT_LOCAL_PATH = "/opt/ml/checkpoints"  # the service's default LocalPath


def store(workdir: Path) -> Path:
    return workdir / STORE


def host_folder(host: HostTree, request: dict[str, Any]) -> Path | None:
    """The host's checkpoint folder, or None where the request syncs none (no CheckpointConfig)
    or syncs a LocalPath outside /opt/ml, which a host tree does not hold (see `warning`)."""
    config = request.get("CheckpointConfig")
    if not config:
        return None
    local = PurePosixPath(config.get("LocalPath") or DEFAULT_LOCAL_PATH)
    if not local.is_relative_to(CONTAINER_ROOT):
        return None
    return host.root / local.relative_to(CONTAINER_ROOT)


def warning(request: dict[str, Any]) -> str | None:
    """A LocalPath outside /opt/ml is synced on SageMaker but not here: say so."""
    config = request.get("CheckpointConfig")
    if not config or not config.get("LocalPath"):
        return None
    if PurePosixPath(config["LocalPath"]).is_relative_to(CONTAINER_ROOT):
        return None
    return (
        f"checkpoint.local_path {config['LocalPath']} is outside /opt/ml, so a local run does not "
        "emulate its sync with checkpoint.s3_uri (nothing is restored on a rerun)"
    )


def restore(workdir: Path, hosts: list[HostTree], request: dict[str, Any]) -> int:
    """Copy the store into every host's checkpoint folder; the number of files it holds."""
    saved = store(workdir)
    files = _count(saved)
    for host in hosts:
        folder = host_folder(host, request)
        if folder is None:
            continue
        folder.mkdir(parents=True, exist_ok=True)
        if files:
            shutil.copytree(saved, folder, symlinks=True, dirs_exist_ok=True)
    return files


def save(workdir: Path, hosts: list[HostTree], request: dict[str, Any]) -> int:
    """Merge every host's checkpoint folder into the store, in host order; the files copied."""
    copied = 0
    for host in hosts:
        folder = host_folder(host, request)
        if folder is None or not folder.is_dir():
            continue
        copied += _count(folder)
        shutil.copytree(folder, store(workdir), symlinks=True, dirs_exist_ok=True)
    return copied


def _count(folder: Path) -> int:
    if not folder.is_dir():
        return 0
    return sum(1 for path in folder.rglob("*") if path.is_file() or path.is_symlink())

"""SageMaker's checkpoint sync, emulated in the run folder.

With a CheckpointConfig in the request (a launch config's ``checkpoint: {s3_uri, local_path}``),
SageMaker copies the S3 prefix into the checkpoint folder of every instance before the script
starts, and copies what the instances write there back to the same prefix while they run: a job
restarted after a spot interruption, or run again with the same prefix, finds its checkpoints.
Without it the folder is the instance's own and ends with it.

Locally the prefix is a folder of the run, ``<workdir>/checkpoint-s3``: restored into every
host's folder when the trees are built, and each host's folder merged back into it when the hosts
have stopped, whatever stopped them (the end, a failure, a SIGKILLed process, an interrupt, the
time limit), since SageMaker's upload runs while the job does. Only what a host wrote or changed
since the restore goes back (a host's untouched copy never overwrites another host's newer one);
two hosts writing one path: the later host's copy is kept. Files the hosts deleted stay in the
store, as a sync to S3 leaves them. A rerun in the same workdir (a restarted job) resumes from
it; delete the folder to start afresh.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from sagelaunch.local.sandbox import CONTAINER_ROOT
from sagelaunch.local.tree import HostTree

STORE = "checkpoint-s3"
DEFAULT_LOCAL_PATH = "/opt/ml/checkpoints"  # the service's default LocalPath


def store(workdir: Path) -> Path:
    return workdir / STORE


def host_folder(host: HostTree, request: dict[str, Any]) -> Path | None:
    """The host's checkpoint folder, or None where the request syncs none (no CheckpointConfig)
    or syncs a LocalPath outside /opt/ml, which a host tree does not hold (see `warning`)."""
    local = _local_path(request)
    if local is None or not local.is_relative_to(CONTAINER_ROOT):
        return None
    return host.root / local.relative_to(CONTAINER_ROOT)


def warning(request: dict[str, Any]) -> str | None:
    """A LocalPath outside /opt/ml is synced on SageMaker but not here: say so."""
    local = _local_path(request)
    if local is None or local.is_relative_to(CONTAINER_ROOT):
        return None
    return (
        f"checkpoint.local_path {local} is outside /opt/ml, so a local run does not "
        "emulate its sync with checkpoint.s3_uri (nothing is restored on a rerun)"
    )


def _local_path(request: dict[str, Any]) -> PurePosixPath | None:
    """The container folder the request syncs with checkpoint.s3_uri (None: no sync)."""
    config = request.get("CheckpointConfig")
    return PurePosixPath(config.get("LocalPath") or DEFAULT_LOCAL_PATH) if config else None


@dataclass(frozen=True)
class Restored:
    """What the store held when the hosts got it: each file's size and modification time, so
    that a host's unchanged copy is not uploaded back over another host's newer one."""

    files: dict[Path, tuple[int, int]]


def restore(workdir: Path, hosts: list[HostTree], request: dict[str, Any]) -> Restored:
    """Copy the store into every host's checkpoint folder (times kept, as a download keeps the
    object's)."""
    saved = store(workdir)
    restored = Restored({path.relative_to(saved): _signature(path) for path in _files(saved)})
    for host in hosts:
        folder = host_folder(host, request)
        if folder is None:
            continue
        folder.mkdir(parents=True, exist_ok=True)
        if restored.files:
            shutil.copytree(saved, folder, symlinks=True, dirs_exist_ok=True)
    return restored


def save(workdir: Path, hosts: list[HostTree], request: dict[str, Any], restored: Restored) -> int:
    """Upload what each host wrote or changed since the restore into the store, in host order
    (as a sync uploads new and modified files only); the number of files uploaded."""
    uploaded = 0
    for host in hosts:
        folder = host_folder(host, request)
        if folder is None or not folder.is_dir():
            continue
        for path in _files(folder):
            relative = path.relative_to(folder)
            if restored.files.get(relative) == _signature(path):
                continue
            target = store(workdir) / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.unlink(missing_ok=True)
            shutil.copy2(path, target, follow_symlinks=False)
            uploaded += 1
    return uploaded


def _files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.rglob("*") if path.is_file() or path.is_symlink())


def _signature(path: Path) -> tuple[int, int]:
    stat = path.lstat()
    return stat.st_size, stat.st_mtime_ns

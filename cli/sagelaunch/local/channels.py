"""Input channels: where each one's files come from, and which host gets which files.

A channel's data comes from ``local.inputs`` (a local path, relative to the config file, a
``file://`` URI or an ``s3://`` URI), else from its own ``inputs`` URI. FSx/EFS channels cannot be
mounted here, so they need a ``local.inputs`` entry.

FullyReplicated gives every host every file. ShardedByS3Key gives each host a disjoint share of the
objects: AWS documents only "about 1/n of the objects" per host, so we take the objects sorted by
key and deal them out round-robin (file i goes to host i mod n). Every file lands on exactly one
host, and hosts beyond the file count get none, as on SageMaker.

Each host gets its own copy of every file (copy-on-write): a reflink where the file system has
them (Btrfs, XFS, ...: instant, no space used until written), else ``copy_file_range`` (an
in-kernel copy, which NFS and others do server-side), else a plain copy. Never a hard link: a
script writing into its input folder changes only its host's copy, never the user's file nor
another host's. The user's files are never modified, moved or deleted.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from sagelaunch.config.loader import LoadedConfig
from sagelaunch.errors import AwsError, ConfigError, Problem
from sagelaunch.local.tree import HostTree


@dataclass(frozen=True)
class Source:
    """Where channel ``name`` reads from: an absolute local path or an s3:// URI."""

    name: str
    location: str
    sharded: bool

    @property
    def is_s3(self) -> bool:
        return self.location.startswith("s3://")


@dataclass(frozen=True)
class DataFile:
    """One object of a channel: its path inside the channel folder and where it comes from."""

    key: str
    origin: str


class ObjectStore(Protocol):
    """What channels need from S3 (sagelaunch.aws.download provides it)."""

    def objects(self, uri: str) -> list[DataFile]: ...

    def fetch(self, uri: str, files: list[DataFile], cache: Path) -> dict[str, Path]: ...


def sources(loaded: LoadedConfig) -> dict[str, Source]:
    """Every channel's source; a located ConfigError for what cannot be read locally."""
    config = loaded.config
    found: dict[str, Source] = {}
    problems: list[Problem] = []
    for name, channel in config.inputs.items():
        override = config.local.inputs.get(name)
        sharded = channel.distribution == "sharded"
        if override is not None:
            where: tuple[str, ...] = ("local", "inputs", name)
            location = _location(loaded, override)
        elif channel.uri is not None:
            where = ("inputs", name, "uri")
            location = _location(loaded, channel.uri)
        else:
            kind = channel.file_system.type if channel.file_system else "file system"
            problems.append(
                loaded.problem(
                    ("inputs", name, "file_system"),
                    f"{kind} channels cannot be mounted locally: set local.inputs.{name} "
                    "to a local copy of the data (a path or s3:// URI)",
                )
            )
            continue
        if not location.startswith("s3://") and not Path(location).exists():
            problems.append(loaded.problem(where, f"no such file or folder: {location}"))
            continue
        found[name] = Source(name, location, sharded)
    if problems:
        raise ConfigError(problems)
    return found


def _location(loaded: LoadedConfig, text: str) -> str:
    if text.startswith("s3://"):
        return text
    path = Path(text.removeprefix("file://")).expanduser()
    return str(path if path.is_absolute() else (loaded.path.parent / path).resolve())


def local_files(location: str) -> list[DataFile]:
    """A local file, or every file under a folder, keyed by relative path and sorted."""
    root = Path(location)
    if root.is_file():
        return [DataFile(root.name, str(root))]
    files = [p for p in root.rglob("*") if p.is_file()]
    keyed = [DataFile(p.relative_to(root).as_posix(), str(p)) for p in files]
    return sorted(keyed, key=lambda f: f.key)


def share(files: list[DataFile], host_index: int, host_count: int, sharded: bool) -> list[DataFile]:
    """The files one host receives (round-robin over the sorted keys when sharded)."""
    return files[host_index::host_count] if sharded else list(files)


def populate(
    trees: list[HostTree],
    channel_sources: dict[str, Source],
    cache: Path,
    store_factory: Callable[[], ObjectStore],
    receivers: dict[str, list[int]] | None = None,
) -> dict[str, list[int]]:
    """Fill every host's input/data/<channel>/; returns the file count per host per channel.
    ``receivers`` limits a channel to some hosts (instance groups); they share it as a cluster
    of their own would, and the other hosts get nothing."""
    store: ObjectStore | None = None
    counts: dict[str, list[int]] = {}
    for name, source in channel_sources.items():
        if source.is_s3:
            store = store or store_factory()
            files, origins = _from_s3(store, name, source.location, cache / name)
        else:
            files = local_files(source.location)
            origins = {f.key: Path(f.origin) for f in files}
        counts[name] = []
        taking = (receivers or {}).get(name, list(range(len(trees))))
        for index, tree in enumerate(trees):
            if index not in taking:
                counts[name].append(0)
                continue
            mine = share(files, taking.index(index), len(taking), source.sharded)
            for data_file in mine:
                private_copy(origins[data_file.key], tree.channel(name) / data_file.key)
            counts[name].append(len(mine))
    return counts


def _from_s3(
    store: ObjectStore, channel: str, uri: str, cache: Path
) -> tuple[list[DataFile], dict[str, Path]]:
    """The channel's objects, fetched; an AWS error names the channel and the local way out."""
    try:
        files = store.objects(uri)
        return files, store.fetch(uri, files, cache)
    except AwsError as error:
        local = f"or run it on a local copy: local.inputs: {{{channel}: ./data/{channel}}}"
        raise AwsError(
            f"channel {channel} reads {uri} from S3: {error.message}",
            hint=f"{error.hint}; {local}" if error.hint else local,
        ) from None


FICLONE = 0x40049409  # linux/fs.h: _IOW(0x94, 9, int), the reflink ioctl
_COPY_CHUNK = 1 << 30


def private_copy(origin: Path, destination: Path) -> None:
    """``destination``, a copy of ``origin`` that shares nothing writable with it."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    with open(origin, "rb") as source, open(destination, "wb") as target:
        if not _reflink(source.fileno(), target.fileno()):
            _copy_range(source, target)
    shutil.copystat(origin, destination)


def _reflink(source: int, target: int) -> bool:
    try:
        fcntl.ioctl(target, FICLONE, source)
    except OSError:  # not Linux, not the same file system, or no reflinks there
        return False
    return True


def _copy_range(source: Any, target: Any) -> None:
    """copy_file_range until the end (the kernel copies, or clones where it can), else a copy."""
    try:
        while os.copy_file_range(source.fileno(), target.fileno(), _COPY_CHUNK):
            pass
    except (OSError, AttributeError):  # no copy_file_range here (macOS, old kernels, some fs)
        source.seek(0)
        target.seek(0)
        target.truncate()
        shutil.copyfileobj(source, target)


class S3Store:
    """ObjectStore over S3 (through sagelaunch.aws.download, imported only when used)."""

    def __init__(self, region: str | None) -> None:
        from sagelaunch.aws import download

        self._download = download
        self._client: Any = download.client(region)

    def objects(self, uri: str) -> list[DataFile]:
        _, prefix = self._download.split_uri(uri)
        objects = self._download.list_objects(self._client, uri)
        return [DataFile(_relative_key(o.key, prefix), o.key) for o in objects]

    def fetch(self, uri: str, files: list[DataFile], cache: Path) -> dict[str, Path]:
        bucket, _ = self._download.split_uri(uri)
        targets = {f.key: cache / f.key for f in files}
        self._download.download(self._client, bucket, [(f.origin, targets[f.key]) for f in files])
        return targets


def _relative_key(key: str, prefix: str) -> str:
    """An object's path inside the channel folder: the key after the prefix."""
    relative = key[len(prefix) :].lstrip("/")
    return relative or key.rsplit("/", 1)[-1]

"""The code bundle: a deterministic sourcedir.tar.gz keyed by its sha256.

Sorted entries, fixed mtimes, owners and modes make the same source tree give the same bytes on
every machine, so `plan` can name the S3 key before anything is uploaded and `submit` can skip an
upload whose key already exists. What goes in is bundle_walk's answer: links followed as the SDK
follows them (and named when they leave the folder), .gitignore and .sagelaunchignore honoured,
credentials never (bundle_credentials.py).

The archive is streamed to a file (in the cache folder's ``bundles/``, removed when the process
ends) and hashed as it is written, so memory stays flat whatever the files weigh; a `Bundle` is
that file (``os.fspath(bundle)``), which upload, the plan file and local read from disk.
"""

from __future__ import annotations

import atexit
import gzip
import hashlib
import io
import os
import shutil
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from sagelaunch.bundle_walk import IGNORE_FILE, NEVER_BUNDLED, Entry, Walk, human_bytes, walk

if TYPE_CHECKING:
    from sagelaunch.config.loader import LoadedConfig
    from sagelaunch.config.model import LaunchConfig

__all__ = ["IGNORE_FILE", "NEVER_BUNDLED", "Bundle", "build", "extract", "for_config"]

BUNDLES = "bundles"  # caches.folder(BUNDLES): this process's bundle files, removed at exit
PROGRESS_FROM = 64 * 1024**2  # a tree above this draws a progress bar (on a terminal)
_CHUNK = 1024 * 1024

BundleData = bytes | os.PathLike[str]  # what upload, the plan file and local take
_Advance = Callable[[int], None]


@dataclass(frozen=True)
class Bundle:
    """sourcedir.tar.gz on disk (``os.fspath(bundle)``) with what went into it and what the
    walk found (the warnings, the files the ignore files left out)."""

    path: Path
    files: tuple[str, ...]
    source_bytes: int
    sha256: str
    compressed_bytes: int
    source_dir: Path | None = None
    entry_point: str | None = None
    walks: tuple[Walk, ...] = field(default=(), compare=False, repr=False)

    def __fspath__(self) -> str:
        return str(self.path)

    @property
    def data(self) -> bytes:
        """The whole archive in memory (tests, small bundles): callers stream ``path``."""
        return self.path.read_bytes()

    def s3_uri(self, prefix: str) -> str:
        """Content-addressed location under ``prefix``: unchanged code, unchanged key."""
        return f"{prefix.rstrip('/')}/sagelaunch-code/{self.sha256[:32]}/sourcedir.tar.gz"

    def summary(self) -> dict[str, object]:
        return {
            "files": list(self.files),
            "bytes": self.source_bytes,
            "compressed_bytes": self.compressed_bytes,
            "sha256": self.sha256,
        }

    def warnings(self) -> list[str]:
        """What the walks found that a user must hear (links out, credentials, big files...)."""
        lines: list[str] = []
        for found in self.walks:
            # source_dir's links are the config's warning (rules/code.py), at its line
            main = found.root == self.source_dir
            lines += found.warnings("source_dir" if main else "dependency", links=not main)
        return lines

    def ignored(self) -> dict[str, int]:
        """What .gitignore and .sagelaunchignore left out: files, their bytes, folders."""
        return {
            "files": sum(w.ignored_files for w in self.walks),
            "bytes": sum(w.ignored_bytes for w in self.walks),
            "folders": sum(w.ignored_folders for w in self.walks),
        }

    def description(self) -> str:
        """One line for people: which entry point, from which folder, how much."""
        what = self.entry_point or "the code"
        where = f" from {self.source_dir}" if self.source_dir else ""
        line = (
            f"{what}{where} ({_count(len(self.files), 'file')}, {human_bytes(self.source_bytes)})"
        )
        ignored = self.ignored()
        if ignored["files"] or ignored["folders"]:
            left = f"{_count(ignored['files'], 'file')} ({human_bytes(ignored['bytes'])})"
            if ignored["folders"]:
                left += f" and {_count(ignored['folders'], 'folder')}"
            line += f"; .gitignore/.sagelaunchignore left out {left}"
        return line

    def as_json(self) -> dict[str, object]:
        """The plan output's extra keys about the code (beside the Upload summary)."""
        return {
            "source_dir": str(self.source_dir) if self.source_dir else None,
            "entry_point": self.entry_point,
            "ignored": self.ignored(),
            "credentials_left_out": [c for w in self.walks for c in w.credentials],
        }


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def code_prefix(config: LaunchConfig) -> str:
    """Where this config's code bundles go (each content-addressed below it)."""
    return config.code_location or str(config.output_path)


def build(source_dir: Path, gitignore: bool = True, entry_point: str | None = None) -> Bundle:
    """Tar and gzip ``source_dir`` deterministically (a .tar.gz source, SDK v3's, as it is)."""
    if source_dir.is_file():
        return _archive_as_it_is(source_dir, entry_point)
    found = walk(source_dir, gitignore=gitignore, scan=True)
    return _tar(found.files, Path(os.path.abspath(source_dir)), entry_point, (found,))


def _archive_as_it_is(path: Path, entry_point: str | None) -> Bundle:
    """A .tar.gz source (source_archive.py) as the bundle, byte for byte: v3 uploads the tarball
    it is given."""
    with tarfile.open(path, mode="r:gz") as tar:
        files = [m for m in tar.getmembers() if m.isfile()]
    names = tuple(sorted(m.name.removeprefix("./") for m in files))
    digest = hashlib.sha256()
    with path.open("rb") as source:
        while chunk := source.read(_CHUNK):
            digest.update(chunk)
    size = path.stat().st_size
    return Bundle(
        path, names, sum(m.size for m in files), digest.hexdigest(), size, path, entry_point
    )


def for_config(loaded: LoadedConfig) -> Bundle:
    """What the SDK uploads for this config. With ``source_dir``, that folder; without it, the
    entry point script alone (fw_utils.tar_and_upload_dir tars ``[script]`` when ``directory``
    is None), so nothing else beside the config leaves the machine. A shipped entry point is
    uploaded with the folder it imports its modules from. The script keeps the relative path
    the config gives it (the SDK would flatten ``sub/train.py`` to ``train.py``), so that
    ``sagemaker_program`` and the archive agree."""
    from sagelaunch.config.paths import uploads_script_alone

    config = loaded.config
    gitignore = config.respect_gitignore
    entry_point = str(config.entry_point) if config.entry_point else None
    folder = loaded.source_dir
    if not uploads_script_alone(loaded.path, config.source_dir, config.entry_point):
        if not config.dependencies or folder.is_file():
            return build(folder, gitignore, entry_point)  # a .tar.gz source too
        found = walk(folder, gitignore=gitignore, scan=True)
        code, walks = list(found.files), [found]
    else:
        script = folder / str(entry_point)
        info = script.stat()
        code = [Entry(str(entry_point), script, info.st_size, bool(info.st_mode & 0o111))]
        walks = []
    extra, more = _dependencies(loaded)
    return _tar(code + extra, folder, entry_point, tuple(walks + more))


def _dependencies(loaded: LoadedConfig) -> tuple[list[Entry], list[Walk]]:
    """The config's dependencies as the SDK's create_tar_file adds them: each file or folder at
    the top level under its own name (a folder walked as source_dir is: ignore files honoured,
    credentials left out)."""
    entries: list[Entry] = []
    walks: list[Walk] = []
    for index, written in enumerate(loaded.config.dependencies):
        path = (loaded.path.parent / written).resolve()
        if path.is_file():
            info = path.stat()
            entries.append(Entry(path.name, path, info.st_size, bool(info.st_mode & 0o111)))
        elif path.is_dir():
            found = walk(path, gitignore=loaded.config.respect_gitignore, scan=True)
            for entry in found.files:
                entries.append(Entry(f"{path.name}/{entry.name}", *_rest(entry)))
            walks.append(found)
        else:
            raise loaded.error(("dependencies", index), f"{written} not found: fix the path")
    return entries, walks


def _rest(entry: Entry) -> tuple[Path, int, bool]:
    return entry.path, entry.size, entry.executable


class _Sink:
    """Where the gzip stream goes: the file, hashed and counted on the way."""

    def __init__(self, file: IO[bytes]) -> None:
        self.file = file
        self.digest = hashlib.sha256()
        self.size = 0

    def write(self, data: bytes) -> int:
        self.digest.update(data)
        self.size += len(data)
        return self.file.write(data)

    def flush(self) -> None:
        self.file.flush()


def _tar(
    entries: list[Entry],
    source_dir: Path | None,
    entry_point: str | None,
    walks: tuple[Walk, ...],
) -> Bundle:
    """The gzipped tar of ``entries`` in the order given, streamed to a file: the same bytes as
    compressing the whole tar at once (gzip without a name, mtime 0)."""
    folder = _scratch()
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".bundle-", suffix=".tmp")
    kept: list[str] = []
    total = 0
    try:
        with os.fdopen(handle, "wb") as file, _progress(entries) as advance:
            sink = _Sink(file)
            with (
                gzip.GzipFile(filename="", mode="wb", fileobj=sink, mtime=0) as gz,  # type: ignore[arg-type]
                tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
            ):
                for entry in entries:
                    try:
                        source = entry.path.open("rb")
                    except OSError as exc:
                        _skipped(walks, entry, exc)
                        continue
                    with source:
                        tar.addfile(_tar_info(entry), _Counted(source, advance))
                    kept.append(entry.name)
                    total += entry.size
        sha256 = sink.digest.hexdigest()
        final = folder / f"{sha256}.tar.gz"
        os.replace(temporary, final)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return Bundle(final, tuple(kept), total, sha256, sink.size, source_dir, entry_point, walks)


def _skipped(walks: tuple[Walk, ...], entry: Entry, exc: OSError) -> None:
    """A file that cannot be read is left out and named (never a crash)."""
    why = f"{entry.name} ({exc.strerror or exc})"
    if walks:
        walks[0].unreadable.append(why)


class _Counted:
    """A file read by tarfile, each chunk reported to the progress bar."""

    def __init__(self, file: IO[bytes], advance: _Advance) -> None:
        self.file, self.advance = file, advance

    def read(self, size: int = -1) -> bytes:
        chunk = self.file.read(size)
        self.advance(len(chunk))
        return chunk


@contextmanager
def _progress(entries: list[Entry]) -> Iterator[_Advance]:
    """A bar on stderr while a large tree is packed, only on a terminal."""
    total = sum(entry.size for entry in entries)
    if total < PROGRESS_FROM or not sys.stderr.isatty():
        yield lambda count: None
        return
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

    from sagelaunch.output import stderr

    columns = (TextColumn("bundling the code"), BarColumn(), DownloadColumn())
    with Progress(*columns, console=stderr, transient=True) as bar:
        task = bar.add_task("bundle", total=total)
        yield lambda count: bar.advance(task, count)


def _tar_info(entry: Entry) -> tarfile.TarInfo:
    info = tarfile.TarInfo(entry.name)
    info.size = entry.size
    info.mtime = 0
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mode = 0o755 if entry.executable else 0o644
    return info


_SCRATCH: Path | None = None
_STALE_S = 2 * 24 * 3600  # a folder left by a process that was killed


def _scratch() -> Path:
    """This process's folder of bundle files (removed at exit): in the cache folder, else the
    system's temporary folder."""
    global _SCRATCH
    if _SCRATCH is not None and _SCRATCH.is_dir():
        return _SCRATCH
    from sagelaunch import caches

    for parent in (caches.folder(BUNDLES), Path(tempfile.gettempdir())):
        try:
            parent.mkdir(parents=True, exist_ok=True)
            _prune(parent)
            _SCRATCH = Path(tempfile.mkdtemp(prefix="sagelaunch-bundles-", dir=parent))
        except OSError:
            continue
        atexit.register(shutil.rmtree, _SCRATCH, True)
        return _SCRATCH
    raise OSError("no folder to write the code bundle in")


def _prune(parent: Path) -> None:
    now = time.time()
    for old in parent.glob("sagelaunch-bundles-*"):
        try:
            if now - old.stat().st_mtime > _STALE_S:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            continue


def extract(data: BundleData, target: Path) -> None:
    """Unpack a bundle (as the container does into /opt/ml/code): bytes or a file."""
    target.mkdir(parents=True, exist_ok=True)
    source = io.BytesIO(data) if isinstance(data, bytes) else None
    path = None if source is not None else os.fspath(data)  # type: ignore[arg-type]
    with tarfile.open(path, fileobj=source, mode="r:gz") as tar:
        tar.extractall(target, filter="data")

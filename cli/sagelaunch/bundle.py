"""The code bundle: a deterministic sourcedir.tar.gz keyed by its sha256.

Sorted entries, fixed mtimes, owners and modes make the same source tree give the same bytes on
every machine, so `plan` can name the S3 key before anything is uploaded and `submit` can skip an
upload whose key already exists. Secrets never go in: `.git/`, `.env*`, private keys and credential
files are always left out, and `.sagelaunchignore` (gitignore syntax) adds the user's own rules.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pathspec

if TYPE_CHECKING:
    from sagelaunch.config.loader import LoadedConfig
    from sagelaunch.config.model import LaunchConfig

IGNORE_FILE = ".sagelaunchignore"
# Always excluded, whatever .sagelaunchignore says (gitignore syntax).
NEVER_BUNDLED = [
    ".git/",
    ".hg/",
    ".svn/",
    ".env*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".aws/",
    "credentials",
    ".netrc",
    ".pypirc",
    ".git-credentials",
    ".sagelaunch/",
    "__pycache__/",
    "*.pyc",
    ".pytest_cache/",
    ".mypy_cache/",
    ".ruff_cache/",
    ".ipynb_checkpoints/",
    "opt_ml/",
]


@dataclass(frozen=True)
class Bundle:
    """The bytes of sourcedir.tar.gz with what went into it."""

    data: bytes
    files: tuple[str, ...]
    source_bytes: int

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def s3_uri(self, prefix: str) -> str:
        """Content-addressed location under ``prefix``: unchanged code, unchanged key."""
        return f"{prefix.rstrip('/')}/sagelaunch-code/{self.sha256[:32]}/sourcedir.tar.gz"

    def summary(self) -> dict[str, object]:
        return {
            "files": list(self.files),
            "bytes": self.source_bytes,
            "compressed_bytes": len(self.data),
            "sha256": self.sha256,
        }


def code_prefix(config: LaunchConfig) -> str:
    """Where this config's code bundles go (each content-addressed below it)."""
    return config.code_location or str(config.output_path)


def bundled_files(source_dir: Path) -> list[Path]:
    """Files that go into the bundle, as paths relative to ``source_dir``, sorted."""
    ignore_file = source_dir / IGNORE_FILE
    user_rules = ignore_file.read_text("utf-8").splitlines() if ignore_file.is_file() else []
    # Two specs, so that a user's `!credentials` cannot re-include what is never bundled.
    specs = [
        pathspec.GitIgnoreSpec.from_lines(NEVER_BUNDLED),
        pathspec.GitIgnoreSpec.from_lines(user_rules),
    ]
    files = [p.relative_to(source_dir) for p in source_dir.rglob("*") if p.is_file()]
    kept = [f for f in files if not any(s.match_file(f.as_posix()) for s in specs)]
    return sorted(kept, key=lambda f: f.as_posix())


def build(source_dir: Path) -> Bundle:
    """Tar and gzip ``source_dir`` deterministically (a .tar.gz source, SDK v3's, as it is)."""
    if source_dir.is_file():
        return _archive_as_it_is(source_dir)
    return _tar([(f.as_posix(), source_dir / f) for f in bundled_files(source_dir)])


def _archive_as_it_is(path: Path) -> Bundle:
    """A .tar.gz source (source_archive.py) as the bundle, byte for byte: v3 uploads the tarball
    it is given."""
    with tarfile.open(path, mode="r:gz") as tar:
        files = [m for m in tar.getmembers() if m.isfile()]
    names = tuple(sorted(m.name.removeprefix("./") for m in files))
    return Bundle(path.read_bytes(), names, sum(m.size for m in files))


def for_config(loaded: LoadedConfig) -> Bundle:
    """What the SDK uploads for this config. With ``source_dir``, that folder; without it, the
    entry point script alone (fw_utils.tar_and_upload_dir tars ``[script]`` when ``directory``
    is None), so nothing else beside the config leaves the machine. A shipped entry point is
    uploaded with the folder it imports its modules from. The script keeps the relative path
    the config gives it (the SDK would flatten ``sub/train.py`` to ``train.py``), so that
    ``sagemaker_program`` and the archive agree."""
    from sagelaunch.config.paths import uploads_script_alone

    config = loaded.config
    if not uploads_script_alone(loaded.path, config.source_dir, config.entry_point):
        if not config.dependencies:
            return build(loaded.source_dir)  # a .tar.gz source too
        folder = loaded.source_dir
        code = [(f.as_posix(), folder / f) for f in bundled_files(folder)]
    else:
        code = [(str(config.entry_point), loaded.source_dir / str(config.entry_point))]
    return _tar(code + _dependencies(loaded))


def _dependencies(loaded: LoadedConfig) -> list[tuple[str, Path]]:
    """The config's dependencies as the SDK's create_tar_file adds them: each file or folder at
    the top level under its own name (a folder's files below it, the never-bundled left out)."""
    entries: list[tuple[str, Path]] = []
    for index, written in enumerate(loaded.config.dependencies):
        path = (loaded.path.parent / written).resolve()
        if path.is_file():
            entries.append((path.name, path))
        elif path.is_dir():
            entries += [(f"{path.name}/{f.as_posix()}", path / f) for f in bundled_files(path)]
        else:
            raise loaded.error(("dependencies", index), f"{written} not found: fix the path")
    return entries


def _tar(entries: list[tuple[str, Path]]) -> Bundle:
    """The gzipped tar of ``entries`` (name in the archive, file), in the order given."""
    raw = io.BytesIO()
    total = 0
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, path in entries:
            content = path.read_bytes()
            total += len(content)
            tar.addfile(_tar_info(name, len(content), path), io.BytesIO(content))
    compressed = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=compressed, mtime=0) as gz:
        gz.write(raw.getvalue())
    return Bundle(compressed.getvalue(), tuple(name for name, _ in entries), total)


def _tar_info(name: str, size: int, path: Path) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size = size
    info.mtime = 0
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mode = 0o755 if path.stat().st_mode & 0o111 else 0o644
    return info


def extract(data: bytes, target: Path) -> None:
    """Unpack a bundle (as the container does into /opt/ml/code)."""
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(target, filter="data")

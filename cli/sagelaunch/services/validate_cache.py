"""`validate`'s cache: configs that have not changed are answered without loading anything.

Validating costs the YAML parser, pydantic's model and the SDK's data files (most of a second for
the examples), and editors, pre-commit hooks and CI run it on the same files again and again. An
answer is stored under a key made of everything it depends on:

* the command: the files as named (problems quote them), the --set overrides, the output format;
* the code and data that judge: sagelaunch's own files and the SDK's data files (sizes and
  mtimes, no import), the installed versions of the SDK, botocore, pydantic and ruamel (their
  dist-info folders), $AWS_REGION and today's date (end of life);
* for table output, the console it was drawn for (terminal or not, its size, colour settings),
  so that a hit writes back the very text Rich drew, without importing Rich.

and each entry lists what it read, checked on every hit: the sha256 of every config and of every
base it extends, and whether each entry point was (or was not) where the rules looked for it.
Only runs where every config loaded are stored (a file that failed to load may be fixed by
creating a base it names). Entries are JSON under `.sagelaunch/cache/validate/`, written
atomically; an unreadable entry is a miss, and a folder that cannot be written means no cache.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sagelaunch import __version__, caches
from sagelaunch.config import plan_settings
from sagelaunch.config.paths import resolve_source_dir, shipped_source_dir

if TYPE_CHECKING:
    from sagelaunch.checks.validation import Report

VALIDATE = "validate"  # caches.folder(VALIDATE): the validate cache
FORMAT = 2
# plan.mesh imports the device-mesh rule from the shipped entry points: a change there counts.
MESH_RULE = shipped_source_dir("pytorch") / "torch_mesh.py"
# What Rich reads to decide width and colours (beside whether the stream is a terminal).
_CONSOLE_ENV = (
    *("COLUMNS", "LINES", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR"),
    *("TTY_COMPATIBLE", "TTY_INTERACTIVE", "JUPYTER_COLUMNS", "JUPYTER_LINES"),
)


@dataclass
class Answer:
    """A cached run: each report's JSON, and what the table output wrote, stream by stream."""

    reports: list[dict[str, Any]]
    rendered: list[tuple[str, str]]

    @property
    def ok(self) -> bool:
        return all(report["ok"] for report in self.reports)

    @property
    def warned(self) -> bool:
        return any(report["warnings"] for report in self.reports)

    def replay(self) -> None:
        for stream, text in self.rendered:
            getattr(sys, stream).write(text)
        sys.stdout.flush()
        sys.stderr.flush()


def key(files: list[Path], overrides: list[str] | None, output: str) -> str:
    parts = {
        "format": FORMAT,
        "files": [str(path) for path in files],
        "cwd": os.getcwd(),
        "overrides": list(overrides or []),
        "output": output,
        "console": _console() if output == "table" else None,
        "sagelaunch": [__version__, _tree(Path(__file__).resolve().parents[1])],
        "mesh_rule": _stat(MESH_RULE),  # the rules read it, from the entry points' folder
        "judges": _judges(),
        "plan_settings": plan_settings.fingerprint(),  # validate warns about missing ones
        "date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def lookup(key: str, cache_dir: Path | None = None) -> Answer | None:
    try:
        folder = cache_dir or caches.folder(VALIDATE)
        entry = json.loads((folder / f"{key}.json").read_text(encoding="utf-8"))
        if not _still_true(entry):
            return None
        rendered = [(str(stream), str(text)) for stream, text in entry["rendered"]]
        return Answer(list(entry["reports"]), rendered)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(
    key: str,
    reports: list[Report],
    rendered: list[tuple[str, str]],
    cache_dir: Path | None = None,
) -> None:
    """Keep this run's answer, when every config loaded; never fails the command."""
    if any(report.loaded is None for report in reports):
        return
    entry = {
        "reports": [report.as_json() for report in reports],
        "rendered": rendered,
        "read": {str(p): _sha256(p) for report in reports for p in _sources(report)},
        "entry_points": [_entry_point(report) for report in reports],
    }
    with suppress(OSError):
        from sagelaunch import atomic

        folder = cache_dir or caches.folder(VALIDATE)
        atomic.write_text(folder / f"{key}.json", json.dumps(entry))


@contextmanager
def recording(enabled: bool) -> Iterator[list[tuple[str, str]]]:
    """Pass stdout and stderr through, noting every write in order (for `store`)."""
    writes: list[tuple[str, str]] = []
    if not enabled:
        yield writes
        return
    real = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Tee(real[0], "stdout", writes), _Tee(real[1], "stderr", writes)
    try:
        yield writes
    finally:
        sys.stdout, sys.stderr = real


class _Tee:
    """A text stream that records what passes through it; everything else is the real one's."""

    def __init__(self, real: Any, name: str, writes: list[tuple[str, str]]) -> None:
        self._real, self._name, self._writes = real, name, writes

    def write(self, text: str) -> int:
        self._writes.append((self._name, text))
        return int(self._real.write(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


# --- what an answer depends on -------------------------------------------------------------------


def _console() -> dict[str, Any]:
    streams = {}
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        tty = bool(getattr(stream, "isatty", lambda: False)())
        size = None
        if tty:
            with suppress(OSError, ValueError):
                size = tuple(os.get_terminal_size(stream.fileno()))
        streams[name] = {"tty": tty, "size": size}
    return {"streams": streams, "env": {k: os.environ.get(k) for k in _CONSOLE_ENV}}


def _tree(root: Path) -> list[tuple[str, int, int]]:
    """(path, size, mtime) of every file under ``root`` except bytecode."""
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            stat = os.stat(os.path.join(folder, name))
            found.append(
                (os.path.relpath(os.path.join(folder, name), root), stat.st_size, stat.st_mtime_ns)
            )
    return found


_INSTALLS = ("sagemaker", "botocore", "pydantic", "pydantic_core", "ruamel.yaml")


def _judges() -> list[Any]:
    """The SDK's data files the rules read, and which versions of the SDK, botocore, the parser
    and the validator are installed (their dist-info folders, beside the SDK's package)."""
    from sagelaunch.catalog.sdk_data import package_dir

    sdk, botocore = package_dir("sagemaker"), package_dir("botocore")
    files = [sdk / "fw_utils.py", sdk / "image_uris.py", botocore / "data" / "endpoints.json"]
    stats = [_stat(path) for path in files] + _tree(sdk / "image_uri_config")
    prefixes = tuple(f"{name.replace('.', '_')}-" for name in _INSTALLS)
    sites = sorted({str(sdk.parent), str(botocore.parent)})
    installs = [e.name for site in sites for e in os.scandir(site)]
    return [
        sys.version,
        sites,
        stats,
        sorted(n for n in installs if n.lower().startswith(prefixes)),
    ]


def _stat(path: Path) -> tuple[str, int, int]:
    stat = path.stat()
    return (str(path), stat.st_size, stat.st_mtime_ns)


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _sources(report: Report) -> list[Path]:
    assert report.loaded is not None
    return report.loaded.document.sources


def _entry_point(report: Report) -> dict[str, Any]:
    assert report.loaded is not None
    config = report.loaded.config
    return {
        "config": str(report.file),
        "source_dir": config.source_dir,
        "framework": config.framework,
        "entry_point": config.entry_point,
        "exists": _exists(report.file, config.source_dir, config.entry_point, config.framework),
        "gitignore": config.respect_gitignore,
        "links": _links(
            report.file,
            config.source_dir,
            config.entry_point,
            config.framework,
            config.respect_gitignore,
        ),
    }


def _links(
    config: Path, source_dir: str | None, entry_point: str | None, framework: str, gitignore: bool
) -> list[str]:
    """The links the rules name in the code folder (rules/code.py): a new one is a new warning."""
    from sagelaunch import bundle_walk

    code = resolve_source_dir(config, source_dir, entry_point, framework)
    if not code.is_dir() or bundle_walk.too_wide(code):
        return []
    return bundle_walk.links(code, gitignore)


def _exists(
    config: Path, source_dir: str | None, entry_point: str | None, framework: str
) -> bool | None:
    if not entry_point:
        return None
    code = resolve_source_dir(config, source_dir, entry_point, framework)
    if code.is_file():  # an SDK v3 .tar.gz: the entry point must be in it
        from sagelaunch import source_archive

        return source_archive.entry_point_problem(code, entry_point) is None
    return (code / entry_point).is_file()


def _still_true(entry: dict[str, Any]) -> bool:
    if entry.get("read") is None or any(
        _sha256(Path(path)) != digest for path, digest in entry["read"].items()
    ):
        return False
    return all(
        _exists(Path(e["config"]), e["source_dir"], e["entry_point"], e["framework"]) == e["exists"]
        and _links(
            Path(e["config"]), e["source_dir"], e["entry_point"], e["framework"], e["gitignore"]
        )
        == e["links"]
        for e in entry["entry_points"]
    )

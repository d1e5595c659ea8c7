"""Which files of a folder go into the code bundle, and what a user should hear about the rest.

The SDK tars ``source_dir`` with ``tarfile.add(..., dereference=True)``
(``sagemaker.utils.create_tar_file``): links to folders and to files are followed, wherever they
point. This walk does the same, and says so: every link whose target lies outside the folder is
named with its target, and a link back to a folder it sits in (or a cycle of links) is named and
not followed (the SDK's walk would never end). Left out, in this order:

1. what is never the job's code, silently: version control (``.git/``...), bytecode and tool
   caches, sagelaunch's own ``.sagelaunch/`` (runs and caches);
2. what the user's ignore files exclude: every ``.gitignore`` (nested ones apply below their own
   folder, negations included, read as git reads them: a folder left out is not entered, so a
   ``!`` cannot bring back a file inside it; the ``.gitignore`` files above the folder up to
   the repository's root count too) unless ``respect_gitignore: false``, and ``.sagelaunchignore``
   files (same syntax, read after the ``.gitignore`` of their folder, so they can re-include);
3. credentials (bundle_credentials.py), whatever the ignore files say, named in a warning;
4. entries that cannot be read (a folder without permission, a broken link), named in a warning.

Only names and sizes are read here (``validate`` walks without reading a byte); ``scan=True``
also reads the small text files kept, for token-looking values (secretscan), and leaves out a
file holding a PEM private key.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from sagelaunch import bundle_credentials

IGNORE_FILE = ".sagelaunchignore"
GITIGNORE = ".gitignore"
# Never the job's code, left out without a word (gitignore syntax, whatever the ignore files say).
NEVER_BUNDLED = [
    ".git/",
    ".hg/",
    ".svn/",
    ".sagelaunch/",
    "__pycache__/",
    "*.pyc",
    ".pytest_cache/",
    ".mypy_cache/",
    ".ruff_cache/",
    ".ipynb_checkpoints/",
    "opt_ml/",
]
_NEVER = pathspec.GitIgnoreSpec.from_lines(NEVER_BUNDLED)
BIG_FILE = 100 * 1024**2  # a file above this is named in a warning
SCAN_LIMIT = 256 * 1024  # text files up to this size are scanned for token-looking values
_PRIVATE_KEY = re.compile(rb"-----BEGIN [A-Z ]*PRIVATE KEY-----")


@dataclass
class Entry:
    """A file that goes in: its name in the archive, the path read, size and whether executable."""

    name: str
    path: Path
    size: int
    executable: bool


@dataclass
class Walk:
    """What a walk of one folder found (names relative to it, posix)."""

    root: Path
    files: list[Entry] = field(default_factory=list)
    credentials: list[str] = field(default_factory=list)  # left out, named
    ignored_files: int = 0  # left out by .gitignore / .sagelaunchignore
    ignored_bytes: int = 0
    ignored_folders: int = 0  # not entered (their files are not counted)
    outside_links: list[tuple[str, str]] = field(default_factory=list)  # (link, target)
    loops: list[tuple[str, str]] = field(default_factory=list)  # (link, target), not followed
    unreadable: list[str] = field(default_factory=list)  # skipped, with why
    secrets: list[str] = field(default_factory=list)  # "file:line (why)", the value never shown

    @property
    def total_bytes(self) -> int:
        return sum(entry.size for entry in self.files)

    def warnings(self, label: str = "source_dir", links: bool = True) -> list[str]:
        """One line per kind of finding, each naming every file concerned (the links' lines
        only with ``links``: `validate`'s rule says those of source_dir, located)."""
        lines = self.link_warnings(label) if links else []
        if self.credentials:
            lines.append(
                f"{label} {self.root} holds credential files, left out of the code bundle: "
                f"{', '.join(self.credentials)} (add them to .gitignore or .sagelaunchignore "
                "to silence this)"
            )
        if self.secrets:
            lines.append(
                f"{label} {self.root} has token-looking values in files that are uploaded: "
                f"{', '.join(self.secrets)}: move them to environment: ${{env:NAME}}, or ignore "
                "the files"
            )
        if self.unreadable:
            lines.append(
                f"{label} {self.root} has entries that cannot be read, skipped: "
                f"{', '.join(self.unreadable)}"
            )
        big = sorted((e for e in self.files if e.size > BIG_FILE), key=lambda e: -e.size)
        if big:
            named = ", ".join(f"{e.name} ({human_bytes(e.size)})" for e in big[:5])
            more = f" and {len(big) - 5} more" if len(big) > 5 else ""
            lines.append(
                f"{label} holds big files: {named}{more}; add them to .sagelaunchignore or "
                ".gitignore (and read them from an input channel)"
            )
        return lines

    def link_warnings(self, label: str = "source_dir") -> list[str]:
        """Links out of the folder (uploaded: the SDK follows them) and loops (not followed)."""
        lines = []
        if self.outside_links:
            named = ", ".join(f"{link} -> {target}" for link, target in self.outside_links)
            lines.append(
                f"{label} {self.root} has links to files outside it, uploaded as the SDK follows "
                f"them: {named}"
            )
        if self.loops:
            named = ", ".join(f"{link} -> {target}" for link, target in self.loops)
            lines.append(
                f"{label} {self.root} has links to a folder they are in (a loop), not followed: "
                f"{named}"
            )
        return lines


def human_bytes(size: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError  # pragma: no cover


class _Rules:
    """The ignore files that apply in one folder: (its path below the walk's root, its spec),
    the deepest last; a path's fate is the deepest spec that matches it (git's precedence)."""

    def __init__(self, specs: list[tuple[str, pathspec.GitIgnoreSpec]]) -> None:
        self.specs = specs

    def ignored(self, name: str, is_dir: bool) -> bool:
        for base, spec in reversed(self.specs):
            if base.startswith("../"):  # a .gitignore above the root: base is the root's path
                relative = base[3:] + name
            elif name.startswith(base):
                relative = name[len(base) :]
            else:
                continue
            result = spec.check_file(relative + "/" if is_dir else relative)
            if result.include is not None:
                return bool(result.include)
        return False

    def below(self, folder: Path, name: str, gitignore: bool) -> _Rules:
        lines = _lines(folder / GITIGNORE) if gitignore else []
        lines += _lines(folder / IGNORE_FILE)
        if not lines:
            return self
        return _Rules([*self.specs, (name + "/" if name else "", _spec(lines))])


def _spec(lines: list[str]) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text("utf-8", errors="replace").splitlines()
    except OSError:
        return []


def _above(root: Path) -> list[tuple[str, pathspec.GitIgnoreSpec]]:
    """The .gitignore files of the repository around ``root``, from its top down to ``root``'s
    parent, each with ``root``'s path below it (as "../" + path + "/"); none outside a repo."""
    found: list[tuple[str, pathspec.GitIgnoreSpec]] = []
    if (root / ".git").exists():
        return found
    below = root.name + "/"
    for folder in root.parents:
        lines = _lines(folder / GITIGNORE)
        # A .gitignore that ignores the folder itself is not applied: the config names that
        # folder (generated code under build/, a run's copy under .sagelaunch/), and git's
        # rule would leave out every file in it.
        if lines and not (spec := _spec(lines)).match_file(below):
            found.append(("../" + below, spec))
        if (folder / ".git").exists():
            return list(reversed(found))
        below = folder.name + "/" + below
    return []


def walk(root: Path, *, gitignore: bool = True, scan: bool = False) -> Walk:
    """Every file of ``root`` that goes into the bundle (sorted by name), and the findings."""
    root = Path(os.path.abspath(root))
    found = Walk(root)
    real_root = os.path.realpath(root)
    base = _Rules(_above(root) if gitignore else [])
    try:
        top = os.stat(root)
    except OSError as exc:
        found.unreadable.append(f". ({exc.strerror})")
        return found
    # (folder on disk, its name in the bundle, its rules, the folders it is in: (dev, inode))
    Folder = tuple[str, str, _Rules, tuple[tuple[int, int], ...]]
    stack: list[Folder] = [
        (str(root), "", base.below(root, "", gitignore), ((top.st_dev, top.st_ino),))
    ]
    while stack:
        folder, prefix, rules, seen = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            found.unreadable.append(f"{prefix or '.'}/ ({exc.strerror or exc})")
            continue
        below: list[Folder] = []
        for entry in entries:
            name = prefix + entry.name
            try:
                is_link = entry.is_symlink()
                info = os.stat(entry.path)  # through links, as the SDK's tarfile does
            except OSError as exc:
                why = "a broken link" if entry.is_symlink() else exc.strerror or str(exc)
                found.unreadable.append(f"{name} ({why})")
                continue
            is_dir = stat.S_ISDIR(info.st_mode)
            if _NEVER.match_file(name + "/" if is_dir else name):
                continue
            if rules.ignored(name, is_dir):
                if is_dir:
                    found.ignored_folders += 1
                else:
                    found.ignored_files += 1
                    found.ignored_bytes += info.st_size
                continue
            target = os.path.realpath(entry.path) if is_link else None
            if bundle_credentials.is_credential(name, is_dir) or (
                target is not None and bundle_credentials.is_credential(target, is_dir)
            ):
                found.credentials.append(name + ("/" if is_dir else ""))
                continue
            if target is not None and not _inside(target, real_root):
                found.outside_links.append((name, target))
            if is_dir:
                key = (info.st_dev, info.st_ino)
                if key in seen:
                    found.loops.append((name, target or entry.path))
                    continue
                child = rules.below(Path(entry.path), name, gitignore)
                below.append((entry.path, name + "/", child, (*seen, key)))
            elif stat.S_ISREG(info.st_mode):
                file = Entry(name, Path(entry.path), info.st_size, bool(info.st_mode & 0o111))
                if scan and info.st_size <= SCAN_LIMIT and not _scanned(file, found):
                    found.credentials.append(name)
                    continue
                found.files.append(file)
            else:
                found.unreadable.append(f"{name} (not a regular file)")
        stack += reversed(below)
    found.files.sort(key=lambda e: e.name)
    return found


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _scanned(file: Entry, found: Walk) -> bool:
    """Read a small file: False when it holds a private key (left out); token-looking values
    of a text file are noted in ``found.secrets`` (file and line, never the value)."""
    try:
        data = file.path.read_bytes()
    except OSError:
        return True  # the archive step reports it
    if _PRIVATE_KEY.search(data):
        return False
    if b"\0" in data[:8192]:
        return True  # binary
    from sagelaunch import secretscan

    text = data.decode("utf-8", errors="replace")
    code = file.name.endswith((".py", ".pyi"))
    shapes = secretscan.has_shape(text)
    for number, line in enumerate(text.splitlines(), start=1):
        reason = secretscan.line_finding(line, code=code, shapes=shapes)
        if reason is not None:
            found.secrets.append(f"{file.name}:{number} ({reason})")
    return True


def links(root: Path, gitignore: bool = True) -> list[str]:
    """The links a walk of ``root`` names, "link -> target" each (links out, then loops): what
    `validate` warns about, and what its cache checks again."""
    found = walk(root, gitignore=gitignore)
    return [f"{a} -> {b}" for a, b in found.outside_links] + [
        f"{a} -> {b} (a loop)" for a, b in found.loops
    ]


def excluded(root: Path, inside: Path, gitignore: bool = True) -> bool:
    """Whether the folder ``inside`` (below ``root``) is left out of a walk of ``root``: never
    bundled, or ignored by an ignore file on the way down."""
    parts = inside.relative_to(root).parts
    rules = _Rules(_above(root) if gitignore else []).below(root, "", gitignore)
    name = ""
    folder = root
    for part in parts:
        name += part
        folder = folder / part
        if _NEVER.match_file(name + "/") or rules.ignored(name, True):
            return True
        if bundle_credentials.is_credential(name, True):
            return True
        rules = rules.below(folder, name, gitignore)
        name += "/"
    return False


def too_wide(folder: Path) -> str | None:
    """Why ``folder`` cannot be a code folder (the whole disk, the home folder), or None."""
    resolved = Path(os.path.realpath(folder))
    if resolved == Path(resolved.anchor):
        return f"{folder} is the root of the disk"
    try:
        home = Path(os.path.realpath(Path.home()))
    except RuntimeError:
        return None
    if resolved == home:
        return f"{folder} is your home folder"
    return None

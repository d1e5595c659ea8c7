"""The bytecode of the installed packages a job imports, compiled once, outside the sandbox.

Python writes a module's bytecode (``__pycache__/*.pyc``) the first time it imports it, where it
can. In the sandbox the Python environment is read-only, so where it was installed without
bytecode (uv installs none; pip compiles at install time) every host process compiled torch,
sympy, TensorFlow and the rest from source again on every run: `local launch_configs/cpu-local.yaml`
took 8.5 s instead of 4.2 s, run after run.

So before the hosts start, the packages the job's code imports (its ``import`` lines, read as
text) and the framework are compiled here, with everything their distributions require, as
``python -m compileall`` would: no module is run. A package whose top module already has its
bytecode counts as compiled (pip compiled it, or an import outside the sandbox did, which compiled
what it imports too), so each top module is written last, after the rest of its package.
Only site-packages folders (and `local`'s own overlays) are written, never a folder of the user's
(an editable install, $PYTHONPATH): nothing of theirs changes; nor a folder read-only to this user.
As pip compiles at install time whatever $PYTHONDONTWRITEBYTECODE says (it stops Python writing
bytecode as it imports; the hosts still read what is there), so does this.
"""

from __future__ import annotations

import importlib.machinery
import importlib.metadata
import importlib.util
import os
import re
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from itertools import islice
from pathlib import Path

from sagelaunch.local import job_packages
from sagelaunch.local.software import normal_name

# `import a.b, c as d` and `from a.b import c`, also indented (imports inside functions); not
# relative ones (`from . import x`).
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w., \t]+)", re.MULTILINE)
_FROM = re.compile(r"^[ \t]*from[ \t]+([A-Za-z_]\w*)", re.MULTILINE)
_NAME = re.compile(r"[ \t]*([A-Za-z_]\w*)")
_MAX_SCANNED = 2000  # .py files read from a code folder: a folder of data needs no more


def compile_imports(
    code: Path, framework_module: str, overlays: list[Path], say: Callable[[str], None]
) -> None:
    """Compile what ``code`` (and the framework) imports that lacks bytecode."""
    search = [*map(str, overlays), *sys.path]
    sites = [*overlays, *site_folders()]
    missing = {
        name: origin
        for name in sorted(imported_names(code) | {framework_module})
        if (origin := installed_origin(name, search, code, sites)) and not compiled(origin)
    }
    if not missing:
        return
    roots = [r for r in requirement_roots(missing, search) if _writable(r) and _within(r, sites)]
    if not roots:
        return
    needs = "what it requires" if len(missing) == 1 else "what they require"
    say(
        f"compiling the bytecode of {', '.join(missing)} and {needs}, once for this Python "
        "environment (the sandbox keeps it read-only)"
    )
    last = [str(origin) for origin in missing.values()]
    subprocess.run(
        [sys.executable, "-m", __name__, *map(str, roots), "--last", *last],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,  # a file that does not compile is one Python cannot import either
    )


def imported_names(code: Path) -> set[str]:
    """The top-level module names the ``.py`` files under ``code`` import."""
    names: set[str] = set()
    for path in islice(sorted(code.rglob("*.py")), _MAX_SCANNED):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        names.update(_FROM.findall(text))
        for clause in _IMPORT.findall(text):
            names.update(m[1] for part in clause.split(",") if (m := _NAME.match(part)))
    return names - set(sys.stdlib_module_names) - {"__future__"}


def installed_origin(name: str, search: list[str], code: Path, sites: list[Path]) -> Path | None:
    """The file Python would load first for ``name`` (its ``__init__.py``) when it comes from an
    installed package: None for the job's own modules, compiled extensions and what is not
    installed (the job then fails as it would anyway)."""
    try:
        spec = importlib.machinery.PathFinder.find_spec(name, [str(code), *search])
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    origin = Path(spec.origin)
    return origin if _within(origin, sites) else None


def compiled(source: Path) -> bool:
    return Path(importlib.util.cache_from_source(str(source))).is_file()


def requirement_roots(missing: dict[str, Path], search: list[str]) -> list[Path]:
    """The package folders (or single modules) of the distributions providing ``missing`` and
    of every distribution they require, installed on ``search``; else the package itself."""
    provided = _distributions_by_module(search)
    todo = [provided[name] for name in missing if name in provided]
    seen: dict[str, importlib.metadata.Distribution] = {}
    while todo:
        dist = todo.pop()
        key = normal_name(dist.metadata["Name"] or "")
        if key in seen:
            continue
        seen[key] = dist
        todo += [provided[r] for r in _required(dist) if r in provided]
    roots = {root for dist in seen.values() for root in _roots(dist)}
    # Not from a recorded distribution: the package folder, or the one module.
    roots |= {_package_of(origin) for name, origin in missing.items() if name not in provided}
    return sorted(roots)


def _package_of(origin: Path) -> Path:
    return origin.parent if origin.name == "__init__.py" else origin


def _distributions_by_module(search: list[str]) -> dict[str, importlib.metadata.Distribution]:
    """Top-level module name, and normalized distribution name, to the distribution (the first
    on ``search`` wins, as for imports)."""
    found: dict[str, importlib.metadata.Distribution] = {}
    for dist in importlib.metadata.distributions(path=search):
        for name in {normal_name(dist.metadata["Name"] or ""), *_top_level(dist)}:
            found.setdefault(name, dist)
    return found


def _top_level(dist: importlib.metadata.Distribution) -> set[str]:
    return {path.parts[0].removesuffix(".py") for path in _python_sources(dist)}


def _roots(dist: importlib.metadata.Distribution) -> set[Path]:
    return {Path(str(dist.locate_file(path.parts[0]))) for path in _python_sources(dist)}


def _python_sources(dist: importlib.metadata.Distribution) -> list[importlib.metadata.PackagePath]:
    """The installed .py files of ``dist`` (RECORD), not scripts outside its folder."""
    return [p for p in dist.files or () if p.suffix == ".py" and p.parts[0] != ".."]


def _required(dist: importlib.metadata.Distribution) -> list[str]:
    """Names of what ``dist`` requires here (not its extras')."""
    return [normal_name(name) for name in job_packages.required_names(dist)]


def site_folders() -> list[Path]:
    """Where installers put packages for this interpreter (venv or not)."""
    paths = sysconfig.get_paths()
    folders = {paths["purelib"], paths["platlib"]}
    if sys.flags.no_user_site == 0:
        import site

        folders.add(site.getusersitepackages())
    return [Path(f) for f in sorted(folders)]


def _within(path: Path, folders: list[Path]) -> bool:
    return any(path.is_relative_to(folder) for folder in folders)


def _writable(root: Path) -> bool:
    return os.access(root if root.is_dir() else root.parent, os.W_OK)


def main(argv: list[str]) -> int:
    """``python -m sagelaunch.local.bytecode ROOT... --last FILE...``: compile every module under
    each ROOT (a folder or a module) in one pool of processes, then the FILEs (a later run sees a
    package as compiled only once all of it is)."""
    from concurrent.futures import ProcessPoolExecutor

    split = argv.index("--last") if "--last" in argv else len(argv)
    roots, last = argv[:split], argv[split + 1 :]
    files = [f for root in roots for f in _sources(Path(root)) if f not in last]
    with ProcessPoolExecutor() as pool:
        list(pool.map(_compile, files, chunksize=64))
    for path in last:
        _compile(path)
    return 0


def _sources(root: Path) -> list[str]:
    return [str(p) for p in sorted(root.rglob("*.py"))] if root.is_dir() else [str(root)]


def _compile(path: str) -> bool:
    """As compileall does it: skipped when up to date, silent when the file does not compile."""
    import compileall

    return bool(compileall.compile_file(path, quiet=2))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

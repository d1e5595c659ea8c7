"""The hosts' ``sitecustomize``: the software overlays as site directories after the standard
library, where the container's pip installs into site-packages.

A requirement that pulls in a backport of a standard module (``typing``, ``enum34``'s ``enum``)
is inert in the container: site-packages comes after the standard library. On PYTHONPATH the
same overlay would come before it, and the first ``import enum`` (``re`` imports it, and so does
a .pth file at start-up) would load the backport and fail. So the hosts get only the folder of
overlays (software.ENVS_DIR) on PYTHONPATH, whose ``sitecustomize.py`` is a copy of this file.
Python imports it once its own site directories are set up, and it:

- puts the folders named in SAGELAUNCH_SITE_PACKAGES (first wins) right before this venv's
  site-packages: after the standard library and ahead of the venv's packages, as pip upgrading a
  package in the container's site-packages replaces the old one;
- processes their ``.pth`` files, as Python does in a site directory (their folders go last);
- hides the top-level modules listed in the file SAGELAUNCH_HIDDEN_MODULES names (job_packages.py:
  this venv's distributions that the job's image does not hold) from the folders then on
  sys.path but the overlays and PYTHONPATH's, and from the meta path's own finders (an editable
  install's): ``import tensorflow`` fails there as in the image, and ``find_spec`` says None;
- then runs the ``sitecustomize`` this one hides (the next on sys.path: the venv's, the
  system's), so the machine's own customisation is not lost.

It imports nothing but what Python's start-up has loaded already (os, sys, site) and the frozen
importlib machinery.
"""

from __future__ import annotations

import os
import site
import sys

VARIABLE = "SAGELAUNCH_SITE_PACKAGES"
HIDDEN_VARIABLE = "SAGELAUNCH_HIDDEN_MODULES"
DISTRIBUTIONS = "[distributions]"  # job_packages.DISTRIBUTIONS


def main() -> None:
    folders = [folder for folder in os.environ.get(VARIABLE, "").split(os.pathsep) if folder]
    own = {_key(entry) for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry}
    venv = [entry for entry in sys.path if entry and _key(entry) not in own]
    if folders:
        add_site_folders(folders)
    hidden = os.environ.get(HIDDEN_VARIABLE)
    listed = ""
    if hidden:
        try:
            with open(hidden, encoding="utf-8") as file:
                listed = file.read()
        except OSError:  # the run folder gone under a straggler: hide nothing, never crash
            pass
    if listed:
        modules, _, distributions = listed.partition(DISTRIBUTIONS)
        hide(frozenset(modules.split()), {_key(entry) for entry in venv})
        hide_metadata(frozenset(distributions.split()))
    chain(os.path.dirname(os.path.abspath(__file__)))


class _Hiding:
    """A finder that does not find the hidden top-level modules; all else as ``finder``."""

    def __init__(self, finder: object, names: frozenset[str]) -> None:
        self._finder = finder
        self._names = names

    def find_spec(self, fullname: str, *args: object) -> object:
        if fullname in self._names:
            return None
        return self._finder.find_spec(fullname, *args)  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> object:
        return getattr(self._finder, name)


class _HidingPathFinder:
    """The standard PathFinder, less the hidden distributions' metadata (importlib.metadata asks
    the meta path's finders for distributions)."""

    def __init__(self, path_finder: type, distributions: frozenset[str]) -> None:
        self._finder = path_finder
        self._distributions = distributions

    def find_distributions(self, *args: object, **kwargs: object) -> object:
        for found in self._finder.find_distributions(*args, **kwargs):  # type: ignore[attr-defined]
            if _normal(found.metadata["Name"] or "") not in self._distributions:
                yield found

    def __getattr__(self, name: str) -> object:
        return getattr(self._finder, name)


def _normal(name: str) -> str:
    """A project name as installers compare them (PEP 503), without importing re."""
    for separator in "_.":
        name = name.replace(separator, "-")
    while "--" in name:
        name = name.replace("--", "-")
    return name.lower()


def hide_metadata(distributions: frozenset[str]) -> None:
    """``distributions`` absent from importlib.metadata, as from the image."""
    from importlib.machinery import PathFinder

    wrapped = [_HidingPathFinder(f, distributions) if f is PathFinder else f for f in sys.meta_path]
    sys.meta_path[:] = wrapped  # type: ignore[assignment]  # a proxy, not a declared finder


def hide(names: frozenset[str], folders: set[str]) -> None:
    """``names`` unfindable in ``folders`` (sys.path entries) and by non-standard meta path
    finders; the standard library's finders and every other folder are left alone."""
    from importlib.machinery import BuiltinImporter, FrozenImporter, PathFinder

    def hook(entry: str) -> object:
        if _key(entry) not in folders:
            raise ImportError
        for other in sys.path_hooks:
            if other is not hook:
                try:
                    return _Hiding(other(entry), names)
                except ImportError:
                    continue
        raise ImportError

    sys.path_hooks.insert(0, hook)  # type: ignore[arg-type]  # returns a proxy finder
    sys.path_importer_cache.clear()
    standard = (BuiltinImporter, FrozenImporter, PathFinder)
    wrapped = [f if f in standard else _Hiding(f, names) for f in sys.meta_path]
    sys.meta_path[:] = wrapped  # type: ignore[assignment]  # proxies, not declared finders


def add_site_folders(folders: list[str]) -> None:
    """``folders`` on sys.path before the first site directory, each processed as one."""
    present = {_key(entry) for entry in sys.path}
    at = _first_site_directory()
    sys.path[at:at] = [folder for folder in folders if _key(folder) not in present]
    known = {_key(entry) for entry in sys.path}
    for folder in folders:
        site.addsitedir(folder, known)  # its .pth files; the folder is on sys.path already


def _first_site_directory() -> int:
    """Where this interpreter's site-packages start on sys.path (its end when none is on it)."""
    sites = {_key(folder) for folder in site.getsitepackages()}
    if site.ENABLE_USER_SITE:
        sites.add(_key(site.getusersitepackages()))
    keys = [_key(entry) for entry in sys.path]
    return next((i for i, key in enumerate(keys) if key in sites), len(keys))


def chain(own: str) -> None:
    """Run the ``sitecustomize`` found after ``own`` on sys.path, as ``sitecustomize``."""
    from importlib.machinery import PathFinder
    from importlib.util import module_from_spec

    mine = _key(own)
    keys = [_key(entry) for entry in sys.path]
    start = keys.index(mine) + 1 if mine in keys else 0
    rest = [entry for entry in sys.path[start:] if _key(entry) != mine]
    spec = PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


def _key(path: str) -> str:
    return os.path.normcase(os.path.abspath(path))


if __name__ == "sitecustomize":
    main()

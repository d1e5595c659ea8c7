"""What a job's Python may import: the image's packages, not this venv's.

The framework images hold one framework and what their definition installs (image_software.py),
with those packages' own dependencies; sagelaunch's venv holds much more (TensorFlow beside
torch, the SageMaker SDK, its own code). A job that saw all of it would import what no image has:
a PyTorch job TensorFlow's Keras 3 (and transformers then refuses to load), an XGBoost job torch.

So the hosts' interpreter (this venv's, for its framework build) shows a job only the
distributions the job's image would give it, and the dependencies of those installed here: the
framework's, the image's (its resolved lock, image_locks.py, where one is stored, else what its
definition names), requirements.txt's, pip's tools. Every other distribution installed here is
hidden by its top-level modules (overlay_site.py hides them from the venv's folders, so that
``import tensorflow`` fails as in the image and ``importlib.util.find_spec`` says None). What
the image ships and this venv lacks still comes through the overlays (container_packages.py).

A custom ``image_uri`` (its packages unknown) or ``local.software: machine`` shows the whole venv.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

from sagelaunch import caches
from sagelaunch.local import container_packages, image_locks, image_software, software

# What every image's Python has besides its packages (pip's tools).
ALWAYS = frozenset({"pip", "setuptools", "wheel"})
# In the hidden file, between the modules and the distributions (whose metadata is hidden too:
# torch imports optree where importlib.metadata finds it).
DISTRIBUTIONS = "[distributions]"
HIDDEN_FILE = "hidden-modules.txt"  # in the run folder's sandbox folder
_FORMAT = 2  # of the hidden file: a new one is written when it changes
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?(.*)$")


def hidden_modules_file(
    framework: str, image: image_software.Image | None, code: Path, run_dir: Path
) -> Path | None:
    """The file naming the top-level modules a job of ``image`` may not import and the
    distributions whose metadata it may not see (None: hide nothing): computed once per
    content into the cache folder, and copied into the run folder, which every host's sandbox
    sees (a cache under /tmp would not be: a sandbox's /tmp is its own)."""
    if image is None:
        return None
    cached = _cached_hidden_file(framework, image, code)
    copy = run_dir / HIDDEN_FILE
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(cached, copy)
    return copy.resolve()


def _cached_hidden_file(framework: str, image: image_software.Image, code: Path) -> Path:
    wanted = [*_framework_roots(framework), *image_names(image), *software.requirement_names(code)]
    key = hashlib.sha256(
        json.dumps([_FORMAT, sys.prefix, _metadata_folders(), wanted]).encode()
    ).hexdigest()[:20]
    path = (caches.folder("job-packages") / f"hidden-{key}.txt").resolve()
    if not path.is_file():
        installed = _installed()
        shown = visible(wanted, installed)
        hidden = hidden_modules(shown, installed)
        lines = [*hidden, DISTRIBUTIONS, *sorted(set(installed) - shown)]
        path.parent.mkdir(parents=True, exist_ok=True)
        # Two runs at once (a local sweep's trials are threads of one process) each write theirs.
        writing = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        writing.write_text("\n".join(lines) + "\n", "utf-8")
        writing.replace(path)  # two runs at once write the same text
    return path


def hidden_imports(hidden_file: Path, code: Path) -> list[str]:
    """What the scripts in ``code`` import that this venv has and the job's image does not."""
    modules = hidden_file.read_text("utf-8").partition(DISTRIBUTIONS)[0].split()
    return sorted(container_packages.imported_modules(code) & set(modules))


def image_names(image: image_software.Image) -> list[str]:
    """The distributions ``image`` holds: its resolved lock where stored, else its definition's."""
    try:
        locked = image_locks.resolved(image)
    except OSError:  # no lock stored for this image
        locked = {}
    return sorted({*locked, *image_software.packages(image)})


def _framework_roots(framework: str) -> list[str]:
    return [software.normal_name(n) for n in software.FRAMEWORK_DISTRIBUTIONS[framework]]


def _metadata_folders() -> list[str]:
    """Every distribution's metadata folder on the path, as importlib.metadata finds them (name
    and version in the folder's name): the key of the hidden file, read without parsing each
    METADATA (~1 ms for this venv's 180 distributions, where parsing them takes 0.2-0.9 s of
    every local run's start). An install, upgrade or removal changes it."""
    found = []
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:  # a zip, a missing folder
            continue
        found += [
            os.path.join(entry, name)
            for name in names
            if name.endswith((".dist-info", ".egg-info"))
        ]
    return sorted(found)


def _installed() -> dict[str, importlib.metadata.Distribution]:
    """This venv's distributions by normalised name (the first of a name, as imports see it)."""
    found: dict[str, importlib.metadata.Distribution] = {}
    for distribution in importlib.metadata.distributions():
        name = distribution.metadata["Name"]
        if name:
            found.setdefault(software.normal_name(name), distribution)
    return found


def visible(
    wanted: Iterable[str], installed: dict[str, importlib.metadata.Distribution]
) -> set[str]:
    """``wanted`` and everything they require, as installed here (extras left out)."""
    seen: set[str] = set()
    queue = [*wanted, *ALWAYS]
    while queue:
        name = software.normal_name(queue.pop())
        if name in seen:
            continue
        seen.add(name)
        distribution = installed.get(name)
        if distribution is not None:
            queue += required_names(distribution)
    return seen


def required_names(distribution: importlib.metadata.Distribution) -> list[str]:
    """The names a distribution requires unconditionally or by a marker true here."""
    names = []
    for requirement in distribution.requires or ():
        match = _REQUIREMENT.match(requirement)
        if not match:
            continue
        marker = requirement.partition(";")[2].strip()
        if marker and not _marker_holds(marker):
            continue
        names.append(match.group(1))
    return names


def _marker_holds(marker: str) -> bool:
    """An environment marker here, no extra given (an extra's requirements are optional)."""
    if "extra" in marker:
        return False
    try:
        from packaging.markers import Marker
    except ImportError:  # pip's vendored copy is not importable: keep the requirement
        return True
    try:
        return bool(Marker(marker).evaluate())
    except Exception:  # an invalid marker: as pip, ignore the requirement
        return False


def hidden_modules(
    shown: set[str], installed: dict[str, importlib.metadata.Distribution]
) -> list[str]:
    """Top-level modules of installed distributions outside ``shown`` that no shown one (nor the
    standard library) provides too (namespace packages such as ``google`` are shared)."""
    hidden: set[str] = set()
    kept: set[str] = set()
    for name in installed:
        modules = container_packages.top_level_modules(name)
        (kept if name in shown else hidden).update(modules)
    return sorted(hidden - kept - set(sys.stdlib_module_names))

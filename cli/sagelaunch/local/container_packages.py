"""What the framework containers ship beside the framework, for scripts that import it.

Each image's packages are read from its own published definition (image_software.py: excerpts
of the AWS Deep Learning Containers' Dockerfiles and pyproject.toml files and of the XGBoost
container's Dockerfiles and requirements.txt, under data/images/, each with its source). The
image is the job's: its framework, framework_version (the nearest older one stored, with a note,
where that version is not) and CPU or GPU by its instance type. A script importing a package the
image installs from the package index (or conda) and this venv lacks gets it in the overlay, as
the image writes the requirement (`opencv-python==4.11.0.86`, `tensorflow-io==0.37.*`, the XGBoost
container's exact pins); torchvision and torchaudio at the version matching this machine's torch.
What the image builds itself (flash-attn against its torch and CUDA), takes from a URL, a VCS or
another index, the frameworks and what pins one are not installed. The XGBoost container's own
library, which no index offers, gets sagelaunch's stand-in.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import importlib.util
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

from sagelaunch.errors import UsageError
from sagelaunch.local import image_software, software

# Built against torch's C++ ABI: the index's wheels fit only the index's torch, not a local build.
TORCH_BUILT = {"torchvision", "torchaudio"}
# Never installed into an overlay, whatever an image ships: the frameworks themselves (this venv
# runs its own, and an overlay never brings a second one; conda calls torch "pytorch", and
# TensorFlow 2.14-2.19's GPU images pip-install "tensorflow-gpu"), what pins a framework release
# exactly (tensorflow-text and tf-models-official require tensorflow==X.Y, torchtext torch==X.Y:
# the index would bring that release beside this venv's), and conda's "python", the interpreter.
NEVER = {
    *(software.normal_name(n) for ns in software.FRAMEWORK_DISTRIBUTIONS.values() for n in ns),
    "pytorch", "tensorflow-gpu", "tensorflow-text", "tf-models-official", "torchtext", "python",
}  # fmt: skip
# Where an import name is not its distribution's name and this venv does not have the
# distribution to say so (its top_level.txt): the images' well-known cases.
IMPORT_NAMES = {
    "PIL": "pillow",
    "cv2": "opencv-python",
    "sklearn": "scikit-learn",
    "yaml": "pyyaml",
    "absl": "absl-py",
}
# Libraries a container ships that no package index offers: sagelaunch's own stand-ins
# (container_libraries/), on the hosts' path when the code imports one this venv lacks.
STAND_INS = {
    "xgboost": {
        # Every module and public name of the 3.0-5 container's library
        # (data/xgboost_container_surface.json); what is not emulated raises when used.
        "sagemaker_xgboost_container": "its whole module surface: data_utils in File mode, "
        "distributed.rabit_run, checkpointing (the container's own); serving and algorithm mode "
        "raise when used",
        # Pinned by the XGBoost container's requirements.txt (sagemaker-containers 2.8.6.post2),
        # which no longer imports on Python 3.10+.
        "sagemaker_containers": "training_env(), entry_point._wait_hostname_resolution()",
    }
}
STAND_INS_DIR = Path(__file__).with_name("container_libraries")
_IMPORT = re.compile(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", re.MULTILINE)
_EXTRAS = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*\[[^\]]*\](.*)$")
# What a package imports at run time that a script's own imports do not show, installed with it
# where the image installs it: transformers' Trainer raises "Using the `Trainer` with `PyTorch`
# requires `accelerate>=0.26.0`" without it, and every Hugging Face training image installs it.
RUNTIME_IMPORTS = {"transformers": ("accelerate",)}


def imported_modules(code: Path) -> set[str]:
    """Top-level modules the scripts in ``code`` import (a cheap scan, no parsing)."""
    found: set[str] = set()
    for script in code.rglob("*.py"):
        found |= set(_IMPORT.findall(script.read_text("utf-8", errors="replace")))
    return found


def missing_pins(
    choice: image_software.Choice | None,
    code: Path,
    say: Callable[[str], None] | None = None,
) -> list[str]:
    """Requirements for what the job's image (``choice``, image_software.choose's) ships, the
    scripts import and this venv lacks (by module name, the image's requirement for each).
    ``say`` gets the choice's note, when the image is another version's or the CPU image stands
    for a Trainium one's."""
    if choice is None:
        return []
    own = set(STAND_INS.get(choice.image.framework, {})) | _local_modules(code)
    missing = sorted(m for m in imported_modules(code) - own if not _importable(m))
    if not missing:
        return []
    offered = offers(choice.image)
    pins: list[str] = []
    for module in missing:
        shipped = _provider(module, offered)
        for pin in _pins(shipped, offered) if shipped else []:
            if pin not in pins:
                pins.append(pin)
    if pins and choice.note and say:
        say(f"  container packages: {choice.note}")
    return pins


def offers(image: image_software.Image) -> dict[str, image_software.Shipped]:
    """What of ``image``'s packages an overlay may install, by normalised name: those it installs
    from the package index or conda, and torchvision and torchaudio from wherever it takes them."""
    return {
        name: shipped
        for name, shipped in image_software.packages(image).items()
        if name not in NEVER and (shipped.origin in ("index", "conda") or name in TORCH_BUILT)
    }


def _provider(
    module: str, offered: dict[str, image_software.Shipped]
) -> image_software.Shipped | None:
    """The offered distribution that provides ``module``: the explicit table, the module's own
    name (tensorflow_io is tensorflow-io), else an installed distribution's own top-level names."""
    for name in (IMPORT_NAMES.get(module), module):
        if name and software.normal_name(name) in offered:
            return offered[software.normal_name(name)]
    for name, shipped in offered.items():
        if module in top_level_modules(name):
            return shipped
    return None


@cache
def top_level_modules(distribution: str) -> frozenset[str]:
    """The modules an installed distribution provides (its top_level.txt, else its RECORD)."""
    found = _installed(distribution)
    if found is None:
        return frozenset()
    listed = found.read_text("top_level.txt")
    if listed is not None:
        names = set(listed.split())
    else:
        names = {f.parts[0].removesuffix(".py") for f in found.files or () if f.parts}
    return frozenset(n for n in names if n.isidentifier())


def _local_modules(code: Path) -> set[str]:
    """The code folder's own top-level modules and packages: imported from there, never asked of
    the image."""
    return (
        {p.stem if p.suffix == ".py" else p.name for p in code.iterdir()}
        if code.is_dir()
        else set()
    )


def stand_ins(framework: str, code: Path) -> list[str]:
    """What the container's own libraries give the code ("module (what)"), where it imports
    one of them and this venv has none: STAND_INS_DIR then goes on the hosts' path."""
    offered = STAND_INS.get(framework, {})
    wanted = sorted(m for m in imported_modules(code) & offered.keys() if not _importable(m))
    return [f"{module} ({offered[module]})" for module in wanted]


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _pins(shipped: image_software.Shipped, offered: dict[str, image_software.Shipped]) -> list[str]:
    """What installs ``shipped`` as the image holds it: its requirement without extras (the
    Hugging Face images' ``transformers[torch,vision,timm,...]`` would bring the index's
    torchvision and a hundred more; what of them the scripts import comes by its own name), and
    what it imports at run time where the image installs that too (RUNTIME_IMPORTS)."""
    match = _EXTRAS.match(shipped.requirement)
    requirement = match.group(1) + match.group(2) if match else shipped.requirement
    pins = [_pin(dataclasses.replace(shipped, requirement=requirement))]
    for name in RUNTIME_IMPORTS.get(software.normal_name(shipped.name), ()):
        also = offered.get(name)
        if also is not None and _installed(also.name) is None:  # else this venv's serves
            pins += _pins(also, offered)
    return pins


def _installed(name: str) -> importlib.metadata.Distribution | None:
    """This venv's distribution of that name, None where it has none."""
    try:
        return importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _pin(shipped: image_software.Shipped) -> str:
    """The image's requirement; torchvision 0.(N+15) and torchaudio 2.N with this machine's torch
    2.N (the images pin them to their own torch; bare where this machine has no torch 2)."""
    distribution = software.normal_name(shipped.name)
    if distribution not in TORCH_BUILT:
        return shipped.requirement
    torch = software.major_minor(software.installed_framework("pytorch") or "")
    if torch is None or torch[0] != 2:
        return distribution
    minor = torch[1]
    pin = f"torchvision==0.{minor + 15}.*" if distribution == "torchvision" else ""
    pin = pin or f"torchaudio==2.{minor}.*"
    _refuse_local_torch_build(pin)
    return pin


def _refuse_local_torch_build(pin: str) -> None:
    """This venv's torch 2.13.0+cpu comes from download.pytorch.org; the package index's
    torchvision is built for the index's (CUDA) torch and fails to load its operators with it
    ("operator torchvision::nms does not exist"), so it is not installed beside a local build."""
    installed = software.installed_framework("pytorch") or ""
    if "+" not in installed:
        return
    name = pin.split("=", 1)[0]
    raise UsageError(
        f"the script imports {name}, which the PyTorch container ships, but this venv lacks it "
        f"and the package index has no build of it for torch {installed}",
        f"pip install '{pin}' --index-url https://download.pytorch.org/whl/"
        f"{installed.split('+', 1)[1]} (into this venv)",
    )

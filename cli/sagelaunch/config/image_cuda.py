"""Whether a framework's GPU image runs on the instance's GPU: the image's CUDA, read from its
published definition (data/images/: the DLC's Dockerfile path names it, cu128, or its
CUDA_VERSION argument, or the PyTorch wheel index its pyproject installs from), against the
first CUDA that compiles for the GPU's compute capability (data/cuda.json, NVIDIA's)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from sagelaunch.catalog import facts
from sagelaunch.catalog.versions import numbers

IMAGES = Path(facts.__file__).resolve().parent.parent / "data" / "images"
_CUDA = (
    re.compile(r"^# path: .*/cu(\d+)(\d)/", re.M),  # pytorch/training/docker/2.8/py3/cu129/...
    re.compile(r"^ARG CUDA_VERSION=(\d+)\.(\d+)", re.M),
    re.compile(r"download\.pytorch\.org/whl/cu(\d+)(\d)\b"),
)

Cuda = tuple[int, int]


@dataclass(frozen=True)
class Mismatch:
    """A GPU image whose CUDA predates the GPU."""

    gpu: str
    capability: str
    needs: Cuda
    image: str  # the image's CUDA as the message writes it ("12.6", or "at most 12.1")
    definition: str | None  # the definition file it is read from (None: inferred)
    first_version: str | None  # the first version whose image has a CUDA new enough


def text(cuda: Cuda) -> str:
    return f"{cuda[0]}.{cuda[1]}"


@cache
def definition_cuda(filename: str) -> Cuda | None:
    """The CUDA a definition file builds on, or None where it does not say."""
    content = (IMAGES / filename).read_text(encoding="utf-8")
    for pattern in _CUDA:
        match = pattern.search(content)
        if match:
            return int(match[1]), int(match[2])
    return None


@cache
def gpu_images(framework: str) -> list[tuple[tuple[int, ...], str, Cuda, str]]:
    """(version numbers, version, CUDA, definition file) of each GPU image of ``framework``
    whose CUDA its definition tells, oldest first."""
    found = []
    index = json.loads((IMAGES / "index.json").read_text(encoding="utf-8"))
    for image in index["images"]:
        if image["framework"] != framework or image["kind"] == "cpu":
            continue
        for filename in image["files"]:
            cuda = definition_cuda(filename)
            if cuda is not None:
                found.append((numbers(image["version"]), image["version"], cuda, filename))
                break
    return sorted(found)


def gpu_needs(instance_type: str) -> tuple[str, str, Cuda] | None:
    """(GPU, compute capability, first CUDA for it) of a GPU instance the data describes."""
    gpu = (facts.instance(instance_type) or {}).get("accelerator")
    table = facts.load("cuda")
    capability = table["gpus"].get(gpu)
    if capability is None:
        return None
    return str(gpu), capability, min(_runs(table["first_cuda"], capability))


def _runs(first_cuda: dict[str, str], capability: str) -> list[Cuda]:
    """The CUDAs whose builds run on ``capability``: code built for M.k runs on M.m for k <= m
    (NVIDIA, CUDA C++ Programming Guide, "Binary Compatibility"), so the first CUDA of any such
    M.k will do (a B300, 10.3, runs the 10.0 code of CUDA 12.8)."""
    major, minor = (int(n) for n in capability.split("."))
    found = []
    for built, cuda in first_cuda.items():
        built_major, built_minor = (int(n) for n in built.split("."))
        if built_major == major and built_minor <= minor:
            found.append(tuple(int(n) for n in cuda.split(".")))
    return found  # type: ignore[return-value]


def mismatch(framework: str, version: str, instance_type: str) -> Mismatch | None:
    """How ``framework`` ``version``'s GPU image falls short of the instance's GPU, if it does.
    A version older than every described image has an older CUDA still (a DLC's CUDA never goes
    back), which is enough to tell when even the oldest described one falls short."""
    needs = gpu_needs(instance_type)
    images = gpu_images(framework)
    if needs is None or not images:
        return None
    gpu, capability, first = needs
    wanted = numbers(version)[:2]
    first_fit = next((v for n, v, cuda, _ in images if cuda >= first), None)
    own = [(cuda, f) for n, _, cuda, f in images if n[:2] == wanted]
    if own:
        cuda, filename = own[0]
        if cuda >= first:
            return None
        return Mismatch(gpu, capability, first, text(cuda), filename, first_fit)
    oldest_numbers, oldest, oldest_cuda, _ = images[0]
    if wanted < oldest_numbers[:2] and oldest_cuda < first:
        bound = f"at most {text(oldest_cuda)}, {oldest}'s"
        return Mismatch(gpu, capability, first, bound, None, first_fit)
    return None

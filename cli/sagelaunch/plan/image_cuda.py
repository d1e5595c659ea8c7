"""Whether a framework's GPU image runs on the instance's GPU: the image's CUDA against the first
CUDA that compiles for the GPU's compute capability (data/cuda.json, NVIDIA's).

The image's CUDA is read, in this order, from
- its tag, where the SDK's tag names it (``...-cu124``: Hugging Face images, from
  ``container_version`` in the SDK's huggingface.json; SMP v2 images; the tool-known images of
  data/images.json);
- its published definition in data/images/, by the framework version's major.minor: the DLC's
  Dockerfile path (``.../cu129/...``), its ``CUDA_VERSION`` argument, or the PyTorch wheel index
  its pyproject installs from (``download.pytorch.org/whl/cu130``).
The SDK's pytorch.json and tensorflow.json carry no CUDA (their tags are ``2.2.0-gpu-py310``).

A version older than every described image is bounded by the oldest one's CUDA (each later
described image has a CUDA at least as new): an inference, never a refusal. XGBoost's GPU code is
the PyPI wheel its image pip-installs (its own CUDA build, not the image's base CUDA), which the
data does not describe: not checked. An ``image_uri`` is the user's own: not checked.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from sagelaunch.catalog import facts, sdk_data
from sagelaunch.catalog.versions import numbers
from sagelaunch.config.model import LaunchConfig
from sagelaunch.plan import images

IMAGES = Path(facts.__file__).resolve().parent.parent / "data" / "images"
_DEFINITION = (
    re.compile(r"^# path: .*/cu(\d+)(\d)/", re.M),  # pytorch/training/docker/2.8/py3/cu129/...
    re.compile(r"^ARG CUDA_VERSION=(\d+)\.(\d+)", re.M),
    re.compile(r"download\.pytorch\.org/whl/cu(\d+)(\d)\b"),
)
_TAG = re.compile(r"-cu(\d+)(\d)(?=-|$)")  # 2.5.1-gpu-py311-cu124, ...-cu121-ubuntu20.04
# The DLC repositories whose tags carry no CUDA, and the framework whose definitions tell it.
_REPOSITORIES = {"pytorch-training": "pytorch", "tensorflow-training": "tensorflow"}

Cuda = tuple[int, int]


@dataclass(frozen=True)
class ImageCuda:
    """An image's CUDA and where it is read from."""

    cuda: Cuda
    source: str  # "its tag, 2.5.1-gpu-py311-cu124" / "its definition, data/images/..."
    exact: bool = True  # False: at most ``cuda``, inferred from the oldest described image

    def text(self) -> str:
        return text(self.cuda) if self.exact else f"at most {text(self.cuda)}"


@dataclass(frozen=True)
class Mismatch:
    """A GPU image whose CUDA predates the GPU of one of the job's instance types."""

    instance_type: str
    gpu: str
    capability: str
    needs: Cuda
    image: ImageCuda
    first_fit: dict[str, str] | None  # the first SDK versions whose image has a CUDA new enough


def text(cuda: Cuda) -> str:
    return f"{cuda[0]}.{cuda[1]}"


def tag_cuda(uri: str) -> Cuda | None:
    """The CUDA an image's tag names (``-cu124``), else None."""
    match = _TAG.search(uri.rsplit(":", 1)[-1]) if ":" in uri else None
    return (int(match[1]), int(match[2])) if match else None


@cache
def definition_cuda(filename: str) -> Cuda | None:
    """The CUDA a definition file builds on, or None where it does not say."""
    content = (IMAGES / filename).read_text(encoding="utf-8")
    for pattern in _DEFINITION:
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
        if image["framework"] != framework or image["kind"] != "gpu":
            continue
        for filename in image["files"]:
            cuda = definition_cuda(filename)
            if cuda is not None:
                found.append((numbers(image["version"]), image["version"], cuda, filename))
                break
    return sorted(found)


def described_cuda(framework: str, version: str) -> ImageCuda | None:
    """The CUDA of ``framework`` ``version``'s GPU image as its definition tells it; for a
    version older than every described image, at most the oldest one's; else None."""
    described = gpu_images(framework)
    if not described:
        return None
    wanted = numbers(version)[:2]
    for found, _, cuda, filename in described:
        if found[:2] == wanted:
            return ImageCuda(cuda, f"its definition, data/images/{filename}")
    oldest_numbers, oldest, oldest_cuda, _ = described[0]
    if wanted < oldest_numbers[:2]:
        return ImageCuda(
            oldest_cuda,
            f"no definition of it is shipped; the oldest, {oldest}'s, has {text(oldest_cuda)} "
            "and no later one an older CUDA",
            exact=False,
        )
    return None


def uri_cuda(uri: str) -> ImageCuda | None:
    """The CUDA of an image named by its URI: its tag's, else its definition's (a DLC
    repository's GPU tag); None for CPU images and images the data does not describe."""
    tag = uri.rsplit(":", 1)[-1] if ":" in uri else ""
    if "-gpu" not in tag:
        return None
    cuda = tag_cuda(uri)
    if cuda is not None:
        return ImageCuda(cuda, f"its tag, {tag}")
    repository = uri.rsplit(":", 1)[0].rsplit("/", 1)[-1]
    version = images.version_from_image(uri)
    if repository not in _REPOSITORIES or version is None:
        return None
    found = described_cuda(_REPOSITORIES[repository], version)
    return found if found is not None and found.exact else None


def plan_note(uri: str) -> str:
    """What `plan`'s image line adds: the image's CUDA where its tag or definition tells it."""
    found = uri_cuda(uri)
    return f"  (CUDA {found.text()})" if found is not None else ""


def image_cuda(config: LaunchConfig) -> ImageCuda | None:
    """The CUDA of the framework image the job runs (resolved as the plan resolves it), or None
    where the data does not tell it (image_uri, XGBoost, a CPU image, none resolves)."""
    if config.image_uri or config.framework == "xgboost":
        return None
    uri = images.training_image(config, config.region or images.DEFAULT_REGION)
    if uri is None:
        return None  # the image rules say why
    found = uri_cuda(uri)
    if found is not None or "-gpu" not in uri.rsplit(":", 1)[-1]:
        return found
    version = config.base_framework_version
    if config.base_framework not in _REPOSITORIES.values() or not version:
        return None
    return described_cuda(config.base_framework, version)


def gpu_needs(instance_type: str) -> tuple[str, str, Cuda] | None:
    """(GPU, compute capability, first CUDA for it) of a GPU instance the data describes."""
    gpu = (facts.instance(instance_type) or {}).get("accelerator")
    table = facts.load("cuda")
    capability = table["gpus"].get(gpu)
    if capability is None:
        return None
    return str(gpu), capability, min(_runs(table["first_cuda"], capability))


def _runs(first_cuda: dict[str, str], capability: str) -> list[Cuda]:
    """The first CUDAs whose builds run on ``capability``: a cubin built for M.k runs on M.m for
    k <= m (NVIDIA, Blackwell Compatibility Guide, "Application Compatibility"), so the first
    CUDA of any such M.k will do (a B300, 10.3, runs the 10.0 code of CUDA 12.8)."""
    major, minor = (int(n) for n in capability.split("."))
    found = []
    for built, cuda in first_cuda.items():
        built_major, built_minor = (int(n) for n in built.split("."))
        if built_major == major and built_minor <= minor:
            found.append((int(cuda.split(".")[0]), int(cuda.split(".")[1])))
    return found


def instance_types(config: LaunchConfig) -> list[str]:
    """The job's instance types, each once: its own and its groups' (one image runs on all)."""
    found = [config.compute.instance_type]
    found += [group.instance_type for group in config.compute.groups or []]
    return list(dict.fromkeys(t for t in found if t))


def mismatches(config: LaunchConfig) -> list[Mismatch]:
    """Each of the job's GPUs whose CUDA the image's predates (or is inferred to)."""
    found: list[Mismatch] = []
    image = None
    for instance_type in instance_types(config):
        needs = gpu_needs(instance_type)
        if needs is None:
            continue
        image = image or image_cuda(config)
        if image is None:
            return []
        gpu, capability, first = needs
        if image.cuda < first:
            found.append(
                Mismatch(instance_type, gpu, capability, first, image, first_fit(config, first))
            )
    return found


def first_fit(config: LaunchConfig, needs: Cuda) -> dict[str, str] | None:
    """The first versions the SDK's table lists whose image (resolved as the job's would be)
    has CUDA ``needs`` or later: {key: version}; None where none has."""
    for update in _candidates(config):
        try:
            found = image_cuda(config.model_copy(update={**update, "py_version": None}))
        except images.ImageUnavailable:
            continue
        if found is not None and found.exact and found.cuda >= needs:
            return update
    return None


def _candidates(config: LaunchConfig) -> list[dict[str, str]]:
    """The versions the SDK's table offers for this job, oldest first, as config updates."""
    if config.framework == "huggingface":
        from sagelaunch.plan import hf_images

        base = config.base_framework
        pairs = []
        for transformers, entry in hf_images.table(False)["versions"].items():
            for key in entry:
                if key.startswith(base) and key != "version_aliases":
                    pairs.append((numbers(key), numbers(transformers), transformers, key))
        return [
            {"transformers_version": t, f"{base}_version": key[len(base) :]}
            for *_, t, key in sorted(pairs)
        ]
    smp = images.smp_image(config)
    table = sdk_data.training_config("pytorch-smp" if smp else config.framework)
    offered = list(table["versions"])
    if smp:  # the SMP table is keyed by SMP versions, some PyTorch versions only its aliases
        offered += list(table.get("version_aliases", {}))
    offered = [v for v in offered if v[:1].isdigit()]
    return [{"framework_version": v} for v in sorted(set(offered), key=numbers)]

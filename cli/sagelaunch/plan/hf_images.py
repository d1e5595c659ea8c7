"""Hugging Face training images: the SDK's HuggingFace estimator's resolution, read from its data.

`sdk_image` follows `sagemaker.image_uris.get_training_image_uri` / `retrieve` for
``framework="huggingface"`` step by step over the SDK's `huggingface.json` (training scope):
the Transformers version or alias, the base framework (``pytorch<version>`` or
``tensorflow<version>``, aliases inside that Transformers version), the Python version, the
region's registry, the processor (GPU only: the table lists no CPU images), the CUDA/OS suffix,
and the tag ``<base version as given>-transformers<version as given>-gpu-<py>-<suffix>``. A test
holds it equal to the SDK's own for every entry of the table.

On Trainium the SDK resolves no Hugging Face training image (its estimator asks for a cpu/gpu
processor; `retrieve` with the neuronx tool drops the Neuron SDK from the tag or fails on the
table's processor key), so sagelaunch supplies it from the SDK's `huggingface-neuronx.json` in
the Deep Learning Containers' published form,
``<pytorch>-transformers<version>-neuronx-<py>-<neuron sdk>-<os>``
(e.g. ``1.13.1-transformers4.34.1-neuronx-py310-sdk2.15.0-ubuntu20.04``).
"""

from __future__ import annotations

import re
from typing import Any

from sagelaunch.catalog import sdk_data
from sagelaunch.plan.image_types import ImageUnavailable, TrainingImage, instance_family

NAME = "huggingface"
NEURONX = "huggingface-neuronx"
# The repositories of Hugging Face training images (import reads a job's image by them).
_TAG = re.compile(
    r"^(?P<base>\d[\w.]*)-transformers(?P<transformers>\d[\w.]*)-(?P<processor>gpu|cpu|neuronx)"
    r"-(?P<py>py\d+)"
)
_REPOSITORY = re.compile(r"/huggingface-(?P<base>pytorch|tensorflow)-training(?:-neuronx)?:")


def base_key(framework: str, version: str | None) -> str:
    """The key the SDK's table files a base framework under: ``pytorch2.1.0``."""
    return f"{framework}{version}"


def table(trainium: bool) -> dict[str, Any]:
    return sdk_data.training_config(NEURONX if trainium else NAME)


def version_entry(table_: dict[str, Any], transformers: str | None) -> tuple[str, dict[str, Any]]:
    """The Transformers version's entry (the alias resolved), or ImageUnavailable."""
    offered = [*table_["versions"], *table_.get("version_aliases", {})]
    if transformers not in offered:
        raise ImageUnavailable(
            "transformers_version",
            f"the SDK has no Hugging Face training image for Transformers {transformers!r}",
        )
    full = table_.get("version_aliases", {}).get(transformers, transformers)
    return full, table_["versions"][full]


def base_entry(entry: dict[str, Any], framework: str, version: str | None) -> dict[str, Any]:
    """The base framework's entry inside a Transformers version's, or ImageUnavailable."""
    key = base_key(framework, version)
    full = entry.get("version_aliases", {}).get(key, key)
    if full not in entry or full == "version_aliases":
        raise ImageUnavailable(
            f"{framework}_version",
            f"this Transformers version's images have no {framework} {version!r}",
        )
    return dict(entry[full])


def sdk_image(
    region: str,
    transformers: str | None,
    framework: str,
    version: str | None,
    py_version: str | None,
    instance_type: str,
) -> TrainingImage:
    """The image the SDK's HuggingFace estimator resolves (GPU instances), or ImageUnavailable
    with the reason the SDK would give."""
    family = instance_family(instance_type)
    processor = _processor(family, table(False)["processors"])
    _, entry = version_entry(table(False), transformers)
    base = base_entry(entry, framework, version)
    py_version = _py_version(py_version, base)
    registry = _registry(region, base["registries"])
    # get_training_image_uri passes this suffix for GPU; the table's own overrides it.
    suffix = (base.get("container_version") or {}).get(processor, "cu110-ubuntu18.04")
    tag = f"{version}-transformers{transformers}-{processor}-{py_version}-{suffix}"
    uri = f"{registry}.dkr.{sdk_data.ecr_hostname(region)}/{base['repository']}:{tag}"
    return TrainingImage(uri, NAME, str(transformers), str(transformers), py_version, processor)


def neuronx_image(
    region: str,
    transformers: str | None,
    version: str | None,
    py_version: str | None,
) -> TrainingImage:
    """The Trainium image sagelaunch supplies from huggingface-neuronx.json, or
    ImageUnavailable."""
    _, entry = version_entry(table(True), transformers)
    base = base_entry(entry, "pytorch", version)
    py_version = _py_version(py_version, base)
    registry = _registry(region, base["registries"])
    neuron_sdk = sorted(base["sdk_versions"], reverse=True)[0]
    os_version = next(iter(base["container_version"].values()))
    tag = f"{version}-transformers{transformers}-neuronx-{py_version}-{neuron_sdk}-{os_version}"
    uri = f"{registry}.dkr.{sdk_data.ecr_hostname(region)}/{base['repository']}:{tag}"
    return TrainingImage(uri, NEURONX, str(transformers), str(transformers), py_version, "trn")


def default_py_version(
    transformers: str | None, framework: str, version: str | None, trainium: bool
) -> str | None:
    """The Python version the table offers for these versions (always one), else None."""
    try:
        _, entry = version_entry(table(trainium), transformers)
        offered = base_entry(entry, framework, version).get("py_versions") or []
    except ImageUnavailable:
        return None
    return str(offered[-1]) if offered else None


def from_tag(uri: str) -> dict[str, str] | None:
    """transformers_version, pytorch_version (or tensorflow_version) and py_version read from a
    Hugging Face training image's tag; None for any other image."""
    repository = _REPOSITORY.search(uri)
    match = _TAG.match(uri.rsplit(":", 1)[-1]) if repository else None
    if not repository or not match:
        return None
    return {
        "transformers_version": match["transformers"],
        f"{repository['base']}_version": match["base"],
        "py_version": match["py"],
    }


def is_training_image(uri: str) -> bool:
    return bool(_REPOSITORY.search(uri))


def is_neuronx(uri: str) -> bool:
    return "-neuronx:" in uri


def _processor(family: str, available: list[str]) -> str:
    processor = "gpu" if family[:1] in ("g", "p") else "cpu"
    if family.startswith(("trn", "inf")):
        processor = "trn"
    if processor not in available:
        raise ImageUnavailable(
            "compute.instance_type",
            f"the SDK's Hugging Face training images are for {', '.join(available)} instances "
            f"only (huggingface.json), not {processor}: use a GPU instance type (ml.g5, ml.p4d) "
            "or set image_uri",
        )
    return processor


def _py_version(py_version: str | None, entry: dict[str, Any]) -> str:
    offered = [str(py) for py in entry.get("py_versions") or []]
    if py_version is None and len(offered) == 1:
        return offered[0]
    if py_version not in offered:
        raise ImageUnavailable(
            "py_version",
            f"the SDK's image for these versions offers {', '.join(offered)}, not {py_version!r}",
        )
    return str(py_version)


def _registry(region: str, registries: dict[str, str]) -> str:
    if region not in registries:
        raise ImageUnavailable(
            "region", f"the SDK has no Hugging Face image registry for region {region!r}"
        )
    return registries[region]

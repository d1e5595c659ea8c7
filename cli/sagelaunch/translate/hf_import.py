"""`import` of a Hugging Face training job: the image's tag gives transformers_version,
pytorch_version (or tensorflow_version) and py_version, as the SDK's HuggingFace.attach reads
them; image_uri stays in the config only when those versions do not resolve to the very same
image (another account, a custom tag, a region's registry)."""

from __future__ import annotations

from typing import Any

from sagelaunch.catalog import facts
from sagelaunch.plan import hf_images
from sagelaunch.plan.image_types import ImageUnavailable
from sagelaunch.plan.images import DEFAULT_REGION


def huggingface_settings(uri: str, region: str | None, instance_type: str) -> dict[str, Any]:
    """The config's version keys for a Hugging Face image (and image_uri where they do not give
    it back)."""
    versions = hf_images.from_tag(uri)
    if versions is None:
        return {"image_uri": uri}
    resolved = _resolved(versions, region or DEFAULT_REGION, instance_type)
    return versions if resolved == uri else {"image_uri": uri, **versions}


def _resolved(versions: dict[str, str], region: str, instance_type: str) -> str | None:
    framework = "tensorflow" if "tensorflow_version" in versions else "pytorch"
    base = versions[f"{framework}_version"]
    try:
        if facts.instance_kind(instance_type) == "trainium":
            return hf_images.neuronx_image(
                region, versions["transformers_version"], base, versions["py_version"]
            ).uri
        return hf_images.sdk_image(
            region,
            versions["transformers_version"],
            framework,
            base,
            versions["py_version"],
            instance_type,
        ).uri
    except ImageUnavailable:
        return None

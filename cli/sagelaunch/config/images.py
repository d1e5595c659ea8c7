"""Training images the SageMaker SDK cannot resolve, from the dated table in data/images.json."""

from __future__ import annotations

from sagelaunch.config import facts
from sagelaunch.config.model import LaunchConfig

DEFAULT_REGION = "us-east-1"


def tool_known_image(config: LaunchConfig, region: str | None) -> str | None:
    """The image sagelaunch supplies when the SDK has none: neuronx on Trainium, SMDDP on >= 2.3.

    Returns None when the SDK resolves the image itself, or when nobody knows one (the caller then
    asks for ``image_uri``).
    """
    if config.image_uri or config.framework != "pytorch":
        return None
    table = facts.load("images")
    version = facts.pytorch_version(config.framework_version)
    region = region or DEFAULT_REGION
    if facts.instance_kind(config.compute.instance_type) == "trainium":
        return _uri(table["registry"], region, table["neuronx"].get(version))
    if config.distribution.strategy == "smddp" and not sdk_has_smddp_image(config):
        if version in table["smddp"]:
            return _uri(table["registry"], region, table["smddp"][version])
        return _uri(table["smddp_smp_registry"], region, table["smddp_in_smp_image"].get(version))
    return None


def sdk_has_smddp_image(config: LaunchConfig) -> bool:
    """True when the SDK's own image tables cover this SMDDP framework version."""
    return config.framework_version in facts.load("frameworks")["pytorch"]["smddp"]


def _uri(registry: str, region: str, tag: str | None) -> str | None:
    return f"{registry.format(region=region)}/{tag}" if tag else None

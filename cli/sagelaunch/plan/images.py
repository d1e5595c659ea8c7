"""Training images: the SDK's own resolution, read from its data, plus the few it cannot resolve.

`sdk_training_image` follows `sagemaker.image_uris.get_training_image_uri` / `retrieve` for the
training scope step by step (framework variant, version and alias, Python version, region,
processor, Neuron SDK suffix, tag), over the SDK's own `image_uri_config` tables. A test holds it
equal to the SDK's `retrieve` for every version, Python version, instance family and region the
tables list. Images the SDK has no table for (neuronx on Trainium, SMDDP for PyTorch >= 2.3) come
from the dated `data/images.json`.
"""

from __future__ import annotations

import re
from typing import Any

from sagelaunch.catalog import facts, sdk_data
from sagelaunch.catalog.versions import numbers
from sagelaunch.config.model import LaunchConfig
from sagelaunch.plan.image_types import ImageUnavailable, TrainingImage, instance_family
from sagelaunch.strategies import registry

DEFAULT_REGION = "us-east-1"
_NEURON_REPOSITORIES = ("pytorch-training-neuron", "pytorch-training-neuronx")
_IMAGE_TAG_VERSION = re.compile(r":(\d+\.\d+(?:\.\d+)?)-")


def version_from_image(image_uri: str | None) -> str | None:
    """A framework version read from a DLC-style tag (``pytorch-training:2.2.0-gpu-py310``)."""
    match = _IMAGE_TAG_VERSION.search(image_uri or "")
    return match[1] if match else None


def smp_container_version(version: str, instance_type: str) -> str:
    """The CUDA suffix the SDK picks for SMP v2 images (`get_training_image_uri`)."""
    if "2.5" in version:
        return "cu124"
    if "p5" in instance_type or any(v in version for v in ("2.1", "2.2", "2.3", "2.4")):
        return "cu121"
    return "cu118"


def sdk_training_image(
    framework: str,
    region: str,
    version: str | None,
    py_version: str | None,
    instance_type: str,
    *,
    smp_v2: bool = False,
    smdistributed: bool = False,
) -> TrainingImage:
    """The image `sagemaker.image_uris.get_training_image_uri` returns, or ImageUnavailable with
    the reason the SDK would give."""
    container_version = None
    if smp_v2 and framework == "pytorch":
        framework = "pytorch-smp"
        container_version = smp_container_version(version or "", instance_type)
    family = instance_family(instance_type)
    config_name, tool = _config_name(framework, family)
    config = _scoped_config(config_name, framework, family)
    version = _version(version, config, framework)
    version_config = config["versions"][config.get("version_aliases", {}).get(version, version)]
    py_version = _py_version(py_version, version_config)
    version_config = version_config.get(py_version) or version_config
    registry = _registry(region, version_config["registries"])
    processor = _processor(family, config.get("processors") or version_config.get("processors"))
    if version_config.get("container_version"):
        container_version = version_config["container_version"][processor]
    repository = version_config["repository"]
    if repository == f"{framework}-inference-graviton":
        container_version = f"{container_version}-sagemaker"
    if repository in _NEURON_REPOSITORIES:
        sdk = sorted(version_config["sdk_versions"], reverse=True)[0]
        container_version = f"{sdk}-{container_version}"
    _deprecated_instance(framework, family, version)
    prefix = version_config.get("tag_prefix", version)
    tag = _tag(framework, family, prefix, processor, py_version, container_version, tool)
    if framework != "xgboost" and (family == "p4d" or smp_v2 or smdistributed):
        tag = _cuda_suffixed(framework, tag)
    uri = f"{registry}.dkr.{sdk_data.ecr_hostname(region)}/{repository}" + (
        f":{tag}" if tag else ""
    )
    table_version = config.get("version_aliases", {}).get(version, version)
    return TrainingImage(uri, config_name, version, table_version, py_version, processor)


def training_image(config: LaunchConfig, region: str) -> str | None:
    """The image a job of ``config`` in ``region`` runs, resolved offline as the plan would
    (image_uri, else the tool-known image, else the SDK's table); None when none resolves."""
    if config.image_uri or config.is_builtin_algorithm:
        return config.image_uri  # a built-in algorithm's image comes from its own table
    known = tool_known_image(config, region)
    if known:
        return known
    try:
        if config.framework == "huggingface":
            return huggingface_image(config, region).uri
        return sdk_training_image(
            config.framework,
            region,
            config.framework_version,
            config.py_version or default_py_version(config),
            config.compute.instance_type,
            smp_v2=smp_image(config),
            smdistributed=registry.of(config).smdistributed,
        ).uri
    except ImageUnavailable:
        return None


def huggingface_image(config: LaunchConfig, region: str) -> TrainingImage:
    """The image the SDK's HuggingFace estimator resolves for ``config`` (GPU instances), or
    ImageUnavailable (plan/hf_images.py)."""
    from sagelaunch.plan import hf_images

    return hf_images.sdk_image(
        region,
        config.transformers_version,
        config.base_framework,
        config.base_framework_version,
        config.py_version,
        config.compute.instance_type,
    )


def smp_image(config: LaunchConfig) -> bool:
    """Whether the SDK takes its SMP v2 image (pytorch-smp) for this config: its
    get_training_image_uri does for a distribution with torch_distributed and an enabled
    smdistributed.modelparallel (the strategy's SDK distribution, as the SDK reads it)."""
    distribution = registry.of(config).sdk_distribution(config) or {}
    model_parallel = distribution.get("smdistributed", {}).get("modelparallel")
    enabled = model_parallel is not None and model_parallel.get("enabled", True)
    return "torch_distributed" in distribution and bool(enabled)


def sdk_table_name(framework: str, instance_type: str) -> str:
    """The SDK's image_uri_config table an image for ``framework`` on ``instance_type`` comes
    from (pytorch-neuron on Trainium), so `import` reads a version back from the right table."""
    return _config_name(framework, instance_family(instance_type))[0]


def _config_name(framework: str, family: str) -> tuple[str, str | None]:
    """pytorch on Trainium/Inferentia reads pytorch-neuron.json (the SDK's "inference tool")."""
    if framework == "pytorch" and (family.startswith("trn") or family.startswith("inf")):
        return "pytorch-neuron", "neuron"
    if "trn" in family and framework != "pytorch":
        raise ImageUnavailable(
            "framework", f"the SDK supports only pytorch on Trainium instances, not {framework}"
        )
    return framework, None


def _scoped_config(config_name: str, framework: str, family: str) -> dict[str, Any]:
    graviton = family in sdk_data.fw_constant("GRAVITON_ALLOWED_TARGET_INSTANCE_FAMILY")
    if graviton and framework in sdk_data.fw_constant("GRAVITON_ALLOWED_FRAMEWORKS"):
        return dict(sdk_data.image_config(config_name)["inference_graviton"])
    return sdk_data.training_config(config_name)


def _version(version: str | None, config: dict[str, Any], framework: str) -> str:
    available = list(config["versions"])
    aliases = list(config.get("version_aliases", {}))
    if len(available) == 1 and version not in aliases:
        return available[0]  # the SDK maps any version to a table's only entry
    if not version:
        version = config.get("version_aliases", {}).get("latest") or available[-1]
    if version not in available + aliases:
        raise ImageUnavailable(
            "framework_version",
            f"the SDK has no {framework} training image for version {version!r}; it offers "
            f"{', '.join(available + aliases)} (or set image_uri)",
        )
    return version


def _py_version(py_version: str | None, version_config: dict[str, Any]) -> str | None:
    if "repository" in version_config:
        available = version_config.get("py_versions")
    else:
        available = list(version_config)
    if not available:
        return None
    if py_version is None and len(available) == 1:
        return str(available[0])
    if py_version not in available:
        raise ImageUnavailable(
            "py_version",
            f"the SDK's image table offers {', '.join(available)} for this version, "
            f"not {py_version!r}",
        )
    return py_version


def _registry(region: str, registries: dict[str, str]) -> str:
    if region not in registries:
        from sagelaunch.nearest import nearest

        close = nearest(region.lower(), registries, cutoff=0.8)
        fix = ": use an AWS region name (us-east-1)"
        if close:
            fix = f"; did you mean {' or '.join(repr(name) for name in close)}?"
        raise ImageUnavailable(
            "region",
            f"the SDK has no image registry for region {region!r} for this framework{fix}",
        )
    return registries[region]


def _processor(family: str, available: list[str] | None) -> str | None:
    if not available:
        return None
    if family in available:
        processor = family
    elif family.startswith("inf"):
        processor = "inf"
    elif family.startswith("trn"):
        processor = "trn"
    elif family[:1] in ("g", "p"):
        processor = "gpu"
    else:
        processor = "cpu"
    if processor not in available:
        raise ImageUnavailable(
            "compute.instance_type",
            f"the SDK's image for this version supports {', '.join(available)} instances only, "
            f"not {processor}",
        )
    return processor


def _deprecated_instance(framework: str, family: str, version: str) -> None:
    if family != "p2":
        return
    floor = {"pytorch": (1, 13), "tensorflow": (2, 12)}.get(framework)
    if floor and numbers(version) >= floor:
        raise ImageUnavailable(
            "compute.instance_type",
            "P2 instances are deprecated for PyTorch >= 1.13 and TensorFlow >= 2.12",
        )


def _tag(
    framework: str,
    family: str,
    prefix: str,
    processor: str | None,
    py_version: str | None,
    container_version: str | None,
    tool: str | None,
) -> str:
    if framework == "xgboost" and family in sdk_data.fw_constant(
        "GRAVITON_ALLOWED_TARGET_INSTANCE_FAMILY"
    ):
        arm64 = {"1.5-1": "1.5-1-arm64", "1.3-1": "1.3-1-arm64"}
        if prefix not in arm64:
            raise ImageUnavailable(
                "framework_version",
                f"the SDK has Graviton XGBoost images for {', '.join(arm64)} only",
            )
        return arm64[prefix]
    parts = (prefix, tool or processor, py_version, container_version)
    return "-".join(part for part in parts if part)


def _cuda_suffixed(framework: str, tag: str) -> str:
    """On p4d, or with smdistributed, the SDK appends a CUDA/OS suffix to a few old tags (a table
    inside image_uris.py, read from there)."""
    suffixes = sdk_data.module_literal("image_uris.py", "container_versions")
    key = f"{framework}-{tag}"
    return f"{tag}-{suffixes[key]}" if key in suffixes else tag


def tool_known_image(config: LaunchConfig, region: str | None) -> str | None:
    """The image sagelaunch supplies when the SDK has none: neuronx on Trainium, else the
    strategy's (SMDDP on >= 2.3).

    Returns None when the SDK resolves the image itself, or when nobody knows one (the caller then
    asks for ``image_uri``).
    """
    if config.framework == "huggingface" and not config.image_uri:
        return _huggingface_neuronx(config, region)
    if config.image_uri or config.framework != "pytorch" or not config.framework_version:
        return None
    table = facts.load("images")
    version = sdk_data.pytorch_version(config.framework_version)
    region = region or DEFAULT_REGION
    if facts.instance_kind(config.compute.instance_type) == "trainium":
        return _uri(table["registry"], region, table["neuronx"].get(version))
    supplied = registry.of(config).supplied_image(config, table, version)
    return _uri(supplied[0], region, supplied[1]) if supplied else None


def _huggingface_neuronx(config: LaunchConfig, region: str | None) -> str | None:
    """On Trainium, the Hugging Face neuronx image the SDK cannot resolve (plan/hf_images.py);
    None elsewhere, or for versions its table lacks (a rule says which)."""
    from sagelaunch.plan import hf_images

    if facts.instance_kind(config.compute.instance_type) != "trainium":
        return None
    try:
        return hf_images.neuronx_image(
            region or DEFAULT_REGION,
            config.transformers_version,
            config.pytorch_version,
            config.py_version,
        ).uri
    except ImageUnavailable:
        return None


def default_py_version(config: LaunchConfig) -> str | None:
    """The Python version a careful SDK user would pass: the newest the image table offers for
    this framework version (the PyTorch estimator requires one; XGBoost's is always py3)."""
    if config.framework == "xgboost":
        return "py3"
    if config.framework == "huggingface":
        from sagelaunch.plan import hf_images

        trainium = facts.instance_kind(config.compute.instance_type) == "trainium"
        return hf_images.default_py_version(
            config.transformers_version,
            config.base_framework,
            config.base_framework_version,
            trainium,
        )
    framework = "pytorch-smp" if smp_image(config) else config.framework
    family = instance_family(config.compute.instance_type)
    try:
        config_name, _ = _config_name(framework, family)
        table = _scoped_config(config_name, framework, family)
        version = _version(config.framework_version, table, framework)
    except ImageUnavailable:
        return None
    version_config = table["versions"][table.get("version_aliases", {}).get(version, version)]
    offered = version_config.get("py_versions") or [
        key for key in version_config if key.startswith("py")
    ]
    return str(offered[-1]) if offered else None


def _uri(registry: str, region: str, tag: str | None) -> str | None:
    return f"{registry.format(region=region)}/{tag}" if tag else None

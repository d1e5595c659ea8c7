"""Hugging Face rules: the versions, images and distributions the SDK's HuggingFace estimator
takes, and what its containers run.

The estimator (sagemaker/huggingface/estimator.py) refuses, without image_uri, a job with no
transformers_version, with both or neither of pytorch_version and tensorflow_version, or with
one full and one short version (`_validate_args`); its image lookup refuses versions, Python
versions and processors its huggingface.json lacks (GPU only); `validate_distribution` checks the
distribution against the *base* framework (PyTorch or TensorFlow and its version).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sagelaunch.catalog import facts, sdk_data
from sagelaunch.checks.rules.frameworks import check_region
from sagelaunch.checks.rules.registry import error, rule, warning
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.config.model import LaunchConfig
from sagelaunch.errors import Problem
from sagelaunch.nearest import nearest
from sagelaunch.plan import hf_images, images
from sagelaunch.strategies import registry
from sagelaunch.strategies.base import offered

_KEYS = ("transformers_version", "pytorch_version", "tensorflow_version")
# The distribution keys the HuggingFace estimator turns into hyperparameters: its own
# (_huggingface_distribution_configuration), then Framework._distribution_configuration's.
_TAKES = ("torch_distributed", "pytorchddp", "smdistributed", "mpi", "parameter_server")
# Which base framework's container runs each key (the PyTorch toolkit has no parameter-server
# runner; the TensorFlow one has no torchrun nor pytorchddp launcher).
_RUNS_ON = {
    "torch_distributed": "pytorch",
    "pytorchddp": "pytorch",
    "parameter_server": "tensorflow",
}


def _is_huggingface(config: LaunchConfig) -> bool:
    return config.framework == "huggingface"


def _trainium(config: LaunchConfig) -> bool:
    return facts.instance_kind(config.compute.instance_type) == "trainium"


@rule
def huggingface_version_keys(loaded: LoadedConfig) -> Iterator[Problem]:
    """transformers_version and its base framework's version are the HuggingFace estimator's
    arguments; framework_version is the other estimators'."""
    config = loaded.config
    if not _is_huggingface(config):
        for key in _KEYS:
            if getattr(config, key) is not None:
                yield error(
                    loaded,
                    (key,),
                    f"{key} applies to framework huggingface, not {config.framework}; "
                    "use framework_version",
                )
        return
    if config.framework_version is not None:
        yield error(
            loaded,
            ("framework_version",),
            "framework huggingface takes transformers_version and pytorch_version (or "
            "tensorflow_version), as the SDK's HuggingFace estimator does, not framework_version",
        )


@rule
def huggingface_versions(loaded: LoadedConfig) -> Iterator[Problem]:
    """Without image_uri the estimator needs transformers_version and exactly one base framework
    version, both full or both short (`_validate_args`), that its image table lists together."""
    config = loaded.config
    if not _is_huggingface(config) or config.image_uri:
        return
    problem = _missing_versions(loaded)
    if problem is not None:
        yield problem
        return
    yield from _listed_versions(loaded)


def _missing_versions(loaded: LoadedConfig) -> Problem | None:
    config = loaded.config
    if not config.transformers_version:
        return error(
            loaded,
            ("framework",),
            'framework huggingface needs transformers_version (e.g. "4.36.0") and '
            "pytorch_version (or tensorflow_version), or image_uri",
        )
    if config.pytorch_version and config.tensorflow_version:
        return error(
            loaded,
            ("tensorflow_version",),
            "the SDK takes pytorch_version or tensorflow_version, not both: drop one",
        )
    base_key = "tensorflow_version" if config.tensorflow_version else "pytorch_version"
    version = config.base_framework_version
    if not version:
        return error(
            loaded,
            ("transformers_version",),
            "the SDK needs pytorch_version or tensorflow_version beside transformers_version",
        )
    if len(version.split(".")) != len(config.transformers_version.split(".")):
        return error(
            loaded,
            (base_key,),
            f"the SDK refuses a full and a short version together ({base_key} {version!r}, "
            f"transformers_version {config.transformers_version!r}): write both full (4.36.0, "
            "2.1.0) or both short (4.36, 2.1)",
        )
    return None


def _listed_versions(loaded: LoadedConfig) -> Iterator[Problem]:
    config = loaded.config
    table = hf_images.table(_trainium(config))
    where = "huggingface-neuronx.json (Trainium)" if _trainium(config) else "huggingface.json"
    offered_versions = [*table["versions"], *table.get("version_aliases", {})]
    transformers = str(config.transformers_version)
    if transformers not in offered_versions:
        yield error(
            loaded,
            ("transformers_version",),
            f"the SDK's {where} has no Transformers {transformers!r}"
            + _did_you_mean(transformers, offered_versions)
            + f"; it lists {offered(offered_versions)}",
        )
        return
    _, entry = hf_images.version_entry(table, transformers)
    framework = config.base_framework
    bases = _bases(entry, framework)
    version = str(config.base_framework_version)
    if version not in bases:
        key = f"{framework}_version"
        listed = offered(bases) if bases else f"no {framework} image"
        yield error(
            loaded,
            (key,),
            f"Transformers {transformers}'s images in the SDK's {where} have {framework} "
            f"{listed}, not {version!r}" + _did_you_mean(version, bases),
        )


def _bases(entry: dict[str, Any], framework: str) -> list[str]:
    """The base framework versions (and short aliases) a Transformers version's entry lists."""
    keys = [*entry, *entry.get("version_aliases", {})]
    return [key.removeprefix(framework) for key in keys if key.startswith(framework)]


def _did_you_mean(value: str, options: list[str]) -> str:
    close = _nearest_versions(value, options) or nearest(value, options, cutoff=0.7)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def _nearest_versions(value: str, options: list[str]) -> list[str]:
    """The listed versions of the same form sharing the longest leading part with ``value``
    (4.36.1 -> 4.36.0, not 4.6.1), nearest in the next part first."""
    parts = value.split(".")
    same_form = [o for o in options if len(o.split(".")) == len(parts)]
    for shared in range(len(parts) - 1, 0, -1):
        found = [o for o in same_form if o.split(".")[:shared] == parts[:shared]]
        if found:
            return sorted(found, key=lambda o: _distance(o.split(".")[shared], parts[shared]))[:1]
    return []


def _distance(one: str, other: str) -> int:
    return abs(int(one) - int(other)) if one.isdigit() and other.isdigit() else 1 << 20


@rule
def huggingface_image(loaded: LoadedConfig) -> Iterator[Problem]:
    """The SDK's image lookup: its Python versions, regions and processors (GPU instances only;
    on Trainium sagelaunch supplies the neuronx image, from the SDK's huggingface-neuronx.json)."""
    config = loaded.config
    if not _is_huggingface(config) or config.image_uri:
        return
    region = check_region(loaded)
    try:
        if _trainium(config):
            hf_images.neuronx_image(
                region, config.transformers_version, config.pytorch_version, config.py_version
            )
        else:
            images.huggingface_image(config, region)
    except images.ImageUnavailable as exc:
        if exc.field not in _KEYS:  # the versions are huggingface_versions'
            yield error(loaded, tuple(exc.field.split(".")), exc.message)


@rule
def huggingface_image_for_the_instance(loaded: LoadedConfig) -> Iterator[Problem]:
    """A Hugging Face image built for another accelerator: a neuronx image needs Trainium's
    Neuron devices and a GPU image has no Neuron runtime; a CPU image leaves the GPUs idle."""
    config = loaded.config
    image = config.image_uri or ""
    if not _is_huggingface(config) or not hf_images.is_training_image(image):
        return
    kind = facts.instance_kind(config.compute.instance_type)
    if hf_images.is_neuronx(image) != (kind == "trainium"):
        needs = "a Trainium instance (ml.trn1, ml.trn2)" if kind != "trainium" else "a GPU one"
        yield error(
            loaded,
            ("image_uri",),
            f"this Hugging Face image is built for {'Trainium' if kind != 'trainium' else 'GPUs'}"
            f": it does not run on {config.compute.instance_type}; use {needs}, or the "
            "image for this instance (drop image_uri: sagelaunch picks it)",
        )
    elif kind == "gpu" and "-cpu-" in image:
        yield warning(
            loaded,
            ("image_uri",),
            f"a CPU Hugging Face image on {config.compute.instance_type}: the job trains "
            "without its GPUs; use the -gpu- image",
        )
    elif kind == "cpu" and "-gpu-" in image:
        yield warning(
            loaded,
            ("image_uri",),
            f"a GPU Hugging Face image on the CPU instance {config.compute.instance_type}: "
            "use a GPU instance type, or the -cpu- image",
        )


@rule
def huggingface_distribution(loaded: LoadedConfig) -> Iterator[Problem]:
    """The distributions the HuggingFace estimator takes, on the container that runs them."""
    config = loaded.config
    if not _is_huggingface(config):
        return
    strategy = config.distribution.strategy
    sent = registry.of(config).sdk_distribution(config) or {}
    refused = sorted(set(sent) - set(_TAKES))
    if "huggingface" not in registry.of(config).frameworks or refused:
        takes = [s.name for s in registry.strategies() if "huggingface" in s.frameworks]
        yield error(
            loaded,
            ("distribution", "strategy"),
            f"the SDK's HuggingFace estimator takes {offered(takes)}, not {strategy}",
        )
        return
    for key in sent:
        runs_on = _RUNS_ON.get(key)
        if runs_on and runs_on != config.base_framework:
            yield error(
                loaded,
                ("distribution", "strategy"),
                f"{strategy} runs in Hugging Face's {runs_on} images only: the "
                f"{config.base_framework} container has no launcher for it",
            )
    yield from _smdistributed(loaded, sent)


def _smdistributed(loaded: LoadedConfig, sent: dict[str, Any]) -> Iterator[Problem]:
    config = loaded.config
    smdistributed = sent.get("smdistributed") or {}
    if "modelparallel" in smdistributed and "torch_distributed" in sent:
        yield error(
            loaded,
            ("distribution", "smp", "version"),
            "SMP v2 is not a Hugging Face job: the SDK's HuggingFace estimator sends no "
            "mp_parameters with torch_distributed and has no SMP v2 image; use smp.version: 1 "
            "(mpirun, as Hugging Face's model-parallel notebook), or framework pytorch",
        )
    if smdistributed and "p5.48xlarge" in config.compute.instance_type:
        yield error(
            loaded,
            ("compute", "instance_type"),
            "the SDK refuses smdistributed on p5 instances for Hugging Face jobs "
            '("SMModelParallel and SMDataParallel currently do not support p5 instances"; its '
            "HuggingFace estimator has no torchrun form of SMDDP); use strategy torchrun",
        )


@rule
def huggingface_smddp_versions(loaded: LoadedConfig) -> Iterator[Problem]:
    """Without image_uri the SDK runs smdistributed.dataparallel only for the base framework
    versions it lists (fw_utils.SM_DATAPARALLEL_SUPPORTED_FRAMEWORK_VERSIONS) and py3."""
    config = loaded.config
    sent = registry.of(config).sdk_distribution(config) or {}
    dataparallel = (sent.get("smdistributed") or {}).get("dataparallel")
    if not _is_huggingface(config) or not dataparallel or config.image_uri:
        return
    framework = config.base_framework
    supported = sdk_data.fw_constant("SM_DATAPARALLEL_SUPPORTED_FRAMEWORK_VERSIONS")[framework]
    if config.base_framework_version not in supported:
        yield error(
            loaded,
            (f"{framework}_version",),
            f"the SDK runs SMDDP for {framework} {offered(supported)} only, not "
            f"{config.base_framework_version!r}: pick a Transformers version with one of them, "
            "strategy torchrun, or set image_uri",
        )

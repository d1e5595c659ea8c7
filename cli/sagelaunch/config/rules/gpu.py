"""Whether the job's framework image runs on the instance's GPU (config/image_cuda.py)."""

from __future__ import annotations

from collections.abc import Iterator

from sagelaunch.catalog import sdk_data
from sagelaunch.catalog.versions import numbers
from sagelaunch.config import image_cuda
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.config.rules.registry import error, rule, warning
from sagelaunch.errors import Problem


@rule
def image_cuda_runs_on_the_gpu(loaded: LoadedConfig) -> Iterator[Problem]:
    """A GPU image built on a CUDA older than the GPU (Blackwell needs 12.8, B300 12.9). PyTorch's
    builds for an older CUDA carry no kernels for the GPU ("no kernel image is available for
    execution on the device"): refused. TensorFlow's and XGBoost's may run on PTX the driver
    compiles at start: advice. An image_uri is the user's own choice and is not checked."""
    config = loaded.config
    if config.image_uri or not config.framework_version or config.is_builtin_algorithm:
        return
    found = image_cuda.mismatch(
        config.framework, config.framework_version, config.compute.instance_type
    )
    if found is None:
        return
    read = f" (its definition, data/images/{found.definition})" if found.definition else ""
    fix = (
        f"use framework_version {_sdk_version(config.framework, found.first_version)!r} or later"
        if found.first_version
        else "no image sagelaunch knows has it: pass image_uri"
    )
    message = (
        f"{config.framework} {config.framework_version}'s GPU image has CUDA {found.image}{read}; "
        f"the {found.gpu} of {config.compute.instance_type} (compute capability "
        f"{found.capability}) needs CUDA {image_cuda.text(found.needs)} or later (NVIDIA): "
    )
    if config.framework == "pytorch":
        yield error(
            loaded,
            ("framework_version",),
            message + "PyTorch built for an older CUDA has no kernels for it; " + fix,
        )
    else:
        yield warning(
            loaded,
            ("framework_version",),
            message + "it runs only if its kernels carry PTX the driver can compile; " + fix,
        )


def _sdk_version(framework: str, minor: str) -> str:
    """The SDK's first full version of a minor one ("2.7" -> "2.7.1"), else the minor one."""
    try:
        versions = sdk_data.training_config(framework).get("versions", {})
    except (OSError, KeyError):
        return minor
    same = sorted((numbers(v), v) for v in versions if numbers(v)[:2] == numbers(minor)[:2])
    return same[0][1] if same else minor

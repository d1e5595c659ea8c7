"""Whether the job's framework image runs on the instance's GPU (plan/image_cuda.py)."""

from __future__ import annotations

from collections.abc import Iterator

from sagelaunch.checks.rules.registry import error, rule, warning
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.config.model import LaunchConfig
from sagelaunch.errors import Problem
from sagelaunch.plan import image_cuda


@rule
def image_cuda_runs_on_the_gpu(loaded: LoadedConfig) -> Iterator[Problem]:
    """A GPU image built on a CUDA older than the first that compiles for the GPU (Blackwell
    needs 12.8). PyTorch's builds carry cubins for the architectures of their CUDA and no PTX
    (PyTorch's wheel arch lists: 5.0-9.0 before CUDA 12.8, 10.0 and 12.0 from 12.8), so on a
    newer GPU every kernel launch fails ("no kernel image is available for execution on the
    device"): refused where the image's CUDA is read (its tag or definition), advice where it is
    inferred. TensorFlow's may run on PTX the driver compiles at start: advice. XGBoost and an
    image_uri are not checked (image_cuda's docstring says why)."""
    config = loaded.config
    if config.image_uri or config.is_builtin_algorithm:
        return
    for found in image_cuda.mismatches(config):
        message = (
            f"{_job(config)}'s GPU image has CUDA {found.image.text()} ({found.image.source}); "
            f"the {found.gpu} of {found.instance_type} (compute capability {found.capability}) "
            f"needs CUDA {image_cuda.text(found.needs)} or later (NVIDIA's, data/cuda.json): "
        )
        if config.base_framework == "pytorch":
            message += "PyTorch built for an older CUDA has no kernels for it; "
        else:
            message += "it runs only if its kernels carry PTX the driver can compile; "
        message += _fix(found.first_fit)
        key = "transformers_version" if config.framework == "huggingface" else "framework_version"
        if config.base_framework == "pytorch" and found.image.exact:
            yield error(loaded, (key,), message)
        else:
            yield warning(loaded, (key,), message)


def _job(config: LaunchConfig) -> str:
    if config.framework == "huggingface":
        return (
            f"Hugging Face {config.transformers_version} with {config.base_framework} "
            f"{config.base_framework_version}"
        )
    return f"{config.framework} {config.framework_version}"


def _fix(first_fit: dict[str, str] | None) -> str:
    if first_fit is None:
        return "no image the SDK's table lists has it: pass image_uri (or another instance type)"
    versions = " with ".join(f"{key} {value!r}" for key, value in first_fit.items())
    return f"use {versions} or later"

"""The SDK's Hugging Face estimator (`sagemaker.huggingface.HuggingFace`) for a launch config.

The estimator takes the Transformers version and its base framework's (``pytorch_version`` or
``tensorflow_version``) instead of ``framework_version``, and a ``py_version`` always (it is the
first positional argument). What it adds to the request is left to the SDK itself (capture.py
runs it): ``sagemaker_torch_distributed_enabled`` or ``sagemaker_pytorch_ddp_enabled`` with
``sagemaker_instance_type``, else the framework's ``sagemaker_*`` keys of its distribution, the
image from its huggingface.json. On Trainium the SDK resolves no image: sagelaunch passes the
neuronx one (plan/hf_images.py).
"""

from __future__ import annotations

from typing import Any

from sagelaunch.config.model import LaunchConfig
from sagelaunch.strategies import registry

HUGGINGFACE = "sagemaker.huggingface.HuggingFace"


def huggingface_kwargs(config: LaunchConfig, kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` (the framework-independent ones) plus the HuggingFace estimator's own."""
    from sagelaunch.plan.images import default_py_version

    kwargs = dict(kwargs)
    versions = {
        "transformers_version": config.transformers_version,
        "pytorch_version": config.pytorch_version,
        "tensorflow_version": config.tensorflow_version,
    }
    kwargs.update({key: value for key, value in versions.items() if value is not None})
    kwargs["py_version"] = config.py_version or default_py_version(config)
    distribution = registry.of(config).sdk_distribution(config)
    if distribution:
        kwargs["distribution"] = distribution
    return kwargs

"""What every training-image resolver returns or raises (plan/images.py for the SDK's
framework tables, plan/hf_images.py for its Hugging Face ones)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_FAMILY = re.compile(r"^ml[\._]([a-z\d\-]+)\.?\w*$")  # the SDK's get_instance_type_family


class ImageUnavailable(Exception):
    """The SDK cannot resolve a training image for these settings; ``field`` is the config key."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass(frozen=True)
class TrainingImage:
    uri: str
    framework: str  # the SDK's config name: pytorch, pytorch-smp, pytorch-neuron, xgboost, ...
    version: str  # as given (the SDK keeps an alias such as "2.2" in the tag)
    table_version: str  # the versions-table key the alias resolves to
    py_version: str | None
    processor: str | None


def instance_family(instance_type: str | None) -> str:
    match = _FAMILY.match(instance_type or "")
    return match[1] if match else ""

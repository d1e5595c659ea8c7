"""The one place the recommend oracle imports the PyTorch entry point's modules from.

They live in entrypoints/ as scripts (they import each other by bare name, as in /opt/ml/code),
so that folder goes on sys.path first, as tests/entrypoints does. If the entry points move, point
ENTRYPOINTS and the names below at the new place; nothing else in tests/recommend needs to change.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

from tests.paths import REPO

ENTRYPOINTS = REPO / "entrypoints" / "pytorch"


NAMES = (
    "torch_models",
    "torch_parallel",
    "torch_pipeline",
    "torch_config",
    "torch_dist",
    "train_pytorch",
    "torch_zero1",
)


def load() -> list[ModuleType]:
    """The modules named in NAMES, in that order."""
    if str(ENTRYPOINTS) not in sys.path:
        sys.path.insert(0, str(ENTRYPOINTS))
    return [importlib.import_module(name) for name in NAMES]

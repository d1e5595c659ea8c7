"""The one place the recommend oracle imports the PyTorch entry point's modules from.

They live in entrypoints/ as scripts (they import each other by bare name, as in /opt/ml/code),
so that folder goes on sys.path first, as tests/entrypoints does. If the entry points move, point
ENTRYPOINTS and the names below at the new place; nothing else in tests/recommend needs to change.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

ENTRYPOINTS = Path(__file__).resolve().parents[2] / "entrypoints"


def load() -> tuple[ModuleType, ModuleType, ModuleType, ModuleType, ModuleType]:
    """(torch_models, torch_parallel, torch_pipeline, torch_config, torch_dist)."""
    if str(ENTRYPOINTS) not in sys.path:
        sys.path.insert(0, str(ENTRYPOINTS))
    names = ("torch_models", "torch_parallel", "torch_pipeline", "torch_config", "torch_dist")
    models, parallel, pipeline, config, dist = (importlib.import_module(n) for n in names)
    return models, parallel, pipeline, config, dist

"""Hyperparameters as SageMaker sends them: every value a string, JSON-encoded by framework
estimators."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def decode_hyperparameters(hyperparameters: Mapping[str, str]) -> dict[str, Any]:
    """hyperparameters.json values as the toolkit reads them: JSON when it parses, else text."""
    decoded: dict[str, Any] = {}
    for key, value in hyperparameters.items():
        try:
            decoded[key] = json.loads(value)
        except (ValueError, TypeError):
            decoded[key] = value
    return decoded

"""Hyperparameters as SageMaker carries them: every value a string. The one place the CLI encodes
and decodes them (tests/cli/test_one_owner.py holds it).

- SDK v2's framework estimators send each value ``json.dumps``-ed (a string gains quotes:
  ``"fsdp"`` -> ``"\\"fsdp\\""``); the training toolkit reads a value back as JSON when it
  parses, else as the text it is (`decode`).
- SDK v3's ModelTrainer sends strings as they are and anything else as JSON (its
  ``safe_serialize``: `as_text`), and its driver reads them back the same way as the toolkit.
- An integer hyperparameter is read as the entry points read their integer options
  (entrypoints/shared/shared_hparams.integer, which the CLI cannot import: the entry points run
  standalone): `integer`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def encode(value: Any) -> str:
    """A value as SDK v2's framework estimators send it: JSON, strings quoted."""
    return json.dumps(value)


def as_text(value: Any) -> str:
    """A value as SDK v3 sends it (``safe_serialize``): a string as it is, else JSON (else, for
    what JSON cannot carry, its ``str``)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value)
    except TypeError:
        return str(value)


def decode(value: Any) -> Any:
    """A sent value as the toolkit (and v3's driver) reads it: JSON when it parses, else the text;
    a value that is not a string (an already decoded one) as it is."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def decode_hyperparameters(hyperparameters: Mapping[str, str]) -> dict[str, Any]:
    """hyperparameters.json values as the toolkit reads them (`decode`)."""
    return {key: decode(value) for key, value in hyperparameters.items()}


def integer(value: Any) -> int | None:
    """A hyperparameter as the entry points' integer options read it (shared_hparams.integer): JSON
    or JSON-quoted text, ``10.0`` as 10; None for anything else, a boolean included (the entry
    point refuses it)."""
    decoded = decode(value)
    if isinstance(decoded, str):  # JSON-quoted ("\"4\""): the entry point unwraps it first
        decoded = decode(decoded)
    if isinstance(decoded, float) and decoded.is_integer():
        decoded = int(decoded)
    if isinstance(decoded, bool) or not isinstance(decoded, int):
        return None
    return decoded


def number_or_text(text: str) -> Any:
    """A built-in algorithm's str() value (or a tuning range's bound): a number where str()
    gives the same text back."""
    for cast in (int, float):
        try:
            value = cast(text)
        except ValueError:
            continue
        if str(value) == text:
            return value
    return text

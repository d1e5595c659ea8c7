"""Limits of the CreateTrainingJob API, read from botocore's service model as data.

The service enforces them (botocore does not, client-side); reading the very model that
`plan` validates against keeps one owner for each number. Read without importing botocore, so
`validate` stays on the fast path; only configs that use a limited key pay for the read.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from sagelaunch.config.sdk_data import package_dir


@cache
def service_shapes() -> dict[str, Any]:
    """The SageMaker service model's shapes (the newest API version botocore ships)."""
    folder = max((package_dir("botocore") / "data" / "sagemaker").iterdir())
    plain, packed = folder / "service-2.json", folder / "service-2.json.gz"
    raw = plain.read_bytes() if plain.is_file() else gzip.decompress(packed.read_bytes())
    return dict(json.loads(raw)["shapes"])


def bounds(shape: str) -> tuple[int, int]:
    """(min, max) of a list's length or a string's length, as the model states them."""
    found = service_shapes()[shape]
    return int(found.get("min", 0)), int(found["max"])


def members(shape: str) -> list[str]:
    """A structure's member names, in the model's order."""
    return list(service_shapes()[shape]["members"])


@dataclass(frozen=True)
class MapLimits:
    """What CreateTrainingJob's model allows in one of its string-to-string maps."""

    member: str  # e.g. "HyperParameters"
    entries: int
    key_length: int
    key_pattern: str
    value_length: int
    value_pattern: str


@cache
def map_limits(member: str, operation: str = "CreateTrainingJob") -> MapLimits:
    """The limits of ``operation``'s map ``member``, as the model states them."""
    shapes = service_shapes()
    found = shapes[shapes[f"{operation}Request"]["members"][member]["shape"]]
    key, value = shapes[found["key"]["shape"]], shapes[found["value"]["shape"]]
    return MapLimits(
        member=member,
        entries=int(found["max"]),
        key_length=int(key["max"]),
        key_pattern=key.get("pattern", ""),
        value_length=int(value["max"]),
        value_pattern=value.get("pattern", ""),
    )


def map_violations(limits: MapLimits, mapping: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """(key, what the service refuses) for each key and value over a limit: the service checks
    every one of them (a ValidationException names the first), so each is an error."""
    for key, value in mapping.items():
        if len(key) > limits.key_length:
            yield (
                key,
                (
                    f"a key of {len(key)} characters: {limits.member} keys take at most "
                    f"{limits.key_length}"
                ),
            )
        elif limits.key_pattern and not re.fullmatch(limits.key_pattern, key):
            yield key, f"{limits.member} keys must match the API's pattern {limits.key_pattern}"
        if len(value) > limits.value_length:
            yield (
                key,
                (
                    f"a value of {len(value)} characters: {limits.member} values take at most "
                    f"{limits.value_length}"
                ),
            )
        elif limits.value_pattern and not re.fullmatch(limits.value_pattern, value):
            yield key, f"the value must match the API's pattern {limits.value_pattern}"

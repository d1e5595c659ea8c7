"""Limits of the CreateTrainingJob API, read from botocore's service model as data.

The service enforces them (botocore does not, client-side); reading the very model that
`plan` validates against keeps one owner for each number. Read without importing botocore, so
`validate` stays on the fast path; only configs that use a limited key pay for the read.
"""

from __future__ import annotations

import gzip
import json
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

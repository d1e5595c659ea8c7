"""The bucket the starter configs write for the user to replace (`init`'s templates, the config
`recommend --emit` writes): `validate` and `plan` point at every location still in it, so a
newcomer learns before `submit` that the job would upload to, read from and write to a bucket that
is not theirs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

PLACEHOLDER_BUCKET = "my-sagemaker-bucket"
_URI = f"s3://{PLACEHOLDER_BUCKET}"
OUTPUT_PATH = f"{_URI}/sagelaunch/"


def locations(data: Any, path: tuple = ()) -> Iterator[tuple[tuple, str]]:
    """(key path, value) of every string in ``data`` that names the placeholder bucket."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from locations(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from locations(value, (*path, index))
    elif isinstance(data, str) and (data == _URI or data.startswith(f"{_URI}/")):
        yield path, data

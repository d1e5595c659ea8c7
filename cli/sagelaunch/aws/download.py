"""Read-only S3 access for `sagelaunch local`: list a channel's objects and download them.

Clients come from `session.clients` (endpoint overrides such as a moto server on loopback,
retries, timeouts) and errors from `errors.translated`, like every other AWS call.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sagelaunch import s3uri
from sagelaunch.aws.errors import translated
from sagelaunch.aws.session import clients


@dataclass(frozen=True)
class S3Object:
    key: str
    size: int


split_uri = s3uri.split


def client(region: str | None = None) -> Any:
    return clients(region).s3


@translated
def list_objects(s3: Any, uri: str) -> list[S3Object]:
    """The objects under ``uri`` (an S3Prefix, as SageMaker reads it), sorted by key; folder
    markers (keys ending in '/') are left out."""
    bucket, prefix = split_uri(uri)
    found = [
        S3Object(item["Key"], int(item.get("Size", 0)))
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
        for item in page.get("Contents", [])
        if not item["Key"].endswith("/")
    ]
    return sorted(found, key=lambda o: o.key)


@translated
def download(s3: Any, bucket: str, objects: Iterable[tuple[str, Path]]) -> None:
    """Download each (key, destination) pair, streaming; parent folders are created."""
    for key, destination in objects:
        destination.parent.mkdir(parents=True, exist_ok=True)
        body = s3.get_object(Bucket=bucket, Key=key)["Body"]
        with destination.open("wb") as out:
            shutil.copyfileobj(body, out, length=1 << 20)

"""The code bundle to S3, skipped when its content-addressed key is already there."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError

from sagelaunch.aws.errors import error_code, translated
from sagelaunch.errors import UsageError

Progress = Callable[[int], None]  # called with the bytes sent since the last call


def split_s3_uri(uri: str) -> tuple[str, str]:
    if not uri.startswith("s3://") or "/" not in uri[5:]:
        raise UsageError(f"not an S3 object URI: {uri}")
    bucket, key = uri[5:].split("/", 1)
    return bucket, key


@translated
def exists(s3: Any, uri: str) -> bool:
    """Whether the object is there (one HeadObject)."""
    bucket, key = split_s3_uri(uri)
    try:
        s3.head_object(Bucket=bucket, Key=key)
    except ClientError as exc:
        if error_code(exc) in ("404", "NoSuchKey", "NotFound"):
            return False
        raise
    return True


@translated
def put(s3: Any, uri: str, data: bytes, progress: Progress | None = None) -> None:
    """Upload ``data`` (one PutObject below the multipart threshold), reporting progress."""
    bucket, key = split_s3_uri(uri)
    s3.upload_fileobj(io.BytesIO(data), bucket, key, Callback=progress)


def upload_if_missing(s3: Any, uri: str, data: bytes, progress: Progress | None = None) -> bool:
    """Upload unless the key exists; True when bytes were sent. The key carries the bundle's
    sha256, so an existing key means the very same bytes are already there."""
    if exists(s3, uri):
        return False
    put(s3, uri, data, progress)
    return True

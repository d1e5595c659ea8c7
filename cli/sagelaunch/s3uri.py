"""S3 URIs: ``s3://bucket/key-or-prefix``."""

from __future__ import annotations

from sagelaunch.errors import UsageError

SCHEME = "s3://"


def is_s3(uri: str) -> bool:
    return uri.startswith(SCHEME)


def split(uri: str) -> tuple[str, str]:
    """``s3://bucket/prefix`` -> (bucket, prefix); the prefix may be empty."""
    if not is_s3(uri):
        raise UsageError(f"not an S3 URI: {uri}")
    bucket, _, prefix = uri.removeprefix(SCHEME).partition("/")
    return bucket, prefix


def split_object(uri: str) -> tuple[str, str]:
    """``s3://bucket/key`` -> (bucket, key), for a URI that must name an object."""
    bucket, key = split(uri)
    if not bucket or not key:
        raise UsageError(f"not an S3 object URI: {uri}")
    return bucket, key

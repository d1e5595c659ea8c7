"""Read-only S3 access for `sagelaunch local`: list a channel's objects and download them.

The client honours AWS_ENDPOINT_URL (and AWS_ENDPOINT_URL_S3), so a moto server on loopback
stands in for S3 in tests and the demo.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

from sagelaunch.errors import AwsError


@dataclass(frozen=True)
class S3Object:
    key: str
    size: int


def split_uri(uri: str) -> tuple[str, str]:
    """``s3://bucket/prefix`` -> (bucket, prefix)."""
    bucket, _, prefix = uri.removeprefix("s3://").partition("/")
    return bucket, prefix


def client(region: str | None = None) -> Any:
    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    return boto3.session.Session().client("s3", region_name=region, endpoint_url=endpoint or None)


def list_objects(s3: Any, uri: str) -> list[S3Object]:
    """The objects under ``uri`` (an S3Prefix, as SageMaker reads it), sorted by key; folder
    markers (keys ending in '/') are left out."""
    bucket, prefix = split_uri(uri)
    found: list[S3Object] = []
    with _aws_errors(f"listing {uri}"):
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
            for item in page.get("Contents", []):
                if not item["Key"].endswith("/"):
                    found.append(S3Object(item["Key"], int(item.get("Size", 0))))
    return sorted(found, key=lambda o: o.key)


def download(s3: Any, bucket: str, objects: Iterable[tuple[str, Path]]) -> None:
    """Download each (key, destination) pair; parent folders are created."""
    for key, destination in objects:
        destination.parent.mkdir(parents=True, exist_ok=True)
        with _aws_errors(f"downloading s3://{bucket}/{key}"):
            s3.download_file(bucket, key, str(destination))


@contextlib.contextmanager
def _aws_errors(doing: str) -> Iterator[None]:
    """Turn botocore's exceptions into AwsError (exit 3) naming what was being done."""
    try:
        yield
    except NoCredentialsError:
        raise AwsError(
            f"{doing}: no AWS credentials",
            hint="configure AWS credentials, or point local.inputs at a local copy",
        ) from None
    except ClientError as exc:
        error = exc.response.get("Error", {})
        code, message = error.get("Code", "error"), error.get("Message", str(exc))
        raise AwsError(f"{doing}: {code}: {message}") from None
    except BotoCoreError as exc:
        raise AwsError(f"{doing}: {exc}") from None

"""The code bundle to S3, skipped when its content-addressed key is already there."""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError

from sagelaunch import s3uri
from sagelaunch.aws.errors import error_code, translated

Progress = Callable[[int], None]  # called with the bytes sent so far (0 again on a retry)


split_s3_uri = s3uri.split_object


@translated
def exists(s3: Any, uri: str) -> bool:
    """Whether the object is there (one HeadObject)."""
    bucket, key = split_s3_uri(uri)
    try:
        s3.head_object(Bucket=bucket, Key=key)
    except ClientError as exc:
        if error_code(exc) in ("404", "NoSuchKey", "NotFound"):
            return False
        if error_code(exc) in ("403", "Forbidden"):
            _why_forbidden(s3, bucket, key)
        raise
    return True


def _why_forbidden(s3: Any, bucket: str, key: str) -> None:
    """A HEAD's 403 has no body: a wrong key and a missing IAM permission look the same. A
    one-byte GET of the same object says which (InvalidAccessKeyId, SignatureDoesNotMatch,
    AccessDenied...): that error is raised; when the GET says nothing more, the caller raises
    the HEAD's own."""
    try:
        s3.get_object(Bucket=bucket, Key=key, Range="bytes=0-0")
    except ClientError as exc:
        if error_code(exc) not in ("403", "Forbidden", "404", "NoSuchKey"):
            raise


@translated
def put(
    s3: Any, uri: str, data: bytes | os.PathLike[str], progress: Progress | None = None
) -> None:
    """One PutObject of ``data`` (bytes, or a file such as a code bundle: read from disk as it
    is sent, never held in memory), reporting progress as the bytes go out."""
    bucket, key = split_s3_uri(uri)
    if isinstance(data, bytes):
        source: io.RawIOBase | io.BufferedIOBase = io.BytesIO(data)
    else:
        source = open(os.fspath(data), "rb")  # noqa: SIM115 (closed below)
    body = _ProgressBody(source, progress)
    handler_id = f"sagelaunch-progress-{id(body)}"
    s3.meta.events.register("request-created.s3.PutObject", body.start, unique_id=handler_id)
    try:
        s3.put_object(Bucket=bucket, Key=key, Body=body)
    finally:
        s3.meta.events.unregister("request-created.s3.PutObject", unique_id=handler_id)
        source.close()


class _ProgressBody(io.RawIOBase):
    """A body that reports how far the HTTP send has read it.

    botocore reads the body before sending (checksums, signing); those reads must not move the
    bar. So reporting starts at `request-created` (emitted per attempt, after the checksum), as
    s3transfer does it, and a retried attempt starts the bar again from zero."""

    def __init__(self, source: io.RawIOBase | io.BufferedIOBase, progress: Progress | None) -> None:
        super().__init__()
        self._source = source
        self._progress = progress
        self._live = False

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self._source.seek(offset, whence)

    def tell(self) -> int:
        return self._source.tell()

    def start(self, **_: object) -> None:
        self._live = self._progress is not None
        if self._progress is not None:
            self._progress(0)

    def read(self, size: int | None = -1) -> bytes:
        chunk = self._source.read(-1 if size is None else size)
        if self._live and chunk and self._progress is not None:
            self._progress(self.tell())
        return chunk

"""local/channels.py's parts that tests/local/test_channels.py reaches only through moto or a
whole run (`make mutate`'s survivors): an S3 channel's files named by their path under the
channel's prefix, an S3 error that names the channel and the local way out, and a host's copy
that equals its origin whichever way the kernel copies (reflink, copy_file_range, plain)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from sagelaunch.aws import download
from sagelaunch.config.loader import load
from sagelaunch.errors import AwsError, ConfigError
from sagelaunch.local import channels
from sagelaunch.local.tree import HostTree


class Listed:
    """What sagelaunch.aws.download would find under a prefix, and what it was asked to fetch."""

    def __init__(self, *keys: str) -> None:
        self.keys, self.fetched = keys, []

    def list_objects(self, client: Any, uri: str) -> list[download.S3Object]:
        return [download.S3Object(key, 1) for key in self.keys]

    def download(self, client: Any, bucket: str, pairs: list[tuple[str, Path]]) -> None:
        self.fetched.append((bucket, pairs))
        for key, target in pairs:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(key)


@pytest.fixture
def listed(monkeypatch) -> Listed:
    found = Listed("data/train/a.csv", "data/train/sub/b.csv", "data/train")
    monkeypatch.setattr(download, "client", lambda region: f"s3 client in {region}")
    monkeypatch.setattr(download, "list_objects", found.list_objects)
    monkeypatch.setattr(download, "download", found.download)
    return found


@pytest.mark.parametrize("uri", ["s3://bucket/data/train", "s3://bucket/data/train/"])
def test_an_s3_object_is_named_by_its_path_under_the_prefix(listed, tmp_path, uri):
    store = channels.S3Store("us-west-2")
    assert store._client == "s3 client in us-west-2"
    files = store.objects(uri)
    assert [(f.key, f.origin) for f in files] == [
        ("a.csv", "data/train/a.csv"),
        ("sub/b.csv", "data/train/sub/b.csv"),
        ("train", "data/train"),  # the prefix is the object itself: its own name
    ]
    targets = store.fetch(uri, files, tmp_path / "cache")
    assert targets == {f.key: tmp_path / "cache" / f.key for f in files}
    assert listed.fetched == [("bucket", [(f.origin, targets[f.key]) for f in files])]


class Refusing:
    """An object store whose listing fails as S3 would."""

    def __init__(self, hint: str | None) -> None:
        self.hint = hint

    def objects(self, uri: str) -> list[channels.DataFile]:
        raise AwsError("AccessDenied: no", hint=self.hint)

    def fetch(self, uri: str, files: list[channels.DataFile], cache: Path) -> dict[str, Path]:
        raise AssertionError("nothing listed, nothing fetched")


@pytest.mark.parametrize(
    ("hint", "shown"),
    [
        ("check the bucket policy", "check the bucket policy; or run it on a local copy"),
        (None, "or run it on a local copy"),
    ],
)
def test_an_s3_error_names_the_channel_and_its_local_copy(tmp_path, hint, shown):
    source = channels.Source("train", "s3://bucket/train/", sharded=False)
    tree = HostTree("algo-1", tmp_path / "algo-1")
    with pytest.raises(AwsError) as raised:
        channels.populate([tree], {"train": source}, tmp_path / "cache", lambda: Refusing(hint))
    assert (
        raised.value.message == "channel train reads s3://bucket/train/ from S3: AccessDenied: no"
    )
    assert raised.value.hint == f"{shown}: local.inputs: {{train: ./data/train}}"


def test_a_folder_s_files_are_keyed_by_relative_path_sorted_and_a_file_by_its_name(tmp_path):
    for name in ("b.csv", "a/z.csv", "a/c.csv"):
        (tmp_path / "data" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "data" / name).write_text(name)
    found = channels.local_files(str(tmp_path / "data"))
    assert [(f.key, f.origin) for f in found] == [
        (name, str(tmp_path / "data" / name)) for name in ("a/c.csv", "a/z.csv", "b.csv")
    ]
    single = channels.local_files(str(tmp_path / "data" / "b.csv"))
    assert single == [channels.DataFile("b.csv", str(tmp_path / "data" / "b.csv"))]


@pytest.fixture
def origin(tmp_path) -> Path:
    path = tmp_path / "origin.bin"
    path.write_bytes(os.urandom(3 * 1024 * 1024 + 17))  # larger than one read, not a round size
    os.utime(path, (1_000_000, 1_000_000))
    return path


def copied(origin: Path, tmp_path: Path) -> Path:
    destination = tmp_path / "host" / "deep" / "copy.bin"
    channels.private_copy(origin, destination)
    assert destination.read_bytes() == origin.read_bytes()
    assert destination.stat().st_mtime == 1_000_000
    return destination


def test_a_reflink_is_the_whole_copy(origin, tmp_path, monkeypatch):
    def clone(target: int, request: int, source: int) -> None:
        assert request == channels.FICLONE
        os.write(target, os.pread(source, origin.stat().st_size, 0))

    def never(*args: Any) -> int:
        raise AssertionError("a reflinked file is not copied again")

    monkeypatch.setattr(channels.fcntl, "ioctl", clone)
    monkeypatch.setattr(channels.os, "copy_file_range", never)
    copied(origin, tmp_path)


def test_without_reflinks_the_kernel_copies_to_the_end(origin, tmp_path, monkeypatch):
    def no_reflink(*args: Any) -> None:
        raise OSError(95, "Operation not supported")

    calls = []
    real = os.copy_file_range

    def small_steps(source: int, target: int, count: int) -> int:
        calls.append(count)
        return real(source, target, min(count, 1024 * 1024))

    monkeypatch.setattr(channels.fcntl, "ioctl", no_reflink)
    monkeypatch.setattr(channels.os, "copy_file_range", small_steps)
    copied(origin, tmp_path)
    assert len(calls) == 5 and set(calls) == {channels._COPY_CHUNK}  # 4 chunks, then 0: the end


@pytest.mark.parametrize("failure", [OSError(18, "Invalid cross-device link"), AttributeError()])
def test_where_the_kernel_cannot_copy_a_plain_copy_starts_over(
    origin, tmp_path, monkeypatch, failure
):
    def no_reflink(*args: Any) -> None:
        raise OSError(95, "Operation not supported")

    def half_then_fail(source: int, target: int, count: int) -> int:
        os.write(target, b"half-written garbage")
        os.lseek(source, 5, os.SEEK_SET)
        raise failure

    monkeypatch.setattr(channels.fcntl, "ioctl", no_reflink)
    monkeypatch.setattr(channels.os, "copy_file_range", half_then_fail)
    copied(origin, tmp_path)


class Recording:
    """An object store that lists one object and records where it was asked to look and fetch."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, Path | None]] = []

    def objects(self, uri: str) -> list[channels.DataFile]:
        self.asked.append((uri, None))
        return [channels.DataFile("a.csv", "train/a.csv")]

    def fetch(self, uri: str, files: list[channels.DataFile], cache: Path) -> dict[str, Path]:
        self.asked.append((uri, cache))
        (cache / "a.csv").parent.mkdir(parents=True, exist_ok=True)
        (cache / "a.csv").write_text("1\n")
        return {"a.csv": cache / "a.csv"}


def test_an_s3_channel_is_listed_and_fetched_into_its_own_cache_folder(tmp_path):
    store = Recording()
    source = channels.Source("train", "s3://bucket/train/", sharded=False)
    tree = HostTree("algo-1", tmp_path / "algo-1")
    counts = channels.populate([tree], {"train": source}, tmp_path / "cache", lambda: store)
    assert counts == {"train": [1]}
    assert store.asked == [
        ("s3://bucket/train/", None),
        ("s3://bucket/train/", tmp_path / "cache" / "train"),
    ]
    assert (tree.channel("train") / "a.csv").read_text() == "1\n"


def test_every_unreadable_channel_is_named_at_its_own_line_and_s3_needs_no_local_check(
    make_config,
):
    fsx = {"type": "FSxLustre", "id": "fs-0123456789abcdef0", "path": "/fsx/data"}
    inputs = {"a": "nowhere/", "b": {"file_system": fsx}, "c": "s3://bucket/train/", "d": "gone/"}
    loaded = load(make_config({"inputs": inputs}))
    with pytest.raises(ConfigError) as raised:
        channels.sources(loaded)
    problems = [(p.path, p.message) for p in raised.value.problems]
    assert [path for path, _ in problems] == [
        "inputs.a.uri",
        "inputs.b.file_system",
        "inputs.d.uri",
    ]
    assert problems[1][1] == (
        "FSxLustre channels cannot be mounted locally: set local.inputs.b "
        "to a local copy of the data (a path or s3:// URI)"
    )
    del inputs["a"], inputs["b"], inputs["d"]
    found = channels.sources(load(make_config({"inputs": inputs})))
    assert found == {"c": channels.Source("c", "s3://bucket/train/", sharded=False)}

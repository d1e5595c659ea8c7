"""`import` of a code bundle with entries that would land outside its folder (`../`, an absolute
path, a link out): exit 2 naming the entry, and nothing written — no folder, no half of one, no
staging folder left beside it. From a saved plan's bundle and from a live job's bundle in S3."""

from __future__ import annotations

import io
import json
import tarfile

import pytest

from sagelaunch import plan_file
from tests.aws.conftest import boto_client, submitted
from tests.aws.test_faults import run_cli

pytestmark = pytest.mark.integration


def bundle_with(bad: tarfile.TarInfo) -> bytes:
    """A tar.gz with a good file first (an extractor that goes entry by entry writes it before
    it meets the bad one), then ``bad``."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        good = b"print('hi')\n"
        info = tarfile.TarInfo("train.py")
        info.size = len(good)
        tar.addfile(info, io.BytesIO(good))
        tar.addfile(bad, io.BytesIO(b"x" * bad.size))
    return out.getvalue()


def entry(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    info.size = 1 if kind == tarfile.REGTYPE else 0
    return info


BAD = [
    entry("../escaped.py"),
    entry("/tmp/sagelaunch-absolute.py"),
    entry("link", tarfile.SYMTYPE, "../../outside"),
]


def assert_refused(proc, name: str, parent, target) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    (line,) = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert f"entry {name!r} would be unpacked outside its folder" in line, line
    assert "nothing was unpacked" in line
    assert not target.exists()
    assert [p.name for p in parent.iterdir() if p.name.startswith(f".{target.name}")] == []
    assert not (parent.parent / "escaped.py").exists() and not (parent / "escaped.py").exists()


@pytest.mark.parametrize("bad", BAD, ids=lambda info: info.name)
def test_a_saved_plans_bundle_with_an_escaping_entry_is_exit_2(plan_copy, tmp_path, bad):
    plan_file.bundle_path_for(plan_copy).write_bytes(bundle_with(bad))
    work = tmp_path / "work"
    work.mkdir()
    target = work / "code"
    out = work / "job.yaml"
    proc = run_cli(
        "import", str(plan_copy), "--out", str(out), "--source-dir", str(target), env_changes={}
    )
    assert_refused(proc, bad.name, work, target)
    assert not out.exists()


def test_a_live_jobs_bundle_with_an_escaping_entry_is_exit_2(cli, moto, plan_copy, tmp_path):
    job = submitted(cli("submit", plan_copy, "-o", "json"))
    uri = json.loads(plan_copy.read_text())["upload"]["s3_uri"]
    bucket, key = uri[5:].split("/", 1)
    boto_client("s3").put_object(Bucket=bucket, Key=key, Body=bundle_with(BAD[0]))
    work = tmp_path / "work"
    work.mkdir()
    target = work / "code"
    proc = run_cli(
        "import", job["job_name"], "--out", str(work / "job.yaml"), "--source-dir", str(target),
        env_changes={},
    )  # fmt: skip
    assert_refused(proc, "../escaped.py", work, target)


def test_a_good_bundle_is_unpacked_whole(plan_copy, tmp_path):
    target = tmp_path / "code"
    proc = run_cli(
        "import", str(plan_copy), "--out", str(tmp_path / "job.yaml"), "--source-dir",
        str(target), env_changes={},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (target / "train_pytorch.py").is_file()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".code")] == []

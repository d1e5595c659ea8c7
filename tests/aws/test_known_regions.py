"""The regions botocore knows, kept in the cache folder per botocore version: the kept list is
botocore's own, a damaged file is read again from botocore, AWS_DATA_PATH is never cached."""

from __future__ import annotations

import json

import botocore

from sagelaunch.aws import session


def fresh(monkeypatch, tmp_path, data_path: str | None = None) -> frozenset[str]:
    monkeypatch.setenv("SAGELAUNCH_CACHE_DIR", str(tmp_path))
    if data_path is None:
        monkeypatch.delenv("AWS_DATA_PATH", raising=False)
    else:
        monkeypatch.setenv("AWS_DATA_PATH", data_path)
    session.known_regions.cache_clear()
    try:
        return session.known_regions()
    finally:
        session.known_regions.cache_clear()


def test_the_kept_regions_are_botocores_and_a_damaged_file_is_read_again(monkeypatch, tmp_path):
    first = fresh(monkeypatch, tmp_path)
    assert {"us-east-1", "eu-west-1", "cn-north-1", "us-gov-west-1"} <= first
    kept = tmp_path / "botocore-regions" / f"sagemaker-{botocore.__version__}.json"
    assert frozenset(json.loads(kept.read_text())) == first
    kept.write_text(json.dumps(["xx-test-1"]))
    assert fresh(monkeypatch, tmp_path) == {"xx-test-1"}  # read from the cache, not botocore
    kept.write_text("{not json")
    assert fresh(monkeypatch, tmp_path) == first
    assert frozenset(json.loads(kept.read_text())) == first


def test_an_aws_data_path_is_read_each_time_and_not_kept(monkeypatch, tmp_path):
    regions = fresh(monkeypatch, tmp_path / "cache", data_path=str(tmp_path / "no-models"))
    assert "us-east-1" in regions
    assert not (tmp_path / "cache" / "botocore-regions").exists()

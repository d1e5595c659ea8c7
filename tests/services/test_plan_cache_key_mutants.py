"""The plan cache key's inputs that `make mutate` found untested: each SDK defaults file, as the
SDK finds it (an S3 URI as written, a folder's config.yaml, none), and sagelaunch's own files
without their bytecode. A key that misses one of them plans from another entry's request."""

from __future__ import annotations

import hashlib

from sagelaunch.services.planning import sagelaunch_files, sdk_defaults

ADMIN, USER = "SAGEMAKER_ADMIN_CONFIG_OVERRIDE", "SAGEMAKER_USER_CONFIG_OVERRIDE"


def test_sdk_defaults_in_s3_are_keyed_by_their_uris(monkeypatch):
    monkeypatch.setenv(ADMIN, "s3://bucket/admin.yaml")
    monkeypatch.setenv(USER, "s3://bucket/user.yaml")
    assert sdk_defaults() == [(ADMIN, "s3://bucket/admin.yaml"), (USER, "s3://bucket/user.yaml")]


def test_a_folder_is_keyed_by_its_config_yaml_and_a_missing_file_as_none(monkeypatch, tmp_path):
    (tmp_path / "admin").mkdir()
    (tmp_path / "admin" / "config.yaml").write_text("SchemaVersion: '1.0'\n")
    monkeypatch.setenv(ADMIN, str(tmp_path / "admin"))
    monkeypatch.setenv(USER, str(tmp_path / "absent.yaml"))
    digest = hashlib.sha256(b"SchemaVersion: '1.0'\n").hexdigest()
    assert sdk_defaults() == [(str(tmp_path / "admin" / "config.yaml"), digest), (USER, None)]


def test_sagelaunch_files_leave_out_bytecode(tmp_path):
    (tmp_path / "pkg" / "__pycache__").mkdir(parents=True)
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")
    (tmp_path / "pkg" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    digest = hashlib.sha256(b"x = 1\n").hexdigest()
    assert sagelaunch_files(tmp_path) == [("pkg/a.py", digest)]

"""The trimmed SageMaker and S3 models: exactly the operations sagelaunch calls, same shapes as
botocore's, and botocore's full models whenever the cache cannot be written."""

from __future__ import annotations

import json
import re

import botocore.loaders
import botocore.session
import pytest
from botocore import xform_name
from botocore.validate import validate_parameters

from sagelaunch.aws import models
from tests.conftest import REPO

CALLERS = [
    REPO / "cli" / "sagelaunch" / "aws" / name
    for name in ("jobs.py", "tuning.py", "training_plans.py")
]


def client_from(loader, service="sagemaker"):
    session = botocore.session.Session()
    session.register_component("data_loader", loader)
    return session.create_client(
        service, region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y"
    )


def structure(shape, seen=None) -> dict:
    """Every shape reachable from ``shape``: its type, members and their shapes (no docs)."""
    seen = {} if seen is None else seen
    if shape is None or shape.name in seen:
        return seen
    refs = dict(getattr(shape, "members", {}))
    for ref in ("member", "key", "value"):
        if getattr(shape, ref, None) is not None:
            refs[ref] = getattr(shape, ref)
    seen[shape.name] = (
        shape.type_name,
        {k: v.name for k, v in refs.items()},
        json.dumps(shape.metadata, sort_keys=True, default=str),
    )
    for child in refs.values():
        structure(child, seen)
    return seen


def test_every_sagemaker_call_in_aws_jobs_is_kept():
    # Called, or handed to a pager (`newest(sagemaker.list_training_jobs, ...)`).
    called = {c for f in CALLERS for c in re.findall(r"sagemaker\.(\w+)[(,]", f.read_text())}
    assert called, "the pattern no longer finds the calls"
    assert called == {xform_name(op) for op in models.OPERATIONS["sagemaker"]}


def test_every_s3_call_outside_botocore_is_kept():
    callers = [REPO / "cli" / "sagelaunch" / p for p in ("aws", "services")]
    sources = "".join(f.read_text() for d in callers for f in d.glob("*.py"))
    called = set(re.findall(r"s3\.(\w+)\(", sources)) | set(
        re.findall(r's3\.get_paginator\("(\w+)"\)', sources)
    )
    assert called >= {"head_object", "put_object", "get_object", "list_objects_v2"}
    assert called <= {xform_name(op) for op in models.OPERATIONS["s3"]} | {"get_paginator"}


@pytest.mark.parametrize("service", sorted(models.OPERATIONS))
def test_trimmed_model_matches_botocore_for_our_operations(tmp_path, monkeypatch, service):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    trimmed = client_from(models.trimmed_loader(None), service)
    full = client_from(botocore.loaders.create_loader(), service)
    assert set(trimmed.meta.service_model.operation_names) == set(models.OPERATIONS[service])
    for side in ("metadata", "client_context_parameters", "signature_version"):
        ours, theirs = (getattr(c.meta.service_model, side) for c in (trimmed, full))
        assert ours == theirs
    for name in models.OPERATIONS[service]:
        ours, theirs = (c.meta.service_model.operation_model(name) for c in (trimmed, full))
        assert ours.http == theirs.http and ours.metadata == theirs.metadata
        for side in ("input_shape", "output_shape"):
            assert structure(getattr(ours, side)) == structure(getattr(theirs, side))
    written = {p.parts[-3]: p for p in tmp_path.rglob("service-2.json")}
    assert set(written) == set(models.OPERATIONS)
    assert all(p.stat().st_size < 100_000 for p in written.values())


def test_the_golden_request_validates_against_the_trimmed_model(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    trimmed = client_from(models.trimmed_loader(None))
    golden = json.loads((REPO / "tests" / "golden" / "smddp-p4d.json").read_text())["request"]
    validate_parameters(
        golden, trimmed.meta.service_model.operation_model("CreateTrainingJob").input_shape
    )


def test_a_second_loader_reuses_the_written_models(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    models.trimmed_loader(None)
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("service-2.json")}
    loader = models.trimmed_loader(None)
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("service-2.json")} == before
    assert "ListBuckets" not in client_from(loader, "s3").meta.service_model.operation_names


def test_an_unwritable_cache_falls_back_to_the_full_model(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    client = client_from(models.trimmed_loader(None))
    assert "CreateEndpoint" in client.meta.service_model.operation_names

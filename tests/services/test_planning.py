"""The plan cache gives exactly what planning again would, and only when nothing it depends on
changed: same request under a new job name (and, for local runs, a new code location), today's
config warnings; a cached `plan` never imports the SageMaker SDK."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sagelaunch import bundle
from sagelaunch.caches import CACHE_DIR_ENV
from sagelaunch.checks.validation import load_valid
from sagelaunch.local.variant import local_variant
from sagelaunch.services import planning
from sagelaunch.services.planning import build_plan
from tests.conftest import EXAMPLES

pytestmark = pytest.mark.usefixtures("own_caches")  # under the working folder, as checked


def plan_for(planned, job_name, code):
    return build_plan(
        planned,
        job_name=job_name,
        region="us-east-1",
        role=str(planned.config.role),
        bundle=code,
        warnings=[],
    )


# Network isolation: the SDK ships the code in a `code` channel, and the submit directory is the
# channel's path in the container, not the bundle's S3 location (which a rerun once wrote there).
@pytest.mark.parametrize("overrides", [[], ["network.isolation=true"]], ids=["s3", "isolated"])
def test_retargeted_cache_entry_equals_a_fresh_plan(tmp_path, overrides):
    loaded, _ = load_valid(EXAMPLES / "cpu-local.yaml", overrides)
    planned = local_variant(loaded)
    (tmp_path / "v1").mkdir()
    (tmp_path / "v2").mkdir()
    (tmp_path / "v1" / "train_pytorch.py").write_text("print(1)\n")
    (tmp_path / "v2" / "train_pytorch.py").write_text("print(2)\n")
    first, second = bundle.build(tmp_path / "v1"), bundle.build(tmp_path / "v2")
    assert first.sha256 != second.sha256

    key = planning.cache_key(planned, region="us-east-1", role=str(planned.config.role))
    planning.store(tmp_path / "cache", key, plan_for(planned, "run-1", first))
    cached = planning.load(tmp_path / "cache", key)
    assert cached is not None

    warning = loaded.problem(("name",), "a config warning", severity="warning")
    retargeted = planning.retarget(cached, planned, "run-2", second, [warning])
    fresh = plan_for(planned, "run-2", second)
    assert retargeted.request == fresh.request
    assert retargeted.estimator == fresh.estimator
    assert retargeted.upload == fresh.upload
    same = planning.retarget(cached, planned, "run-1", first, [])
    assert same.request == plan_for(planned, "run-1", first).request
    assert [(w.source, w.message) for w in retargeted.warnings] == [("config", "a config warning")]


def test_key_changes_with_config_code_and_versions_and_damaged_entries_are_misses(tmp_path):
    loaded, _ = load_valid(EXAMPLES / "cpu-local.yaml")
    other, _ = load_valid(EXAMPLES / "cpu-local.yaml", ["hyperparameters.n_layer=3"])
    key = planning.cache_key
    base = {"region": "us-east-1", "role": "arn:aws:iam::1:role/R"}
    keys = {
        key(loaded, **base),
        key(other, **base),
        key(loaded, **base, code_sha256="0" * 64),
        key(loaded, **base, versions={**planning.installed_versions(), "sagemaker": "0.0"}),
        key(loaded, **base, versions={**planning.installed_versions(), "sagelaunch": "0.0"}),
        key(loaded, region="eu-west-1", role=base["role"]),
    }
    assert len(keys) == 6
    assert key(loaded, **base) == key(load_valid(EXAMPLES / "cpu-local.yaml")[0], **base)
    (tmp_path / "bad.json").write_text("{not json")
    assert planning.load(tmp_path, "bad") is None
    assert planning.load(tmp_path, "absent") is None


def _plan_importing(config: Path, cwd: Path, *args: str) -> tuple[dict, set[str]]:
    proc = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "sagelaunch",
            "plan",
            str(config),
            "-o",
            "json",
            *list(args),
        ],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    modules = {
        line.rsplit("|", 1)[-1].strip().split(".")[0]
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    return json.loads(proc.stdout), modules


def test_unchanged_plan_comes_from_the_cache_without_the_sdk(tmp_path):
    config = tmp_path / "job.yaml"
    config.write_text(f"extends: {EXAMPLES / 'smddp-p4d.yaml'}\n")
    first, first_modules = _plan_importing(config, tmp_path, "--job-name", "one")
    assert "sagemaker" in first_modules
    again, again_modules = _plan_importing(config, tmp_path, "--job-name", "two")
    assert not again_modules & {"sagemaker", "boto3", "botocore"}
    assert again["request"]["TrainingJobName"] == "two"
    assert json.loads(again["request"]["HyperParameters"]["sagemaker_job_name"]) == "two"
    renamed = {**first["request"], "TrainingJobName": "two"}
    renamed["HyperParameters"] = {**renamed["HyperParameters"], "sagemaker_job_name": '"two"'}
    assert again["request"] == renamed
    assert again["upload"] == first["upload"] and again["estimator"] == first["estimator"]

    config.write_text(config.read_text() + "hyperparameters: {max_steps: 7}\n")
    changed, changed_modules = _plan_importing(config, tmp_path, "--job-name", "three")
    assert "sagemaker" in changed_modules
    assert changed["request"]["HyperParameters"]["max_steps"] == "7"


SECOND_CHECKOUT_JOB = """\
name: moved-job
framework: pytorch
framework_version: "2.2.0"
entry_point: train.py
source_dir: code
role: arn:aws:iam::111122223333:role/SageMakerRole
region: us-east-1
output_path: s3://sagelaunch-examples/output/
compute: {instance_type: ml.g5.12xlarge, instance_count: 2}  # EFA: no warning naming its file
distribution: {strategy: torchrun}
"""


def test_a_second_checkout_plans_from_the_shared_cache_without_the_sdk(tmp_path, monkeypatch):
    """SAGELAUNCH_CACHE_DIR: one cache for every checkout of a project (a CI cache step, a second
    clone); the key names no folder, so the same config and code elsewhere are the same plan."""
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "shared"))
    plans = []
    for checkout in (tmp_path / "clone-1", tmp_path / "clone-2" / "deeper"):
        (checkout / "code").mkdir(parents=True)
        (checkout / "code" / "train.py").write_text("print('train')\n")
        (checkout / "job.yaml").write_text(SECOND_CHECKOUT_JOB)
        plans.append(_plan_importing(checkout / "job.yaml", checkout, "--job-name", "j-1"))
    (first, first_modules), (second, second_modules) = plans
    assert "sagemaker" in first_modules
    assert not second_modules & {"sagemaker", "boto3", "botocore"}
    # The plan is the same; the folder each shipped its code from is its own checkout's.
    folders = [plan["upload"].pop("source_dir") for plan in (first, second)]
    assert folders == [
        str(tmp_path / "clone-1" / "code"),
        str(tmp_path / "clone-2" / "deeper" / "code"),
    ]
    assert second == first
    assert list((tmp_path / "shared" / planning.PLANS).glob("*.json"))
    assert not (tmp_path / "clone-1" / ".sagelaunch").exists()  # nothing beside the config

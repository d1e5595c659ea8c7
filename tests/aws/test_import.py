"""`sagelaunch import JOB` against moto's server: submit a config, import the job by name (code
bundle downloaded and unpacked), plan the imported config: the same request.

moto does not store Environment, ProfilerConfig or RetryStrategy and replaces MetricDefinitions
with a fake, so those are left out of the comparison (a real DescribeTrainingJob returns them)."""

from __future__ import annotations

import json

import pytest

from tests.aws.conftest import SMDDP, submitted

pytestmark = pytest.mark.integration
NOT_STORED_BY_MOTO = {"Environment", "ProfilerConfig", "RetryStrategy"}


def _comparable(request: dict) -> dict:
    kept = {k: v for k, v in request.items() if k not in NOT_STORED_BY_MOTO}
    spec = {k: v for k, v in kept["AlgorithmSpecification"].items() if k != "MetricDefinitions"}
    return {**kept, "AlgorithmSpecification": spec}


def test_imported_job_plans_to_the_request_it_was_created_with(cli, moto, tmp_path):
    job = submitted(cli("submit", SMDDP, "--idempotency-key", "import-1", "-o", "json"))
    name = job["job_name"]
    original = json.loads(cli("plan", SMDDP, "--job-name", name, "-o", "json").stdout)["request"]
    out, code = tmp_path / "imported.yaml", tmp_path / "code"
    result = cli("import", name, "--out", out, "--source-dir", code)
    assert result.exit_code == 0, result.output
    assert (code / "train_pytorch.py").is_file()  # the bundle, downloaded from S3 and unpacked
    replanned = cli("plan", out, "--job-name", name, "-o", "json")
    assert replanned.exit_code == 0, replanned.output
    assert _comparable(json.loads(replanned.stdout)["request"]) == _comparable(original)


def test_import_of_a_missing_job_exits_3(cli, moto, tmp_path):
    result = cli("import", "no-such-job", "--out", tmp_path / "x.yaml")
    assert result.exit_code == 3

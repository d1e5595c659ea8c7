"""`sagelaunch submit` against moto's server: what is sent, idempotency, saved plans."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from sagelaunch import plan_file
from tests.aws.conftest import BUCKET, SMDDP, boto_client, submitted
from tests.conftest import REPO

pytestmark = pytest.mark.integration


def test_submit_sends_the_planned_request(cli, moto):
    job = submitted(cli("submit", SMDDP, "--idempotency-key", "ci-run-1", "-o", "json"))
    plan = json.loads(cli("plan", SMDDP, "--job-name", job["job_name"], "-o", "json").stdout)
    sent = boto_client("sagemaker").describe_training_job(TrainingJobName=job["job_name"])
    request = plan["request"]
    assert sent["HyperParameters"] == request["HyperParameters"]
    assert json.loads(sent["HyperParameters"]["sagemaker_job_name"]) == job["job_name"]
    assert (
        sent["AlgorithmSpecification"]["TrainingImage"]
        == request["AlgorithmSpecification"]["TrainingImage"]
    )
    assert sent["ResourceConfig"] == request["ResourceConfig"]
    assert sent["InputDataConfig"] == request["InputDataConfig"]
    assert sent["RoleArn"] == request["RoleArn"]
    assert job["arn"] == sent["TrainingJobArn"] and job["uploaded"] is True
    assert job["bundle_sha256"] == plan["upload"]["sha256"]
    bucket, key = plan["upload"]["s3_uri"][5:].split("/", 1)
    assert bucket == BUCKET
    body = boto_client("s3").get_object(Bucket=bucket, Key=key)["Body"].read()
    assert len(body) == plan["upload"]["compressed_bytes"]
    assert job["console_url"].endswith(f"#/jobs/{job['job_name']}")


def test_one_key_one_job_and_no_second_upload(cli, proxy):
    first = submitted(cli("submit", SMDDP, "--idempotency-key", "k1", "-o", "json"))
    after_first = dict(proxy.forwarded)
    second = submitted(cli("submit", SMDDP, "--idempotency-key", "k1", "-o", "json"))
    assert first["job_name"] == second["job_name"]
    assert (first["uploaded"], first["attached"]) == (True, False)
    assert (second["uploaded"], second["attached"]) == (False, True)
    assert second["status"] == "Completed"  # moto finishes jobs at once; attach describes it
    jobs = boto_client("sagemaker").list_training_jobs()["TrainingJobSummaries"]
    assert [j["TrainingJobName"] for j in jobs] == [first["job_name"]]
    assert after_first["s3:PutObject"] == 1 and proxy.forwarded["s3:PutObject"] == 1
    assert proxy.created_names == [first["job_name"]]


def test_key_from_the_environment(cli, moto, plan_copy, monkeypatch):
    monkeypatch.setenv("SAGELAUNCH_IDEMPOTENCY_KEY", "pipeline-42")
    by_env = submitted(cli("submit", plan_copy, "-o", "json"))
    by_flag = submitted(cli("submit", plan_copy, "--idempotency-key", "pipeline-42", "-o", "json"))
    assert by_env["job_name"] == by_flag["job_name"] and by_flag["attached"]
    assert by_env["job_name"].startswith("bert-smddp-") and len(by_env["job_name"]) <= 63


def test_same_plan_file_twice_is_one_job(cli, moto, plan_copy):
    plan, _ = plan_file.load(plan_copy)
    first = submitted(cli("submit", plan_copy, "-o", "json"))
    second = submitted(cli("submit", plan_copy, "-o", "json"))
    assert first["job_name"] == second["job_name"] == plan.job_name
    assert (first["attached"], second["attached"], second["uploaded"]) == (False, True, False)
    jobs = boto_client("sagemaker").list_training_jobs()["TrainingJobSummaries"]
    assert len(jobs) == 1
    sent = boto_client("sagemaker").describe_training_job(TrainingJobName=plan.job_name)
    assert sent["HyperParameters"] == plan.request["HyperParameters"]


def test_requests_per_submit_counted_at_the_proxy(cli, proxy, plan_copy):
    """First submit: HeadObject + the quota pre-flight (ListServiceQuotas: this account lists
    none, so no job is listed) + PutObject + CreateTrainingJob (no describe: the bundle was
    missing, so the job cannot exist). Resubmit: HeadObject + DescribeTrainingJob (attach, no
    pre-flight). --no-check-quota: what the SDK's fit() sends, nothing more."""
    submitted(cli("submit", plan_copy, "-o", "json"))
    assert dict(proxy.requests) == {
        "s3:HeadObject": 1,
        "servicequotas:ListServiceQuotas": 1,
        "s3:PutObject": 1,
        "sagemaker:CreateTrainingJob": 1,
    }
    proxy.reset()
    submitted(cli("submit", plan_copy, "-o", "json"))
    assert dict(proxy.requests) == {"s3:HeadObject": 1, "sagemaker:DescribeTrainingJob": 1}
    proxy.reset()
    fresh = submitted(
        cli("submit", plan_copy, "--idempotency-key", "new", "--no-check-quota", "-o", "json")
    )
    assert dict(proxy.requests) == {
        "s3:HeadObject": 1,
        "sagemaker:DescribeTrainingJob": 1,
        "sagemaker:CreateTrainingJob": 1,
    }
    assert proxy.s3_bytes_in == 0 and not fresh["uploaded"]


def test_a_tampered_bundle_is_refused_before_any_aws_call(cli, proxy, plan_copy):
    bundle = plan_file.bundle_path_for(plan_copy)
    bundle.write_bytes(bundle.read_bytes() + b"\0")
    result = cli("submit", plan_copy)
    assert result.exit_code == 2
    assert "changed after the plan was made" in result.output and "Traceback" not in result.output
    assert proxy.total() == 0


def test_a_saved_plan_takes_no_overrides(cli, moto, plan_copy):
    result = cli("submit", plan_copy, "--set", "compute.instance_count=4")
    assert result.exit_code == 2 and "--set cannot change a saved plan" in result.output


def test_table_output(cli, moto, plan_copy):
    result = cli("submit", plan_copy)
    assert result.exit_code == 0, result.output
    assert "created job bert-smddp-" in result.stdout and "code     uploaded" in result.stdout


def test_saved_plan_submits_without_importing_the_sdk(moto, plan_copy):
    """A fresh interpreter: other tests' imports cannot hide an `import sagemaker`."""
    script = textwrap.dedent(f"""
        import sys
        from sagelaunch.app import app
        try:
            app(["submit", {str(plan_copy)!r}, "-o", "json"])
        except SystemExit as exc:
            assert exc.code in (0, None), exc.code
        heavy = sorted(m for m in ("sagemaker", "sagemaker_core", "boto3", "s3transfer")
                       if m in sys.modules)
        print("HEAVY=" + ",".join(heavy), file=sys.stderr)
    """)
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    (heavy,) = [line for line in proc.stderr.splitlines() if line.startswith("HEAVY=")]
    assert heavy == "HEAVY="
    assert json.loads(proc.stdout)["uploaded"] is True


def test_a_changed_plan_file_is_refused_with_a_diff(cli, moto, plan_copy):
    """Edited after a first submit, the same job name would run something else: no attach."""
    first = submitted(cli("submit", plan_copy, "-o", "json"))
    document = json.loads(plan_copy.read_text())
    document["request"]["HyperParameters"]["max_steps"] = "10"
    document["request"]["ResourceConfig"]["InstanceCount"] = 4
    plan_copy.write_text(json.dumps(document))
    refused = cli("submit", plan_copy, "-o", "json")
    assert refused.exit_code == 2, refused.output
    assert f"named {first['job_name']!r} already exists with a different request" in (
        refused.output
    )
    assert 'HyperParameters.max_steps: planned "10", existing job has "5000"' in refused.output
    assert "ResourceConfig.InstanceCount: planned 4, existing job has 2" in refused.output
    assert "--idempotency-key" in refused.output and "Traceback" not in refused.output
    assert refused.stdout == ""  # no submission reported
    jobs = boto_client("sagemaker").list_training_jobs()["TrainingJobSummaries"]
    assert len(jobs) == 1


def test_two_plans_sharing_a_job_name_do_not_attach(cli, moto, tmp_path):
    """A second, different plan under the first one's name: refused when create finds it."""
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    assert cli("plan", SMDDP, "--job-name", "shared-name", "--out", one).exit_code == 0
    changed = ["--set", "compute.instance_count=4", "--set", "hyperparameters.max_steps=7"]
    assert cli("plan", SMDDP, *changed, "--job-name", "shared-name", "--out", two).exit_code == 0
    assert submitted(cli("submit", one, "-o", "json"))["attached"] is False
    refused = cli("submit", two)
    assert refused.exit_code == 2
    assert "ResourceConfig.InstanceCount: planned 4, existing job has 2" in refused.output
    assert 'HyperParameters.max_steps: planned "7"' in refused.output
    again = submitted(cli("submit", one, "-o", "json"))  # the same plan still attaches
    assert again["attached"] is True and again["job_name"] == "shared-name"


def test_a_create_refused_as_existing_attaches_only_to_the_same_request(cli, proxy, tmp_path):
    """The create race: with the code missing from S3 no describe comes first (our job cannot
    exist without its bundle), so a job of this name is found only when the create is refused as
    "already exists" (the proxy refuses a second create of a name, as AWS does; moto replaces the
    job). The attach then compares too: a different request is refused, the same one attaches."""
    proxy.unique_creates = True
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    assert cli("plan", SMDDP, "--job-name", "raced-name", "--out", one).exit_code == 0
    changed = ["--set", "hyperparameters.max_steps=7"]
    assert cli("plan", SMDDP, *changed, "--job-name", "raced-name", "--out", two).exit_code == 0
    assert submitted(cli("submit", one, "-o", "json"))["attached"] is False
    bucket, key = json.loads(one.read_text())["upload"]["s3_uri"][5:].split("/", 1)

    def bundle_gone() -> None:
        boto_client("s3").delete_object(Bucket=bucket, Key=key)

    bundle_gone()
    refused = cli("submit", two)
    assert refused.exit_code == 2, refused.output
    assert "'raced-name' already exists with a different request" in refused.output
    assert 'HyperParameters.max_steps: planned "7"' in refused.output
    bundle_gone()
    again = submitted(cli("submit", one, "-o", "json"))
    assert (again["attached"], again["uploaded"]) == (True, True)
    jobs = boto_client("sagemaker").list_training_jobs()["TrainingJobSummaries"]
    assert len(jobs) == 1


def test_a_different_key_for_the_same_config_is_a_different_job(cli, moto):
    first = submitted(cli("submit", SMDDP, "--idempotency-key", "run-a", "-o", "json"))
    second = submitted(cli("submit", SMDDP, "--idempotency-key", "run-b", "-o", "json"))
    assert first["job_name"] != second["job_name"]
    assert (first["attached"], second["attached"]) == (False, False)
    jobs = boto_client("sagemaker").list_training_jobs()["TrainingJobSummaries"]
    assert sorted(job["TrainingJobName"] for job in jobs) == sorted(
        [first["job_name"], second["job_name"]]
    )

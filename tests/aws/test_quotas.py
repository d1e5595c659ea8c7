"""`submit --check-quota` against moto's server, with the account's applied quotas answered by
the proxy (moto does not serve ListServiceQuotas): a job the quotas cannot hold is refused
before anything is uploaded, naming the quota."""

from __future__ import annotations

import json

import pytest

from sagelaunch.aws.quotas import TOTAL_INSTANCES
from tests.aws.capacity_proxy import CapacityProxy
from tests.aws.conftest import SMDDP, boto_client, submitted, training_job

pytestmark = pytest.mark.integration

P4D = "ml.p4d.24xlarge for training job usage"


@pytest.fixture
def quota_proxy(moto, monkeypatch):
    proxy = CapacityProxy(moto, quotas={P4D: 2, TOTAL_INSTANCES: 20}).start()
    monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.url)
    yield proxy
    proxy.stop()


def running_p4d_job(proxy: CapacityProxy, name: str, count: int) -> None:
    """A job of the account that holds ``count`` p4d instances (moto ends jobs at once)."""
    boto_client("sagemaker").create_training_job(
        TrainingJobName=name,
        AlgorithmSpecification={"TrainingImage": "img:1", "TrainingInputMode": "File"},
        RoleArn="arn:aws:iam::123456789012:role/SageMakerRole",
        OutputDataConfig={"S3OutputPath": "s3://sagelaunch-examples/out/"},
        ResourceConfig={
            "InstanceType": "ml.p4d.24xlarge",
            "InstanceCount": count,
            "VolumeSizeInGB": 30,
        },
        StoppingCondition={"MaxRuntimeInSeconds": 3600},
    )
    training_job(name).training_job_status = "InProgress"
    proxy.reset()  # the tests count only what submit sends


def test_a_job_over_the_quota_is_refused_before_upload(cli, quota_proxy):
    running_p4d_job(quota_proxy, "someone-elses-job", 1)
    result = cli("submit", SMDDP, "--check-quota", "--idempotency-key", "q1")
    assert result.exit_code == 3, result.output
    assert f"{P4D}: quota 2, in use 1, this job asks 2" in " ".join(result.output.split())
    assert "request-service-quota-increase" in result.output
    assert quota_proxy.forwarded["s3:PutObject"] == 0
    assert quota_proxy.created_names == []


def test_a_job_within_the_quota_is_created(cli, quota_proxy):
    running_p4d_job(quota_proxy, "ended-soon", 1)
    training_job("ended-soon").training_job_status = "Completed"  # holds nothing any more
    job = submitted(cli("submit", SMDDP, "--check-quota", "--idempotency-key", "q2", "-o", "json"))
    assert quota_proxy.requests["servicequotas:ListServiceQuotas"] == 1
    assert quota_proxy.created_names == [job["job_name"]]


def test_a_rerun_attaches_without_checking_again(cli, quota_proxy):
    first = submitted(
        cli("submit", SMDDP, "--check-quota", "--idempotency-key", "q3", "-o", "json")
    )
    training_job(first["job_name"]).training_job_status = "InProgress"
    # The running first job now holds 2 of the 2 p4d: a rerun attaches to it rather than
    # counting it against itself.
    again = submitted(
        cli("submit", SMDDP, "--check-quota", "--idempotency-key", "q3", "-o", "json")
    )
    assert again["attached"] and again["job_name"] == first["job_name"]
    assert quota_proxy.created_names == [first["job_name"]]


def test_without_the_flag_no_quota_is_read(cli, quota_proxy):
    submitted(cli("submit", SMDDP, "--idempotency-key", "q4", "-o", "json"))
    assert quota_proxy.requests["servicequotas:ListServiceQuotas"] == 0


def test_a_sweep_holds_the_trials_the_quota_cannot_take(cli, quota_proxy, tmp_path):
    """Quota 2 for g5.xlarge, trials of 1 and 2 instances, max_parallel 4: the quota, not a
    refused create, keeps trials queued."""
    import yaml

    from tests.aws.test_sweep import CONFIG

    quota_proxy.quotas["ml.g5.xlarge for training job usage"] = 2
    quota_proxy.keep_running = True
    config = {**CONFIG, "sweep": {**CONFIG["sweep"], "max_parallel": 4}}
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    result = cli("sweep", path, "--check-quota", "--idempotency-key", "s1", "-o", "json")
    assert result.exit_code == 0, result.output
    trials = json.loads(result.stdout)["trials"]
    created = [t for t in trials if t["status"] != "Queued"]
    asked = sum(int(t["parameters"]["compute.instance_count"]) for t in created)
    assert asked <= 2 and len(created) >= 1
    assert len(created) < len(trials)  # the rest stay queued for a rerun
    assert "it stays queued" in result.stderr
    assert quota_proxy.faults["sagemaker:CreateTrainingJob"] == 0  # never refused by AWS
    assert len(quota_proxy.created_names) == len(created)


def test_plan_checks_quotas_only_when_asked(cli, quota_proxy):
    running_p4d_job(quota_proxy, "holds-one", 1)
    assert cli("plan", SMDDP, "-o", "json").exit_code == 0
    assert quota_proxy.total() == 0  # plan stays offline by default
    result = cli("plan", SMDDP, "--check-quota", "-o", "json")
    assert result.exit_code == 3
    assert f"{P4D}: quota 2, in use 1, this job asks 2" in " ".join(result.output.split())

"""The quota pre-flight (on by default) against moto's server, with the account's applied quotas
answered by the proxy: a job the quotas cannot hold is refused before anything is uploaded,
naming the quota; plan checks when credentials are configured."""

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
    result = cli("submit", SMDDP, "--idempotency-key", "q1")
    assert result.exit_code == 3, result.output
    assert f"{P4D}: quota 2, in use 1, this job asks 2" in " ".join(result.output.split())
    assert "request-service-quota-increase" in result.output
    assert quota_proxy.forwarded["s3:PutObject"] == 0
    assert quota_proxy.created_names == []


def test_a_job_within_the_quota_is_created(cli, quota_proxy):
    running_p4d_job(quota_proxy, "ended-soon", 1)
    training_job("ended-soon").training_job_status = "Completed"  # holds nothing any more
    job = submitted(cli("submit", SMDDP, "--idempotency-key", "q2", "-o", "json"))
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


def test_no_check_quota_reads_no_quota(cli, quota_proxy):
    running_p4d_job(quota_proxy, "holds-one", 1)
    job = submitted(
        cli("submit", SMDDP, "--no-check-quota", "--idempotency-key", "q4", "-o", "json")
    )
    assert quota_proxy.requests["servicequotas:ListServiceQuotas"] == 0
    assert quota_proxy.created_names == [job["job_name"]]  # CreateTrainingJob has the last word


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
    result = cli("sweep", path, "--idempotency-key", "s1", "-o", "json")
    assert result.exit_code == 0, result.output
    trials = json.loads(result.stdout)["trials"]
    created = [t for t in trials if t["status"] != "Queued"]
    asked = sum(int(t["parameters"]["compute.instance_count"]) for t in created)
    assert asked <= 2 and len(created) >= 1
    assert len(created) < len(trials)  # the rest stay queued for a rerun
    assert "it stays queued" in result.stderr
    assert quota_proxy.faults["sagemaker:CreateTrainingJob"] == 0  # never refused by AWS
    assert len(quota_proxy.created_names) == len(created)


def test_plan_with_credentials_warns_of_a_short_quota(cli, quota_proxy):
    running_p4d_job(quota_proxy, "holds-one", 1)
    result = cli("plan", SMDDP, "-o", "json")
    assert result.exit_code == 0, result.output
    quota = json.loads(result.stdout)["quota"]
    assert quota["checked"] and quota["note"] is None
    p4d = next(q for q in quota["quotas"] if q["name"] == P4D)
    assert (p4d["quota"], p4d["in_use"], p4d["asks"], p4d["fits"]) == (2, 1, 2, False)
    assert "submit would refuse this job now" in result.stderr
    assert cli("plan", SMDDP, "--strict", "-o", "json").exit_code == 2


def test_plan_check_quota_requires_room(cli, quota_proxy):
    running_p4d_job(quota_proxy, "holds-one", 1)
    result = cli("plan", SMDDP, "--check-quota", "-o", "json")
    assert result.exit_code == 3
    assert f"{P4D}: quota 2, in use 1, this job asks 2" in " ".join(result.output.split())


def test_plan_no_check_quota_stays_offline(cli, quota_proxy):
    result = cli("plan", SMDDP, "--no-check-quota", "-o", "json")
    assert result.exit_code == 0 and "quota" not in json.loads(result.stdout)
    assert quota_proxy.total() == 0

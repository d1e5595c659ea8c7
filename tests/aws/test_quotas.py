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


# Advisory checks degrade: when Service Quotas cannot be read, submit and sweep say so in one
# warning line and go on (CreateTrainingJob still enforces the quotas); only a quota read and
# found short refuses. The reads give up after the advisory client's attempts, never after the
# main clients' 8.

LIST_QUOTAS = "servicequotas:ListServiceQuotas"
SKIPPED = "without the quota check"


def warning_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning:")]


@pytest.fixture
def plain_moto(proxy, monkeypatch):
    """moto's server as it ships: its Service Quotas backend does not serve ListServiceQuotas
    (it answers 500, which botocore retries), as a failing Service Quotas endpoint would."""
    from moto.servicequotas.responses import ServiceQuotasResponse

    monkeypatch.delattr(ServiceQuotasResponse, "list_service_quotas")
    return proxy


def test_plain_moto_submit_warns_once_and_creates_the_job(cli, plain_moto, plan_copy):
    from sagelaunch.aws.session import ADVISORY_MAX_ATTEMPTS, DEFAULT_MAX_ATTEMPTS

    result = cli("submit", plan_copy, "-o", "json")
    job = submitted(result)
    assert plain_moto.created_names == [job["job_name"]] and not job["attached"]
    (warning,) = warning_lines(result.stderr)
    # What it is: an endpoint without that API, not an outage.
    assert "quotas not checked: Service Quotas is not served by this endpoint" in warning
    assert f"({plain_moto.url}: ListServiceQuotas answered 500)" in warning
    assert "throttling" not in warning and "unavailable" not in warning
    assert f"the job is created {SKIPPED}" in warning
    assert plain_moto.requests[LIST_QUOTAS] == ADVISORY_MAX_ATTEMPTS < DEFAULT_MAX_ATTEMPTS


@pytest.mark.parametrize(
    ("code", "endpoint", "served"),
    [
        ("500", "http://127.0.0.1:5000", False),  # moto's server: the action is not implemented
        ("UnknownOperationException", "https://servicequotas.us-east-1.amazonaws.com", False),
        ("404", "https://servicequotas.us-east-1.amazonaws.com", False),
        ("500", "https://servicequotas.us-east-1.amazonaws.com", True),  # AWS's: an outage
        ("503", "https://servicequotas.cn-north-1.amazonaws.com.cn", True),
        ("ThrottlingException", "http://127.0.0.1:5000", True),
        ("InternalFailure", "http://127.0.0.1:5000", True),
    ],
)
def test_an_endpoint_without_the_api_is_told_from_a_failing_one(code, endpoint, served):
    from botocore.exceptions import ClientError

    from sagelaunch.aws.quotas import not_served

    error = ClientError({"Error": {"Code": code, "Message": "m"}}, "ListServiceQuotas")
    assert not_served(error, endpoint) is not served


@pytest.mark.parametrize(
    ("code", "requests", "said"),
    [
        ("AccessDeniedException", 1, "access denied: ListServiceQuotas"),
        ("ThrottlingException", 2, "ListServiceQuotas failed after 2 attempts (Throttling"),
    ],
)
def test_denied_or_throttled_service_quotas_is_one_warning(
    cli, proxy, plan_copy, code, requests, said
):
    proxy.script(LIST_QUOTAS, code, "no", times=8)
    result = cli("submit", plan_copy, "-o", "json")
    job = submitted(result)
    assert proxy.created_names == [job["job_name"]]
    (warning,) = warning_lines(result.stderr)
    assert said in warning and SKIPPED in warning
    assert proxy.requests[LIST_QUOTAS] == requests


def test_unreachable_service_quotas_endpoint_warns_and_the_job_is_created(
    cli, proxy, plan_copy, monkeypatch, caplog
):
    """Service Quotas alone points at a closed port on loopback (botocore's per-service
    endpoint variable); SageMaker and S3 are reached as usual."""
    import logging
    import socket

    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    monkeypatch.setenv("AWS_ENDPOINT_URL_SERVICE_QUOTAS", closed)
    caplog.set_level(logging.DEBUG, logger="botocore.retries.standard")
    result = cli("submit", plan_copy, "-o", "json")
    job = submitted(result)
    assert proxy.created_names == [job["job_name"]]
    (warning,) = warning_lines(result.stderr)
    assert f"Service Quotas could not be read: cannot reach AWS at {closed}" in warning
    assert f"the job is created {SKIPPED}" in warning
    # One retry in all (the advisory client's 2 attempts), not the main clients' 7.
    retries = [r for r in caplog.records if r.getMessage().startswith("Retry needed")]
    assert len(retries) == 1
    assert proxy.requests[LIST_QUOTAS] == 0


def test_a_sweep_on_plain_moto_warns_once_and_creates_its_trials(cli, plain_moto, tmp_path):
    """The sweep's pre-flight is the same check: one warning, one failed read (not one per
    trial), and every trial created."""
    import yaml

    from sagelaunch.aws.session import ADVISORY_MAX_ATTEMPTS
    from tests.aws.test_sweep import CONFIG

    config = {**CONFIG, "sweep": {**CONFIG["sweep"], "max_parallel": 4}}
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    result = cli("sweep", path, "--idempotency-key", "s2", "-o", "json")
    assert result.exit_code == 0, result.output
    trials = json.loads(result.stdout)["trials"]
    assert len(trials) == 4 and not any(t["status"] == "Queued" for t in trials)
    assert sorted(plain_moto.created_names) == sorted(t["job_name"] for t in trials)
    (warning,) = warning_lines(result.stderr)
    assert "ListServiceQuotas" in warning and f"trials are created {SKIPPED}" in warning
    assert plain_moto.requests[LIST_QUOTAS] == ADVISORY_MAX_ATTEMPTS

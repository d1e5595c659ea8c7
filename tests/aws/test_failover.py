"""`submit --wait` of a config with a failover chain (`compute.fallback`) against moto's server,
behind a proxy that plays a scarce-GPU account: types without capacity fail with SageMaker's
CapacityError, quotas come from Service Quotas' answer."""

from __future__ import annotations

import json

import pytest

from tests.aws.capacity_proxy import twice_at_once
from tests.aws.conftest import boto_client
from tests.conftest import EXAMPLES

pytestmark = pytest.mark.integration

SPOT = EXAMPLES / "spot-checkpoint.yaml"  # g5.2xlarge, spot, checkpoints in S3
CHAIN = (
    "compute.fallback=[{instance_type: ml.g5.12xlarge},"
    " {instance_type: ml.g5.48xlarge, instance_count: 2, on_demand: true}]"
)


def chain(cli, key: str = "ci-7"):
    return cli("submit", SPOT, "--set", CHAIN, "--wait", "--idempotency-key", key, "-o", "json")


def spot_chain(cli, fallback_after: str, key: str) -> list[dict]:
    """`submit --wait` of the spot example with `compute.spot.fallback_after`: its attempts."""
    setting = f"compute.spot.fallback_after={fallback_after}"
    result = cli("submit", SPOT, "--set", setting, "--wait", "--idempotency-key", key, "-o", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["attempts"]


def described(name: str) -> dict:
    return boto_client("sagemaker").describe_training_job(TrainingJobName=name)


def test_capacity_failures_move_down_the_chain_and_the_last_completes(cli, scarce):
    scarce.no_capacity = {"ml.g5.2xlarge", "ml.g5.12xlarge"}
    result = chain(cli)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    attempts = report["attempts"]
    assert [a["status"] for a in attempts] == ["Failed", "Failed", "Completed"]
    assert all(a["ended_because"].startswith("capacity: CapacityError") for a in attempts[:2])
    assert report["job_name"] == attempts[2]["job_name"]
    assert scarce.created_names == [a["job_name"] for a in attempts]
    jobs = [described(a["job_name"]) for a in attempts]
    assert [j["ResourceConfig"]["InstanceType"] for j in jobs] == [
        "ml.g5.2xlarge",
        "ml.g5.12xlarge",
        "ml.g5.48xlarge",
    ]
    assert jobs[2]["ResourceConfig"]["InstanceCount"] == 2
    assert [j.get("EnableManagedSpotTraining", False) for j in jobs] == [True, True, False]
    # every attempt resumes from the same checkpoints
    uris = {j["CheckpointConfig"]["S3Uri"] for j in jobs}
    assert uris == {"s3://sagelaunch-examples/ckpt/gpt-spot/"}


def test_a_rerun_attaches_to_every_attempt_and_creates_none(cli, scarce):
    scarce.no_capacity = {"ml.g5.2xlarge", "ml.g5.12xlarge"}
    first = json.loads(chain(cli).stdout)
    for _ in range(2):
        again = chain(cli)
        assert again.exit_code == 0, again.output
        assert json.loads(again.stdout)["attempts"] == first["attempts"]
    assert len(scarce.created_names) == 3 == len(set(scarce.created_names))
    assert scarce.faults["sagemaker:CreateTrainingJob"] == 0  # no second create was even sent


def test_a_code_failure_does_not_fail_over(cli, scarce):
    scarce.failing_code = {"ml.g5.2xlarge"}
    result = chain(cli)
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert [a["status"] for a in report["attempts"]] == ["Failed"]
    assert "AlgorithmError" in report["attempts"][0]["ended_because"]
    assert len(scarce.created_names) == 1


def test_a_quota_refusal_moves_on_before_any_job(cli, scarce):
    scarce.quotas["ml.g5.2xlarge for spot training job usage"] = 0
    result = chain(cli)
    assert result.exit_code == 0, result.output
    attempts = json.loads(result.stdout)["attempts"]
    assert attempts[0]["job_name"] is None
    assert "ml.g5.2xlarge for spot training job usage: quota 0" in attempts[0]["ended_because"]
    assert attempts[1]["status"] == "Completed" and len(attempts) == 2
    assert scarce.created_names == [attempts[1]["job_name"]]


def test_two_concurrent_reruns_create_each_attempt_once(scarce, moto):
    """Two CI retries of one step at once (two processes): one chain of three jobs."""
    scarce.no_capacity = {"ml.g5.2xlarge", "ml.g5.12xlarge"}
    outputs = twice_at_once(
        "submit", str(SPOT), "--set", CHAIN, "--wait", "--idempotency-key", "ci-9"
    )
    chains = [[a["job_name"] for a in out["attempts"]] for out in outputs]
    assert chains[0] == chains[1] and len(set(chains[0])) == 3
    assert sorted(scarce.created_names) == sorted(chains[0])  # each job created once


def test_a_spot_job_interrupted_too_often_is_stopped_and_rerun_on_demand(cli, scarce):
    scarce.spot_interruptions = 2
    attempts = spot_chain(cli, "2", "spot-1")
    assert [a["status"] for a in attempts] == ["Stopped", "Completed"]
    assert attempts[0]["ended_because"] == "spot: interrupted 2 times"
    assert scarce.requests["sagemaker:StopTrainingJob"] == 1
    jobs = [described(a["job_name"]) for a in attempts]
    assert [j.get("EnableManagedSpotTraining", False) for j in jobs] == [True, False]
    assert {j["CheckpointConfig"]["S3Uri"] for j in jobs} == {
        "s3://sagelaunch-examples/ckpt/gpt-spot/"
    }


def test_a_spot_job_not_ended_after_the_duration_is_rerun_on_demand(cli, scarce):
    """`fallback_after: 2h`: the spot job (interrupted once, created 3 hours ago) is stopped
    at the first look and the chain reruns it on demand."""
    scarce.spot_interruptions, scarce.spot_created_ago_s = 1, 3 * 3600
    attempts = spot_chain(cli, "2h", "spot-2")
    assert [a["status"] for a in attempts] == ["Stopped", "Completed"]
    assert attempts[0]["ended_because"] == "spot: not ended 2h after it was created"
    jobs = [described(a["job_name"]) for a in attempts]
    assert [j.get("EnableManagedSpotTraining", False) for j in jobs] == [True, False]


def test_fallback_after_is_interruptions_or_a_duration(cli):
    from sagelaunch.config.loader import load

    def spot(value: str):
        return load(SPOT, [f"compute.spot.fallback_after={value}"]).config.compute.spot

    assert spot("3").fallback_after.interruptions == 3
    assert spot("90m").fallback_after.seconds == 5400
    refused = cli("validate", SPOT, "--set", "compute.spot.fallback_after=soon")
    assert refused.exit_code == 2 and "compute.spot.fallback_after" in refused.output


def status_of(cli, name: str) -> dict:
    result = cli("status", name, "-o", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_status_of_any_attempt_shows_the_chain_and_its_cost(cli, scarce, monkeypatch):
    from sagelaunch.catalog import prices
    from tests.aws.conftest import training_job
    from tests.aws.price_list import priced

    priced(
        monkeypatch,
        {("us-east-1", t): u for t, u in (("ml.g5.12xlarge", "7.0"), ("ml.g5.48xlarge", "20.0"))},
    )

    scarce.no_capacity = {"ml.g5.2xlarge", "ml.g5.12xlarge"}
    names = [a["job_name"] for a in json.loads(chain(cli).stdout)["attempts"]]
    for name in names:  # moto bills nothing itself: 10 minutes each
        training_job(name).billable_time_in_seconds = 600
    views = [status_of(cli, name) for name in names]
    assert all(view["attempts"] == views[0]["attempts"] for view in views)
    attempts = views[0]["attempts"]
    assert [a["job_name"] for a in attempts] == names
    assert [a["ended_because"].split(":")[0] for a in attempts] == [
        "capacity",
        "capacity",
        "Completed",
    ]
    assert [a["cluster"] for a in attempts] == [
        "1 × ml.g5.2xlarge", "1 × ml.g5.12xlarge", "2 × ml.g5.48xlarge",
    ]  # fmt: skip
    assert [a["spot"] for a in attempts] == [True, True, False]
    hourly = [prices.hourly_price(t) for t in ("ml.g5.2xlarge", "ml.g5.12xlarge", "ml.g5.48xlarge")]
    expected = [round(h * n / 6, 2) for h, n in zip(hourly, (1, 1, 2), strict=True)]  # type: ignore[operator]
    assert [a["cost_usd"] for a in attempts] == expected
    assert views[0]["chain_cost_usd"] == round(sum(expected), 2)
    table = cli("status", names[1]).stdout
    assert "failover chain" in table and "capacity: CapacityError" in " ".join(table.split())


def test_status_shows_quota_refusals_code_failures_and_spot_ends(cli, scarce):
    scarce.quotas["ml.g5.2xlarge for spot training job usage"] = 0
    scarce.failing_code = {"ml.g5.12xlarge"}
    result = chain(cli, "ci-q")
    assert result.exit_code == 1
    name = json.loads(result.stdout)["attempts"][1]["job_name"]
    attempts = status_of(cli, name)["attempts"]
    assert attempts[0]["job_name"] is None and attempts[0]["ended_because"].startswith("quota:")
    assert attempts[1]["ended_because"] == "code: AlgorithmError: boom"
    assert len(attempts) == 2


def test_status_of_a_spot_attempt_says_it_gave_way_to_on_demand(cli, scarce):
    scarce.spot_interruptions = 2
    first = spot_chain(cli, "2", "spot-3")[0]["job_name"]
    attempts = status_of(cli, first)["attempts"]
    assert attempts[0]["ended_because"] == (
        "spot: stopped after 2 interruptions, for the on-demand rerun"
    )
    assert attempts[1]["status"] == "Completed" and attempts[1]["spot"] is False


def test_status_of_a_job_of_no_chain_has_no_attempts(cli, scarce):
    job = json.loads(cli("submit", SPOT, "--idempotency-key", "solo", "-o", "json").stdout)
    assert "attempts" not in status_of(cli, job["job_name"])


def no_wait(cli, key: str) -> dict:
    result = cli("submit", SPOT, "--set", CHAIN, "--idempotency-key", key, "-o", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_rerun_attaches_to_the_running_attempt_and_moves_on_only_after_it_ends(cli, scarce):
    """`submit` without --wait: attempt 0 finds no capacity, attempt 1 runs; a retried CI step
    attaches to attempt 1; once attempt 1 fails for capacity too, the next rerun starts 2."""
    from tests.aws.conftest import training_job

    scarce.no_capacity, scarce.keep_running = {"ml.g5.2xlarge"}, True
    first = no_wait(cli, "ci-r")
    assert [a["status"] for a in first["attempts"]] == ["Failed", "InProgress"]
    again = no_wait(cli, "ci-r")
    assert again["attempts"] == first["attempts"] and again["attached"]
    assert scarce.created_names == [a["job_name"] for a in first["attempts"]]
    scarce.no_capacity.add("ml.g5.12xlarge")
    training_job(first["attempts"][1]["job_name"]).training_job_status = "Completed"
    moved = no_wait(cli, "ci-r")
    assert [a["status"] for a in moved["attempts"]] == ["Failed", "Failed", "InProgress"]
    assert len(scarce.created_names) == 3 == len(set(scarce.created_names))


def test_two_concurrent_reruns_without_wait_start_one_chain(scarce):
    scarce.no_capacity, scarce.keep_running = {"ml.g5.2xlarge"}, True
    outputs = twice_at_once("submit", str(SPOT), "--set", CHAIN, "--idempotency-key", "ci-c")
    chains = [[a["job_name"] for a in out["attempts"]] for out in outputs]
    assert chains[0] == chains[1] and len(chains[0]) == 2
    assert sorted(scarce.created_names) == sorted(chains[0])


def test_every_alternative_short_of_quota_is_exit_3_naming_each(scarce):
    """No alternative has the quota: no job made, exit 3, one error line that names each
    alternative tried and its quota (in a fresh process: the exit code and streams are the
    point; an unraised last refusal would end in an internal error, exit 70)."""
    from tests.aws.test_faults import run_cli

    scarce.quotas["ml.g5.2xlarge for spot training job usage"] = 0
    scarce.quotas["ml.g5.12xlarge for spot training job usage"] = 0
    scarce.quotas["ml.g5.48xlarge for training job usage"] = 1
    args = ["submit", str(SPOT), "--set", CHAIN, "--wait", "--idempotency-key", "ci-short"]
    proc = run_cli(*args, env_changes={})
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    (line,) = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert line.startswith("error: failover chain: all 3 alternatives short of quota: ")
    tried = line.split(" short of quota: ", 1)[1].split("; ")
    assert [part.split(": ")[0] for part in tried] == [
        "main config",
        "ml.g5.12xlarge",
        "2 × ml.g5.48xlarge, on demand",
    ]
    assert "ml.g5.2xlarge for spot training job usage: quota 0" in tried[0]
    assert "ml.g5.12xlarge for spot training job usage: quota 0" in tried[1]
    assert "ml.g5.48xlarge for training job usage: quota 1" in tried[2]
    assert "hint:" in proc.stderr and "Service Quotas" in proc.stderr
    assert scarce.created_names == [] and scarce.requests["sagemaker:CreateTrainingJob"] == 0

"""`sweep` with a failover chain (`compute.fallback`) against moto's server behind the scarce-GPU
proxy: each trial walks its own chain as `submit` does (capacity failures and quotas that can
never hold it move it on; its code failing does not), and a rerun creates no job twice."""

from __future__ import annotations

import json
from collections import Counter

import pytest
import yaml

from sagelaunch.catalog import prices
from tests.aws.capacity_proxy import twice_at_once
from tests.aws.conftest import boto_client, training_job
from tests.aws.test_sweep import CONFIG

pytestmark = pytest.mark.integration

CHAIN = {**CONFIG["compute"], "fallback": [{"instance_type": "ml.g5.2xlarge"}]}


@pytest.fixture
def chain_sweep(tmp_path):
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump({**CONFIG, "compute": CHAIN}, sort_keys=False))
    return path


def sweep(cli, path, key: str = "sf-1", *more: str) -> tuple[int, dict]:
    result = cli("sweep", path, "--idempotency-key", key, "--wait", *more, "-o", "json")
    return result.exit_code, json.loads(result.stdout)


def instance_type(name: str) -> str:
    described = boto_client("sagemaker").describe_training_job(TrainingJobName=name)
    return described["ResourceConfig"]["InstanceType"]


def test_each_trial_fails_over_and_a_rerun_creates_nothing(cli, scarce, chain_sweep):
    scarce.no_capacity = {"ml.g5.xlarge"}
    code, result = sweep(cli, chain_sweep)
    assert code == 0, result
    trials = result["trials"]
    assert Counter(t["status"] for t in trials) == {"Completed": 4}
    for trial in trials:
        (earlier,) = trial["earlier_attempts"]
        assert earlier["ended_because"].startswith("capacity: CapacityError")
        assert instance_type(earlier["job_name"]) == "ml.g5.xlarge"
        assert trial["attempt"] == 1 and instance_type(trial["job_name"]) == "ml.g5.2xlarge"
    assert len(scarce.created_names) == 8 == len(set(scarce.created_names))
    again_code, again = sweep(cli, chain_sweep)
    assert again_code == 0 and [t["job_name"] for t in again["trials"]] == [
        t["job_name"] for t in trials
    ]
    assert len(scarce.created_names) == 8  # the rerun attached to every attempt
    status = json.loads(cli("status", trials[0]["job_name"], "-o", "json").stdout)
    assert [a["ended_because"].split(":")[0] for a in status["attempts"]] == [
        "capacity",
        "Completed",
    ]


def test_the_trials_cost_sums_every_attempt(cli, scarce, chain_sweep, monkeypatch):
    from tests.aws.price_list import priced

    priced(monkeypatch, {("us-east-1", "ml.g5.xlarge"): "1.0"})  # ships none for it
    scarce.no_capacity = {"ml.g5.xlarge"}
    _, first = sweep(cli, chain_sweep, "sf-2")
    names = [t["job_name"] for t in first["trials"]]
    names += [t["earlier_attempts"][0]["job_name"] for t in first["trials"]]
    for name in names:
        training_job(name).billable_time_in_seconds = 3600
    _, again = sweep(cli, chain_sweep, "sf-2")
    small, large = prices.hourly_price("ml.g5.xlarge"), prices.hourly_price("ml.g5.2xlarge")
    assert small is not None and large is not None
    counts = [t["parameters"]["compute.instance_count"] for t in again["trials"]]
    expected = sum(round(small * n, 2) + round(large * n, 2) for n in counts)
    assert again["cost_usd"] == round(expected, 2)


def test_a_quota_that_can_never_hold_a_trial_moves_it_on_before_any_create(
    cli, scarce, chain_sweep
):
    scarce.quotas["ml.g5.xlarge for training job usage"] = 0
    code, result = sweep(cli, chain_sweep, "sf-3")
    assert code == 0, result
    for trial in result["trials"]:
        (earlier,) = trial["earlier_attempts"]
        assert earlier["job_name"] is None and earlier["ended_because"].startswith("quota:")
    assert {instance_type(name) for name in scarce.created_names} == {"ml.g5.2xlarge"}
    assert scarce.faults["sagemaker:CreateTrainingJob"] == 0


def test_a_trials_code_failure_does_not_fail_over(cli, scarce, chain_sweep):
    scarce.failing_code = {"ml.g5.xlarge"}
    code, result = sweep(cli, chain_sweep, "sf-4")
    assert code == 1
    assert all(t["status"] == "Failed" and "earlier_attempts" not in t for t in result["trials"])
    assert len(scarce.created_names) == 4


def test_two_concurrent_reruns_walk_each_trials_chain_once(scarce, chain_sweep):
    scarce.no_capacity = {"ml.g5.xlarge"}
    outputs = twice_at_once("sweep", str(chain_sweep), "--wait", "--idempotency-key", "sf-5")
    names = [[t["job_name"] for t in out["trials"]] for out in outputs]
    assert names[0] == names[1]
    assert len(scarce.created_names) == 8 == len(set(scarce.created_names))

"""The job's real cost after it ends: billable seconds × the dated price table, with managed
spot's saving, shown by `status`, `wait` and `submit --wait` (moto's server describes the job)."""

from __future__ import annotations

import json

import pytest

from sagelaunch.catalog import prices
from tests.aws.conftest import submitted, training_job
from tests.aws.price_list import priced

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def _prices(monkeypatch):
    """Prices of the test's own: sagelaunch ships none for these types in us-east-1."""
    priced(
        monkeypatch,
        {("us-east-1", "ml.p4d.24xlarge"): "32.0", ("us-east-1", "ml.g5.xlarge"): "1.0"},
    )


@pytest.fixture
def billed_job(cli, moto, plan_copy) -> str:
    """A p4d × 2 spot job that trained 3600 s and was billed 1800 s (moto bills nothing itself)."""
    name = submitted(cli("submit", plan_copy, "-o", "json"))["job_name"]
    stored = training_job(name)
    stored.enable_managed_spot_training = True
    stored.training_time_in_seconds = 3600
    stored.billable_time_in_seconds = 1800
    return name


def test_status_shows_what_the_job_cost(cli, billed_job):
    hourly = prices.hourly_price("ml.p4d.24xlarge")
    assert hourly is not None
    cost = json.loads(cli("status", billed_job, "-o", "json").stdout)["cost"]
    assert cost["billable_seconds"] == 1800 and cost["training_seconds"] == 3600
    assert cost["usd"] == round(hourly * 2 * 1800 / 3600, 2)
    assert cost["spot_savings_usd"] == round(hourly * 2 * 1800 / 3600, 2)
    assert cost["prices_as_of"] == prices.price("ml.p4d.24xlarge", "us-east-1").as_of


def test_wait_prints_the_cost(cli, billed_job):
    result = cli("wait", billed_job)
    assert result.exit_code == 0, result.output
    assert "cost  $" in result.output and "1,800 billable s; spot saved $" in result.output
    as_json = json.loads(cli("wait", billed_job, "-o", "json").stdout)
    assert as_json["cost"]["billable_seconds"] == 1800


def test_a_job_not_yet_billed_has_no_cost(cli, moto, plan_copy):
    name = submitted(cli("submit", plan_copy, "-o", "json"))["job_name"]
    assert json.loads(cli("status", name, "-o", "json").stdout)["cost"] is None


def test_a_sweep_shows_each_trials_cost_and_the_sum(cli, moto, tmp_path):
    import yaml

    from tests.aws.test_sweep import CONFIG

    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump({**CONFIG, "sweep": {**CONFIG["sweep"], "max_parallel": 4}}))
    first = json.loads(cli("sweep", path, "--idempotency-key", "c1", "-o", "json").stdout)
    for trial in first["trials"]:
        training_job(trial["job_name"]).billable_time_in_seconds = 3600
    again = cli("sweep", path, "--idempotency-key", "c1", "-o", "json")
    hourly = prices.hourly_price("ml.g5.xlarge")
    assert hourly is not None
    costs = {
        t["parameters"]["compute.instance_count"]: t["cost_usd"]
        for t in json.loads(again.stdout)["trials"]
    }
    assert costs == {1: round(hourly, 2), 2: round(2 * hourly, 2)}
    table = cli("sweep", path, "--idempotency-key", "c1", "--wait").stdout
    assert f"cost so far ${2 * round(hourly, 2) + 2 * round(2 * hourly, 2):,.2f}" in table

"""The price parser (catalog/prices.py) on GetProducts answers in the API's shape, the shipped
snapshot it reads the same way (every price with its source and date), and the day-long cache
of the API's answers. No AWS, no boto3."""

from __future__ import annotations

import json
import re

import pytest

from sagelaunch.catalog import prices
from tests.aws.price_list import product

TYPE = "ml.g5.2xlarge"


def listed(*products: dict) -> list[str]:
    return [json.dumps(p) for p in products]  # the API's PriceList: JSON strings


def test_parse_takes_the_regions_on_demand_training_price_only():
    answer = listed(
        product(TYPE, "0.9", use="Spot-Train", component="SpotTraining"),
        product(TYPE, "9.99", use="Host", component="Hosting"),
        product(TYPE, "3.0", region="eu-west-1"),
        product(TYPE, "0.0"),  # a placeholder row, not a price
        product(TYPE, "2.0"),
    )
    assert prices.parse([*answer, "not json", "[]"], "us-east-1") == {TYPE: (2.0, "2026-11-01")}
    assert prices.parse(answer, "eu-west-1") == {TYPE: (3.0, "2026-11-01")}


def test_parse_keeps_the_latest_effective_term():
    older = product(TYPE, "1.0", effective="2025-01-01T00:00:00Z")
    newer = product(TYPE, "2.0", effective="2026-01-01T00:00:00Z")
    assert prices.parse(listed(newer, older), "us-east-1") == {TYPE: (2.0, "2026-01-01")}


def test_every_snapshot_price_has_its_source_and_date_and_reads_as_an_api_answer():
    entries = prices.snapshot_entries()
    assert entries, "the snapshot holds the prices it can cite"
    per_region: dict[str, int] = {}
    for entry in entries:
        assert entry["source"] and entry["detail"]
        assert re.fullmatch(r"https://\S+", entry["url"]), entry["url"]
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", entry["as_of"]), entry["as_of"]
        assert isinstance(entry["product"], str)  # a PriceList entry: a JSON string
        region = json.loads(entry["product"])["product"]["attributes"]["regionCode"]
        [(instance_type, (usd, _))] = prices.parse([entry["product"]], region).items()
        assert usd > 0 and instance_type.startswith("ml.")
        per_region[region] = per_region.get(region, 0) + 1
    for region, count in per_region.items():
        found = prices.snapshot(region)
        assert len(found) == count
        for price in found.values():
            assert price.describe().startswith(f"sagelaunch's snapshot, as of {price.as_of}: ")
            assert "<https://" in price.source


def test_the_snapshot_holds_a_region_s_prices_only():
    assert prices.hourly_price(TYPE, "us-east-1") == 1.515
    assert prices.hourly_price("ml.g5.xlarge", "eu-west-1") == 1.57
    assert prices.hourly_price(TYPE, "ap-south-1") is None
    assert prices.unknown_reason(TYPE, "ap-south-1") == (
        f"no public price for {TYPE} in ap-south-1 in sagelaunch's snapshot; with AWS "
        "credentials, plan asks the AWS Price List API"
    )


def test_dropped_figures_stay_unknown_not_guessed():
    """The old hand-copied figures had no source from AWS: unknown, with why."""
    for instance_type in ("ml.p4d.24xlarge", "ml.p5.48xlarge", "ml.trn1.32xlarge"):
        assert prices.price(instance_type, "us-east-1") is None
    assert prices.unknown_reasons(["ml.p4d.24xlarge", "ml.p5.48xlarge"], "us-east-1").startswith(
        "no public price for ml.p4d.24xlarge, ml.p5.48xlarge in us-east-1"
    )


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SAGELAUNCH_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_an_answer_is_kept_a_day_per_region_and_type(cache):
    prices.store("us-east-1", {TYPE: listed(product(TYPE, "2.0"))}, now=1000.0)
    assert prices.cache_file(TYPE, "us-east-1") == cache / "prices" / "us-east-1" / f"{TYPE}.json"
    assert prices.cached(TYPE, "us-east-1", now=1000.0 + prices.FRESH_S) is not None
    assert prices.cached(TYPE, "us-east-1", now=1001.0 + prices.FRESH_S) is None  # a day old
    assert prices.cached(TYPE, "eu-west-1", now=1000.0) is None
    assert prices.cached("ml.g5.xlarge", "us-east-1", now=1000.0) is None


def test_a_broken_cache_file_is_no_answer(cache):
    path = prices.cache_file(TYPE, "us-east-1")
    path.parent.mkdir(parents=True)
    for text in ("{", "[]", json.dumps({"fetched_s": "x", "price_list": []})):
        path.write_text(text)
        assert prices.cached(TYPE, "us-east-1") is None
    assert prices.hourly_price(TYPE, "us-east-1") == 1.515  # the snapshot's


def test_a_fresh_answer_says_its_source_and_age(cache):
    prices.store("us-east-1", {TYPE: listed(product(TYPE, "2.0"))})
    found = prices.price(TYPE, "us-east-1")
    assert found is not None and found.from_api
    assert found.describe(now=found.fetched_s + 3 * 3600) == (
        "AWS Price List API, effective 2026-11-01, asked 3 h ago"
    )


def test_reading_prices_imports_no_aws_sdk():
    """validate and --help never load botocore: the price modules they import stay pure."""
    import subprocess
    import sys

    code = (
        "import sys; import sagelaunch.catalog.prices, sagelaunch.plan.cost, "
        "sagelaunch.services.prices; "
        "sys.exit(sorted(m for m in ('boto3', 'botocore') if m in sys.modules) or 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_an_ended_job_is_priced_in_its_region_or_says_why_not():
    from sagelaunch.commands.job_view import cost_line
    from sagelaunch.plan.cost import job_cost

    def ended(region: str, instance_type: str) -> dict:
        return {
            "BillableTimeInSeconds": 3600,
            "TrainingJobArn": f"arn:aws:sagemaker:{region}:111122223333:training-job/j",
            "ResourceConfig": {"InstanceType": instance_type, "InstanceCount": 2},
        }

    billed = job_cost(ended("eu-west-1", "ml.g5.xlarge"))
    assert billed is not None and billed["usd"] == 3.14 and billed["prices_as_of"] == "2023-12-31"
    assert str(billed["price_source"]).startswith("sagelaunch's snapshot, as of 2023-12-31")
    assert cost_line(billed) == "$3.14 (3,600 billable s) at eu-west-1 prices of 2023-12-31"
    unpriced = job_cost(ended("us-east-1", "ml.p4d.24xlarge"))
    assert unpriced is not None and unpriced["usd"] is None
    assert cost_line(unpriced) == (
        "3,600 billable s × unknown price (no public price for ml.p4d.24xlarge in us-east-1 in "
        "sagelaunch's snapshot; with AWS credentials, plan asks the AWS Price List API)"
    )

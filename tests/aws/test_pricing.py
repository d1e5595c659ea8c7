"""Prices from the AWS Price List API: a loopback GetProducts (tests/aws/price_list.py: the
API's JSON 1.1 protocol and answer shape, PriceList as JSON strings paged with NextToken; moto
does not serve the API) is asked with fake credentials, its answer is parsed and kept a day,
and an API that throttles, denies or refuses the connection leaves the shipped snapshot in use
with one warning. Nothing here leaves 127.0.0.1."""

from __future__ import annotations

import json
import socket

import pytest

from sagelaunch.aws import session
from sagelaunch.catalog import prices
from sagelaunch.services.prices import refresh_if_possible
from tests.aws.price_list import PriceList

REGION = "us-east-1"
TYPE = "ml.g5.2xlarge"  # the base config's (tests/conftest.py BASE), 1.515 in the snapshot
SNAPSHOT_ONLY = "ml.p3.2xlarge"  # in the snapshot (3.825); the stand-in API lists no price


@pytest.fixture
def closed():
    """A loopback port bound and never listening: a connection to it is refused at once."""
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    yield f"http://127.0.0.1:{held.getsockname()[1]}"
    held.close()


@pytest.fixture
def price_list(monkeypatch, tmp_path, closed):
    """The stand-in API for us-east-1 (g5.2xlarge at $2.0), fake credentials, a price cache of
    the test's own, and every other AWS endpoint refusing connections."""
    server = PriceList({(REGION, TYPE): "2.0"})
    for var in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_RETRY_MODE", "AWS_MAX_ATTEMPTS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_ENDPOINT_URL", closed)
    monkeypatch.setenv("AWS_ENDPOINT_URL_PRICING", server.url)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent/aws-config")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/aws-credentials")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    # Prices kept in the test's own folder; plans stay in the session's shared cache (quick).
    monkeypatch.setattr(prices, "cache_file", lambda t, r: tmp_path / "prices" / r / f"{t}.json")
    # One try: a throttled answer is not waited out (botocore's backoff), the test stays quick.
    monkeypatch.setattr(session, "ADVISORY_MAX_ATTEMPTS", 1)
    yield server
    server.stop()


def test_the_answer_is_parsed_used_and_kept_a_day(price_list):
    assert refresh_if_possible([TYPE], REGION) is None
    [first, second] = price_list.requests  # the spot product, then (NextToken) the training one
    assert first["Filters"] == [
        {"Type": "TERM_MATCH", "Field": "regionCode", "Value": REGION},
        {"Type": "CONTAINS", "Field": "usagetype", "Value": f"Train:{TYPE}"},
    ]
    assert second["NextToken"] == "1"
    found = prices.price(TYPE, REGION)
    assert found is not None and (found.usd_per_hour, found.as_of) == (2.0, "2026-11-01")
    assert found.describe() == "AWS Price List API, effective 2026-11-01, asked 0 min ago"
    # Kept: asked again within the day, the API hears nothing.
    assert refresh_if_possible([TYPE], REGION) is None and len(price_list.requests) == 2
    # A day later the answer is stale: the snapshot's price shows, and plan asks again.
    kept = prices.cache_file(TYPE, REGION)
    content = json.loads(kept.read_text())
    kept.write_text(json.dumps({**content, "fetched_s": content["fetched_s"] - 86401}))
    assert prices.hourly_price(TYPE, REGION) == 1.515 and prices.missing([TYPE], REGION) == [TYPE]
    assert refresh_if_possible([TYPE], REGION) is None and len(price_list.requests) == 4
    assert prices.hourly_price(TYPE, REGION) == 2.0


def test_the_api_has_the_last_word_over_the_snapshot(price_list):
    assert prices.hourly_price(SNAPSHOT_ONLY, REGION) == 3.825
    assert refresh_if_possible([SNAPSHOT_ONLY], REGION) is None
    assert prices.price(SNAPSHOT_ONLY, REGION) is None
    assert prices.unknown_reason(SNAPSHOT_ONLY, REGION).startswith(
        f"the AWS Price List API lists no on-demand training price for {SNAPSHOT_ONLY} in "
        f"{REGION} (asked 0 min ago)"
    )


@pytest.mark.parametrize("failure", ["ThrottlingException", "AccessDeniedException", "refused"])
def test_an_unanswered_api_leaves_the_snapshot_with_one_warning(
    price_list, monkeypatch, closed, failure
):
    if failure == "refused":
        monkeypatch.setenv("AWS_ENDPOINT_URL_PRICING", closed)
    else:
        price_list.error = (400, failure)
    warning = refresh_if_possible([TYPE, SNAPSHOT_ONLY], REGION)  # one warning for both types
    assert warning is not None and warning.startswith("prices not asked of the AWS Price List API")
    assert warning.endswith("the shipped snapshot's are shown")
    assert prices.missing([TYPE, SNAPSHOT_ONLY], REGION) == [TYPE, SNAPSHOT_ONLY]  # none kept
    assert prices.hourly_price(TYPE, REGION) == 1.515
    assert prices.price(TYPE, REGION).describe().startswith("sagelaunch's snapshot, as of")


def test_an_endpoint_that_does_not_serve_the_api_says_so(price_list):
    price_list.error = (400, "UnknownOperationException")
    warning = refresh_if_possible([TYPE], REGION)
    assert warning is not None and "not served by this endpoint" in warning


def test_without_credentials_nothing_is_asked(price_list, monkeypatch):
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    assert refresh_if_possible([TYPE], REGION) is None and price_list.requests == []
    assert prices.hourly_price(TYPE, REGION) == 1.515


def test_plan_shows_the_api_price_then_the_snapshot_with_one_warning(price_list, cli, make_config):
    config = make_config()
    price_list.error = (400, "ThrottlingException")
    throttled = cli("plan", config, "--no-check-quota", "-o", "json")
    assert throttled.exit_code == 0, throttled.output
    cost = json.loads(throttled.stdout)["cost"]
    assert cost["hourly_usd"] == 1.515 and cost["prices_as_of"] == "2022-04-14"
    assert cost["price_source"].startswith("sagelaunch's snapshot, as of 2022-04-14: ")
    warned = [line for line in throttled.stderr.splitlines() if "Price List API" in line]
    assert len(warned) == 1 and warned[0].startswith("warning: prices not asked"), throttled.stderr
    price_list.error = None
    shown = cli("plan", config, "--no-check-quota")
    assert shown.exit_code == 0, shown.output
    assert "$2.0/h × 1" in shown.stdout and "(us-east-1 prices as of 2026-11-01)" in shown.stdout
    assert "price: AWS Price List API, effective 2026-11-01, asked 0 min ago" in shown.stdout
    assert "Price List API" not in shown.stderr

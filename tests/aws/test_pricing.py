"""Prices from the AWS Price List API: a loopback server answers `GetProducts` in the API's own
shape (JSON 1.1, X-Amz-Target AWSPriceListService.GetProducts; PriceList as JSON strings, paged
with NextToken; moto does not serve the API), `plan` reads its answer, keeps it a day, and falls
back to the shipped snapshot with one warning when the API is throttled, denied or unreachable."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from sagelaunch.catalog import facts, prices

TYPE = "ml.g5.2xlarge"  # the base config's (tests/conftest.py BASE)


def product(instance_type: str, usd: str, usage: str = "USE1-Train", region: str = "us-east-1"):
    """One PriceList entry as the API writes it: a JSON string."""
    return json.dumps(
        {
            "product": {
                "productFamily": "ML Instance",
                "attributes": {
                    "regionCode": region,
                    "servicecode": "AmazonSageMaker",
                    "usagetype": f"{usage}:{instance_type}",
                    "instanceType": instance_type,
                    "component": "Training",
                },
                "sku": "SKU1",
            },
            "serviceCode": "AmazonSageMaker",
            "terms": {
                "OnDemand": {
                    "SKU1.JRTCKXETXF": {
                        "effectiveDate": "2026-11-01T00:00:00Z",
                        "priceDimensions": {
                            "SKU1.JRTCKXETXF.6YS6EN2CT7": {
                                "unit": "Hrs",
                                "pricePerUnit": {"USD": usd},
                            }
                        },
                    }
                }
            },
        }
    )


class PriceList(ThreadingHTTPServer):
    """GetProducts on 127.0.0.1: two pages per type (a hosting product on the first, the
    training one on the second), or the error a test sets."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict] = []
        self.error: str | None = None  # e.g. "ThrottlingException"
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: PriceList

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        assert self.headers["X-Amz-Target"] == "AWSPriceListService.GetProducts"
        self.server.requests.append(body)
        if self.server.error:
            self._answer(400, {"__type": self.server.error, "message": "no"})
            return
        wanted = {f["Field"]: f["Value"] for f in body["Filters"]}
        assert body["ServiceCode"] == "AmazonSageMaker" and wanted["regionCode"] == "us-east-1"
        name = wanted["instanceType"]
        if "NextToken" not in body:
            page = {"PriceList": [product(name, "9.99", usage="USE1-Host")], "NextToken": "2"}
        else:
            page = {"PriceList": [product(name, "2.0")] if name == TYPE else []}
        self._answer(200, {"FormatVersion": "aws_v1", **page})

    def _answer(self, status: int, data: dict) -> None:
        raw = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/x-amz-json-1.1")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def price_list(monkeypatch, tmp_path):
    server = PriceList()
    dead = socket.socket()
    dead.bind(("127.0.0.1", 0))  # bound, never listening: every other AWS call is refused
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{dead.getsockname()[1]}")
    monkeypatch.setenv("AWS_ENDPOINT_URL_PRICING", server.url)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent/aws-config")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/aws-credentials")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.setenv("SAGELAUNCH_CACHE_DIR", str(tmp_path / "cache"))
    yield server
    server.shutdown()
    dead.close()


def planned_cost(cli, config) -> tuple[dict, str]:
    shown = cli("plan", config, "--no-check-quota", "-o", "json")
    assert shown.exit_code == 0, shown.output
    return json.loads(shown.stdout)["cost"], shown.stderr


def test_the_api_answer_is_the_price_and_is_kept_a_day(price_list, cli, make_config):
    config = make_config()
    cost, _ = planned_cost(cli, config)
    assert cost["hourly_usd"] == 2.0 and cost["prices_as_of"] == "2026-11-01"
    assert cost["price_source"].startswith("AWS Price List API, effective 2026-11-01, asked")
    assert len(price_list.requests) == 2  # two pages
    planned_cost(cli, config)
    assert len(price_list.requests) == 2  # the day-old rule: kept, not asked again
    # A day later the answer is asked again.
    kept = prices.cache_file("us-east-1")
    content = json.loads(kept.read_text())
    kept.write_text(json.dumps({**content, "fetched_s": content["fetched_s"] - 86401}))
    planned_cost(cli, config)
    assert len(price_list.requests) == 4


def test_a_type_the_api_does_not_list_says_so(price_list, cli, make_config):
    config = make_config({"compute": {"instance_type": "ml.p5.48xlarge"}})
    cost, _ = planned_cost(cli, config)
    assert cost["hourly_usd"] is None and cost["max_usd"] is None
    assert "the AWS Price List API lists no on-demand training price for ml.p5" in cost["note"]


@pytest.mark.parametrize("error", ["ThrottlingException", "AccessDeniedException", "refused"])
def test_an_unanswered_api_leaves_the_snapshot_with_one_warning(
    price_list, cli, make_config, monkeypatch, error
):
    if error == "refused":
        monkeypatch.setenv("AWS_ENDPOINT_URL_PRICING", "http://127.0.0.1:9")  # discard: closed
    else:
        price_list.error = error
    cost, stderr = planned_cost(cli, make_config())
    assert cost["hourly_usd"] == prices.hourly_price(TYPE, "us-east-1") == 1.515  # the snapshot's
    assert cost["price_source"].startswith("third-party SageMaker price tables")
    warned = [line for line in stderr.splitlines() if "Price List API" in line]
    assert len(warned) == 1 and warned[0].startswith("warning: prices not asked"), stderr
    # --strict is about the config: an advisory look-up that did not answer does not fail it.
    strict = cli("plan", make_config(), "--no-check-quota", "--strict", "-o", "json")
    assert strict.exit_code == 0, strict.output


def test_the_snapshot_is_read_as_an_api_answer_with_its_source_and_date():
    shipped = facts.load("prices")["snapshot"]
    assert shipped, "the snapshot holds the prices it can cite"
    for entry in shipped:
        assert entry["source"] and entry["as_of"]
        json.loads(entry["product"])  # a PriceList entry: a JSON string
    found = prices.snapshot("us-east-1")
    assert len(found) == len(shipped) and found["ml.p4d.24xlarge"].usd_per_hour > 0
    assert prices.snapshot("eu-west-1") == {}  # us-east-1's figures are not another region's
    assert "no public price for ml.p4d.24xlarge in eu-west-1" in prices.unknown_reason(
        "ml.p4d.24xlarge", "eu-west-1"
    )


def test_parse_takes_training_on_demand_only():
    listed = [
        product(TYPE, "2.0"),
        product(TYPE, "9.99", usage="USE1-Host"),  # hosting
        product(TYPE, "0.5", usage="USE1-Spot-Train"),  # not on-demand
        product(TYPE, "3.0", region="eu-west-1"),  # another region
    ]
    assert prices.parse(listed, "us-east-1") == {TYPE: (2.0, "2026-11-01")}

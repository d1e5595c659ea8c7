"""A stand-in for the AWS Price List API on loopback (moto does not serve it): `GetProducts` over
the JSON 1.1 protocol (X-Amz-Target AWSPriceListService.GetProducts), answering in the API's own
shape: `PriceList` as JSON strings, one product per page with a NextToken, the filters applied to
the products it holds (TERM_MATCH and CONTAINS), and AWS's error bodies when a test sets one.

Usage: ``server = PriceList({("us-east-1", "ml.g5.2xlarge"): "2.0"})``, then point botocore at
``server.url`` with AWS_ENDPOINT_URL_PRICING; ``server.requests`` holds each request's body.
"""

from __future__ import annotations

import json
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TARGET = "AWSPriceListService.GetProducts"
EFFECTIVE = "2026-11-01T00:00:00Z"
PREFIX = {"us-east-1": "USE1", "us-west-2": "USW2", "eu-west-1": "EU"}


def product(
    instance_type: str,
    usd: str,
    region: str = "us-east-1",
    use: str = "Train",
    component: str = "Training",
    effective: str = EFFECTIVE,
) -> dict[str, Any]:
    """One SageMaker product as the API lists it (before it is written as a JSON string)."""
    sku = f"SKU{zlib.crc32(f'{region} {use} {instance_type}'.encode()):010d}"
    return {
        "product": {
            "productFamily": "ML Instance",
            "attributes": {
                "servicecode": "AmazonSageMaker",
                "regionCode": region,
                "usagetype": f"{PREFIX.get(region, 'XX1')}-{use}:{instance_type}",
                "instanceType": f"{instance_type}-{component}",
                "instanceName": instance_type,
                "platoinstancetype": component,
            },
            "sku": sku,
        },
        "serviceCode": "AmazonSageMaker",
        "terms": {
            "OnDemand": {
                f"{sku}.JRTCKXETXF": {
                    "offerTermCode": "JRTCKXETXF",
                    "effectiveDate": effective,
                    "priceDimensions": {
                        f"{sku}.JRTCKXETXF.6YS6EN2CT7": {
                            "unit": "Hrs",
                            "pricePerUnit": {"USD": usd},
                            "description": f"${usd} per {component} {instance_type} hour",
                        }
                    },
                }
            }
        },
    }


class PriceList(ThreadingHTTPServer):
    """GetProducts on 127.0.0.1 (port 0). For each priced (region, type) it holds the training
    product and, before it, the type's spot-training product (its usage type contains
    ``Train:<type>`` too, so the answer takes two pages), plus a hosting product that the
    usage-type filter leaves out."""

    daemon_threads = True

    def __init__(self, prices: dict[tuple[str, str], str]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.products: list[dict[str, Any]] = []
        for (region, instance_type), usd in prices.items():
            self.products += [
                product(instance_type, "0.9", region, use="Spot-Train", component="SpotTraining"),
                product(instance_type, usd, region),
                product(instance_type, "9.99", region, use="Host", component="Hosting"),
            ]
        self.requests: list[dict[str, Any]] = []
        self.error: tuple[int, str] | None = None  # e.g. (400, "ThrottlingException")
        self._thread = threading.Thread(target=self.serve_forever, args=(0.01,), daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def matching(self, filters: list[dict[str, str]]) -> list[dict[str, Any]]:
        return [p for p in self.products if all(_matches(p, f) for f in filters)]

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


def _matches(item: dict[str, Any], wanted: dict[str, str]) -> bool:
    value = str(item["product"]["attributes"].get(wanted["Field"], ""))
    if wanted["Type"] == "TERM_MATCH":
        return value.lower() == wanted["Value"].lower()
    if wanted["Type"] == "CONTAINS":
        return wanted["Value"] in value
    raise AssertionError(f"filter type this stand-in does not serve: {wanted}")


class _Handler(BaseHTTPRequestHandler):
    server: PriceList

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.headers.get("X-Amz-Target") != TARGET:
            self._answer(400, {"__type": "UnknownOperationException"})
            return
        self.server.requests.append(body)
        if self.server.error:
            status, code = self.server.error
            self._answer(status, {"__type": code, "message": f"{code} (a test's)"})
            return
        assert body["ServiceCode"] == "AmazonSageMaker", body
        found = self.server.matching(body.get("Filters", []))
        start = int(body.get("NextToken") or 0)
        page: dict[str, Any] = {
            "FormatVersion": "aws_v1",
            "PriceList": [json.dumps(item) for item in found[start : start + 1]],
        }
        if start + 1 < len(found):
            page["NextToken"] = str(start + 1)
        self._answer(200, page)

    def _answer(self, status: int, data: dict[str, Any]) -> None:
        raw = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/x-amz-json-1.1")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args: object) -> None:
        pass


def priced(monkeypatch: Any, figures: dict[tuple[str, str], str]) -> None:
    """Give a test prices of its own: ``figures`` ({(region, type): "USD per hour"}) are read
    as snapshot entries (source "a test's price") on top of the shipped ones, for the test's
    duration, in this process (the CLI runner's too). For tests of cost arithmetic on types
    whose price sagelaunch does not ship (it ships only prices it can cite)."""
    from sagelaunch.catalog import prices

    shipped = prices.snapshot_entries()
    mine = [
        {
            "source": "a test's price",
            "detail": "tests/aws/price_list.py priced()",
            "url": "https://example.invalid/test",
            "as_of": "2026-01-01",
            "product": json.dumps(product(instance_type, usd, region)),
        }
        for (region, instance_type), usd in figures.items()
    ]
    monkeypatch.setattr(prices, "snapshot_entries", lambda: [*shipped, *mine])

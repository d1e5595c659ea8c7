"""The fault proxy, answering Service Quotas' ListServiceQuotas itself: moto's server does not
implement it (its servicequotas backend serves only the AWS default quotas and
GetServiceQuota), so the account's applied quotas are answered here, in the API's own shape."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler

from tests.aws.proxy import FaultProxy, _operation, _read_body

LIST_QUOTAS = "servicequotas:ListServiceQuotas"


class QuotaProxy(FaultProxy):
    """A FaultProxy whose account has the applied SageMaker quotas in ``quotas`` (name -> value)."""

    def __init__(self, upstream: str, quotas: dict[str, int]) -> None:
        self.quotas = quotas
        super().__init__(upstream)

    def quota_page(self) -> bytes:
        listed = [
            {
                "ServiceCode": "sagemaker",
                "ServiceName": "Amazon SageMaker",
                "QuotaCode": f"L-{index:08X}",
                "QuotaName": name,
                "Value": float(value),
                "Unit": "None",
                "Adjustable": True,
                "GlobalQuota": False,
            }
            for index, (name, value) in enumerate(sorted(self.quotas.items()))
        ]
        return json.dumps({"Quotas": listed}).encode()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        proxy = self
        base = super()._handler_class()

        class Handler(base):  # type: ignore[valid-type, misc]
            def _any(self) -> None:
                if _operation(self.command, self.path, self.headers) != LIST_QUOTAS:
                    super()._any()
                    return
                _read_body(self)
                with proxy.lock:
                    proxy.requests[LIST_QUOTAS] += 1
                body = proxy.quota_page()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-amz-json-1.1")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = _any

        return Handler

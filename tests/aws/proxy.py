"""A loopback HTTP proxy in front of moto that counts requests and can inject AWS faults.

Each request is classified by service and operation (SigV4 credential scope, `X-Amz-Target`,
or S3 method/path), counted, and — as `fault_schedule` says — answered with the error a
throttled AWS endpoint sends instead of being forwarded: S3 `503 SlowDown` (XML), JSON-protocol
services a `400 ThrottlingException` or a `503 ServiceUnavailable`.

Faults follow a schedule, never a random draw: botocore tags every attempt of one API call with
the same `amz-sdk-invocation-id` and its attempt number (`amz-sdk-request: attempt=N`). The n-th
call of an operation has its first ``fault_schedule[n % len]`` attempts refused. However threads
interleave, no call gets more faults than the schedule's largest entry — a test whose entries
stay below the retry budget can never exhaust it — and the number of faults injected is exactly
the schedule summed over each operation's calls (`expected_faults`).
"""

from __future__ import annotations

import http.client
import json
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

_SCOPE = re.compile(r"Credential=[^/]+/\d{8}/[^/]+/([^/]+)/aws4_request")
_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "proxy-connection", "upgrade"}


class FaultProxy:
    """Forward to ``upstream`` (``http://host:port``); count; fault calls by ``fault_schedule``."""

    def __init__(self, upstream: str, fault_schedule: tuple[int, ...] = (0,)) -> None:
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.fault_schedule = fault_schedule  # faults for the 1st, 2nd, ... call (cycled)
        self._calls: dict[str, int] = {}  # invocation id -> faults planned for that call
        self.calls: Counter[str] = Counter()  # "service:Operation" -> distinct API calls
        self.lock = threading.Lock()
        self.requests: Counter[str] = Counter()  # "service:Operation" -> requests received
        self.faults: Counter[str] = Counter()  # "service:Operation" -> answered with a fault
        self.forwarded: Counter[str] = Counter()  # "service:Operation" -> reached moto
        self.upstream_errors: Counter[str] = Counter()  # "Operation status": moto's own 5xx
        self.s3_bytes_in = 0  # request body bytes of forwarded S3 writes
        self.first_request_at: float | None = None  # time.perf_counter() of the first AWS request
        self.created_names: list[str] = []  # TrainingJobName of every forwarded create
        # Scripted answers, in order, for the next requests of an operation (e.g. the first
        # creates refused with ResourceLimitExceeded): operation -> [(status, code, message)].
        self.scripted: dict[str, list[tuple[int, str, str]]] = {}
        # moto lets a second CreateTrainingJob of one name replace the first; AWS refuses it
        # (ResourceInUse). With this set the proxy refuses it as AWS does.
        self.unique_creates = False
        self._claimed: set[str] = set()
        # Answers lost on the wire, in order, for the next requests of an operation: each is
        # forwarded (moto acts on it) and then "close": the connection is closed without an
        # answer (botocore: ConnectionClosedError), or "stall": no answer until the proxy stops
        # (the client's read timeout fires first: ReadTimeoutError). operation -> [mode].
        self.lost_answers: dict[str, list[str]] = {}
        self.lost: Counter[str] = Counter()  # "service:Operation" -> answers dropped
        self._released = threading.Event()  # set by stop(): stalled answers give up
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FaultProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._released.set()
        self._server.shutdown()
        self._server.server_close()

    def reset(self) -> None:
        with self.lock:
            for counter in (self.requests, self.calls, self.faults, self.forwarded, self.lost):
                counter.clear()
            self.upstream_errors.clear()
            self.s3_bytes_in = 0
            self.first_request_at = None
            self.created_names.clear()
            self._claimed.clear()
            self._calls.clear()
            self.lost_answers.clear()

    def total(self) -> int:
        return sum(self.requests.values())

    def expected_faults(self, operation: str) -> int:
        """The faults the schedule plans for the calls of ``operation`` made so far."""
        schedule = self.fault_schedule
        return sum(schedule[n % len(schedule)] for n in range(self.calls[operation]))

    def script(
        self, operation: str, code: str, message: str, times: int = 1, status: int = 400
    ) -> None:
        """Answer the next ``times`` requests of ``operation`` with this AWS error."""
        with self.lock:
            self.scripted.setdefault(operation, []).extend([(status, code, message)] * times)

    def lose_answers(self, operation: str, *modes: str) -> None:
        """Forward the next ``len(modes)`` requests of ``operation``, then drop each answer:
        "close" the connection, or "stall" without answering (see ``lost_answers``)."""
        assert set(modes) <= {"close", "stall"}, modes
        with self.lock:
            self.lost_answers.setdefault(operation, []).extend(modes)

    def _lost_answer(self, operation: str) -> str | None:
        with self.lock:
            queue = self.lost_answers.get(operation)
            mode = queue.pop(0) if queue else None
            if mode is not None:
                self.lost[operation] += 1
            return mode

    def _scripted_answer(self, operation: str, body: bytes) -> tuple[int, str, str] | None:
        """A scripted error, or AWS's refusal of a second create of one name; counted."""
        with self.lock:
            queue = self.scripted.get(operation)
            answer = queue.pop(0) if queue else None
            if answer is None and self.unique_creates and operation.endswith("CreateTrainingJob"):
                name = json.loads(body)["TrainingJobName"]
                if name in self._claimed:  # checked and claimed under one lock: no race
                    answer = (400, "ResourceInUse", f"Training job {name} already exists")
                self._claimed.add(name)
            if answer is not None:
                self.requests[operation] += 1
                self.faults[operation] += 1
            return answer

    def _note_arrival(self) -> None:
        with self.lock:
            if self.first_request_at is None:
                self.first_request_at = time.perf_counter()

    def _decide_fault(self, operation: str, headers) -> bool:
        """Whether this attempt is one of its call's scheduled faults; counted."""
        invocation = headers.get("amz-sdk-invocation-id")
        with self.lock:
            self.requests[operation] += 1
            if invocation is None:  # not an SDK call (e.g. an HTTPS tunnel): never faulted
                return False
            if invocation not in self._calls:
                ordinal = self.calls[operation] % len(self.fault_schedule)
                self.calls[operation] += 1
                self._calls[invocation] = self.fault_schedule[ordinal]
            fault = _attempt(headers) <= self._calls[invocation]
            if fault:
                self.faults[operation] += 1
            return fault

    def _record_forward(self, operation: str, body: bytes) -> None:
        with self.lock:
            self.forwarded[operation] += 1
            if operation.startswith("s3:") and operation != "s3:HeadObject":
                self.s3_bytes_in += len(body)
            if operation == "sagemaker:CreateTrainingJob":
                self.created_names.append(json.loads(body)["TrainingJobName"])

    # Hooks for a subclass that stands in for part of a service (tests/aws/plans_proxy.py);
    # each runs after the request is counted and passed the scripted answers and faults.
    def own_answer(self, operation: str, body: bytes) -> tuple[int, bytes] | None:
        """(status, JSON body) to answer instead of forwarding; None: forward to moto."""
        return None

    def outgoing(self, operation: str, body: bytes) -> bytes:
        """The request body moto gets."""
        return body

    def answer_of(self, operation: str, body: bytes, status: int, data: bytes) -> bytes:
        """moto's answer (to the request ``body`` moto got) as the client gets it."""
        return data

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # quiet
                pass

            def _any(self) -> None:
                proxy._note_arrival()
                body = _read_body(self)
                operation = self._operation = _operation(self.command, self.path, self.headers)
                scripted = proxy._scripted_answer(operation, body)
                if scripted is not None:
                    self._json_error(*scripted)
                    return
                if proxy._decide_fault(operation, self.headers):
                    self._fault(operation)
                    return
                own = proxy.own_answer(operation, body)
                if own is not None:  # a subclass's stand-in for the service answers itself
                    self._ok(own[1], own[0])
                    return
                body = proxy.outgoing(operation, body)
                proxy._record_forward(operation, body)
                lost = proxy._lost_answer(operation)
                self._forward(body, answer=lost is None)
                if lost == "stall":  # hold the connection, silent, past any read timeout
                    proxy._released.wait(timeout=60)
                if lost is not None:
                    self.close_connection = True  # and close it: no status line, no body

            do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = _any

            def do_CONNECT(self) -> None:
                """An HTTPS tunnel request (HTTPS_PROXY pointed here): counted, refused — so
                e.g. the SDK's telemetry GET is seen but never leaves the machine."""
                proxy._decide_fault(f"https-tunnel:{self.path.split(':')[0]}", self.headers)
                self.send_response(403)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _forward(self, body: bytes, answer: bool = True) -> None:
                upstream = http.client.HTTPConnection(*proxy.upstream, timeout=30)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
                headers["Content-Length"] = str(len(body))
                upstream.request(self.command, self.path, body=body, headers=headers)
                response = upstream.getresponse()
                data = proxy.answer_of(self._operation, body, response.status, response.read())
                upstream.close()
                if response.status >= 500:
                    with proxy.lock:
                        proxy.upstream_errors[f"{self._operation} {response.status}"] += 1
                if not answer:  # moto acted on the request; its answer never reaches the client
                    return
                self.send_response(response.status)
                for key, value in response.getheaders():
                    if key.lower() not in _HOP_BY_HOP and key.lower() != "content-length":
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            def _ok(self, body: bytes, status: int = 200) -> None:
                """A JSON-protocol answer the proxy writes itself."""
                self.send_response(status)
                self.send_header("Content-Type", "application/x-amz-json-1.1")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _json_error(self, status: int, code: str, message: str) -> None:
                """The error as the service writes it: JSON, or S3's XML (no body for HEAD,
                as S3 answers a HEAD: only the status says what went wrong)."""
                kind = "application/x-amz-json-1.1"
                body = json.dumps({"__type": code, "message": message}).encode()
                if self._operation.startswith("s3:"):
                    kind = "application/xml"
                    body = (
                        f"<?xml version='1.0' encoding='UTF-8'?><Error><Code>{code}</Code>"
                        f"<Message>{message}</Message></Error>"
                    ).encode()
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def _fault(self, operation: str) -> None:
                if operation.startswith("s3:"):
                    status, kind = 503, "application/xml"
                    body = (
                        b"<?xml version='1.0' encoding='UTF-8'?><Error><Code>SlowDown</Code>"
                        b"<Message>Please reduce your request rate.</Message></Error>"
                    )
                elif _attempt(self.headers) % 2:  # both kinds of JSON fault, in turn
                    status, kind = 400, "application/x-amz-json-1.1"
                    body = b'{"__type":"ThrottlingException","message":"Rate exceeded"}'
                else:
                    status, kind = 503, "application/x-amz-json-1.1"
                    body = b'{"__type":"ServiceUnavailable","message":"Service unavailable"}'
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

        return Handler


def _read_body(handler: BaseHTTPRequestHandler) -> bytes:
    if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
        chunks = []
        while True:
            size = int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while handler.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return b"".join(chunks)
            chunks.append(handler.rfile.read(size))
            handler.rfile.readline()
    length = int(handler.headers.get("Content-Length") or 0)
    return handler.rfile.read(length) if length else b""


def _attempt(headers) -> int:
    """The attempt number botocore puts in `amz-sdk-request` (1 for the first try)."""
    match = re.search(r"attempt=(\d+)", headers.get("amz-sdk-request", ""))
    return int(match.group(1)) if match else 1


def _operation(method: str, path: str, headers) -> str:
    match = _SCOPE.search(headers.get("Authorization", ""))
    service = match.group(1) if match else "unsigned"
    target = headers.get("X-Amz-Target")
    if target:
        return f"{service}:{target.rsplit('.', 1)[-1]}"
    if service == "s3":
        segments = [s for s in urlsplit(path).path.split("/") if s]
        noun = "Object" if len(segments) > 1 else "Bucket" if segments else "Buckets"
        verb = {"GET": "Get", "PUT": "Put", "HEAD": "Head", "DELETE": "Delete", "POST": "Post"}
        return f"s3:{verb.get(method, method)}{noun}"
    return f"{service}:{method}"


def serve_list_service_quotas() -> None:
    """moto's Service Quotas backend lacks ListServiceQuotas (its server answers 500, which
    botocore retries); `submit` reads it before every create. This account lists no SageMaker
    quota ("If the applied quota value is not available for a quota, the quota is not
    retrieved", says the API reference): nothing to check against.
    (tests/aws/capacity_proxy.py plays accounts that list some.)"""
    from moto.servicequotas.responses import ServiceQuotasResponse

    def list_service_quotas(self) -> str:
        return json.dumps({"Quotas": []})

    ServiceQuotasResponse.list_service_quotas = list_service_quotas  # type: ignore[attr-defined]

"""A real AWS endpoint for the lifecycle tests: moto's server on loopback, reset per test.

boto3/botocore reach it the way they reach AWS — through `AWS_ENDPOINT_URL` — with fake
credentials; nothing outside 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import json
import logging
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sagelaunch.app import app
from sagelaunch.aws import jobs, tuning
from tests.aws.proxy import FaultProxy, serve_list_service_quotas
from tests.conftest import EXAMPLES

ACCOUNT = "123456789012"  # moto's default account
REGION = "us-east-1"
BUCKET = "sagelaunch-examples"  # output_path of launch_configs/*.yaml
SMDDP = EXAMPLES / "smddp-p4d.yaml"


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory) -> str:
    """XDG_CACHE_HOME for the session: the trimmed SageMaker model is written here, not in ~."""
    return str(tmp_path_factory.mktemp("xdg-cache"))


@pytest.fixture(scope="session")
def moto_url():
    from moto.server import ThreadedMotoServer

    serve_list_service_quotas()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


_CLOSED: list = []


def closed_port() -> int:
    """A loopback port bound and never listening, for the process: a connection to it is refused
    at once (a plain function: the docs harness uses `moto` without this module's fixtures)."""
    import socket

    if not _CLOSED:
        held = socket.socket()
        held.bind(("127.0.0.1", 0))
        _CLOSED.append(held)
    return int(_CLOSED[0].getsockname()[1])


def aws_environment(monkeypatch: pytest.MonkeyPatch, endpoint: str) -> None:
    """Point botocore at ``endpoint`` with fake credentials, shielded from the user's AWS setup."""
    for var in (
        "AWS_PROFILE",
        "AWS_REGION",
        "AWS_SESSION_TOKEN",
        "AWS_RETRY_MODE",
        "AWS_MAX_ATTEMPTS",
        "SAGELAUNCH_IDEMPOTENCY_KEY",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent/aws-config")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/aws-credentials")


@pytest.fixture
def moto(moto_url, model_cache, monkeypatch):
    """A clean moto (all state reset) with the examples' bucket, and the environment pointing
    at it. Returns the endpoint URL."""
    request = urllib.request.Request(f"{moto_url}/moto-api/reset", method="POST")
    urllib.request.urlopen(request, timeout=10).close()
    aws_environment(monkeypatch, moto_url)
    # moto serves no Price List API (its server answers with a page on stdout): `plan` with
    # credentials finds it unreachable and keeps the shipped prices (tests/aws/test_pricing.py).
    monkeypatch.setenv("AWS_ENDPOINT_URL_PRICING", f"http://127.0.0.1:{closed_port()}")
    monkeypatch.setenv("XDG_CACHE_HOME", model_cache)
    # A job's next state is there at once (moto, or a proxy that scripts it): look again after
    # 0.05 s, not after the 5 s a real job's watch waits between looks.
    monkeypatch.setattr(jobs, "POLL_S", 0.05)
    monkeypatch.setattr(tuning, "POLL_S", 0.05)
    boto_client("s3").create_bucket(Bucket=BUCKET)
    return moto_url


@pytest.fixture
def proxy(moto, monkeypatch):
    """A counting proxy in front of moto (no faults unless a test sets `fault_schedule`)."""
    fault_proxy = FaultProxy(moto).start()
    monkeypatch.setenv("AWS_ENDPOINT_URL", fault_proxy.url)
    yield fault_proxy
    fault_proxy.stop()


@pytest.fixture
def scarce(moto, monkeypatch):
    """The scarce-GPU account (tests/aws/capacity_proxy.py) in front of moto: it lists the
    total-instances quota only, until a test adds quotas or takes capacity away."""
    from sagelaunch.aws.quotas import TOTAL_INSTANCES
    from tests.aws.capacity_proxy import CapacityProxy

    capacity_proxy = CapacityProxy(moto, quotas={TOTAL_INSTANCES: 20}).start()
    capacity_proxy.unique_creates = True  # a second create of one name is refused, as AWS does
    monkeypatch.setenv("AWS_ENDPOINT_URL", capacity_proxy.url)
    yield capacity_proxy
    capacity_proxy.stop()


@pytest.fixture
def plans(moto, monkeypatch):
    """The training-plans account (tests/aws/plans_proxy.py) in front of moto: no offerings and
    no plans until a test adds them."""
    from tests.aws.plans_proxy import PlansProxy

    plans_proxy = PlansProxy(moto, ACCOUNT, REGION).start()
    plans_proxy.unique_creates = True  # a second create of one job name is refused, as AWS does
    monkeypatch.setenv("AWS_ENDPOINT_URL", plans_proxy.url)
    yield plans_proxy
    plans_proxy.stop()


def boto_client(service: str):
    """A plain boto3 client for the test's own checks (reads AWS_ENDPOINT_URL like ours do)."""
    import boto3

    return boto3.client(service, region_name=REGION)


def training_job(name: str):
    """moto's stored job, to move it to states moto never reaches by itself."""
    from moto.sagemaker.models import sagemaker_backends

    return sagemaker_backends[ACCOUNT][REGION].training_jobs[name]


@pytest.fixture(scope="session")
def saved_plan(tmp_path_factory) -> Path:
    """`plan smddp-p4d.yaml --out plan.json` once per session (the SDK runs once)."""
    out = tmp_path_factory.mktemp("plan") / "plan.json"
    arguments = ["plan", str(SMDDP), "--out", str(out), "--no-check-quota", "-o", "json"]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def plan_copy(saved_plan, tmp_path) -> Path:
    """A private copy of the saved plan and its bundle (tests may tamper with it)."""
    from sagelaunch import plan_file

    target = tmp_path / "plan.json"
    target.write_bytes(saved_plan.read_bytes())
    bundle = plan_file.bundle_path_for(saved_plan)
    plan_file.bundle_path_for(target).write_bytes(bundle.read_bytes())
    return target


def submitted(result) -> dict:
    """The `submit --output json` object, after checking the command succeeded."""
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)

"""`sagelaunch plan` as a user runs it: JSON contract, readable view, saved plans, bad input."""

from __future__ import annotations

import json
import socket

import pytest

from sagelaunch import plan_file
from tests.aws.price_list import priced
from tests.conftest import EXAMPLES

SMDDP = EXAMPLES / "smddp-p4d.yaml"


@pytest.fixture
def no_network(monkeypatch):
    """Records (and refuses) every name lookup or connection beyond loopback; the test fails at
    teardown if there was any, even one the SDK swallowed (its telemetry logs and carries on)."""
    attempts: list[object] = []
    real_connect, real_getaddrinfo = socket.socket.connect, socket.getaddrinfo

    def loopback(host: object) -> bool:
        return str(host) in ("127.0.0.1", "::1", "localhost") or str(host).startswith("/")

    def connect(self, address):
        host = address[0] if isinstance(address, tuple) else address
        if not loopback(host):
            attempts.append(address)
            raise OSError(f"offline test: refused connection to {address}")
        return real_connect(self, address)

    def getaddrinfo(host, *args, **kwargs):
        if not loopback(host):
            attempts.append(host)
            raise socket.gaierror(f"offline test: refused lookup of {host}")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    for var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/aws-credentials")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent/aws-config")
    yield
    assert attempts == [], f"plan reached for the network: {attempts}"


@pytest.mark.parametrize("config", ["smddp-p4d", "xgboost-builtin", "trn1-torchrun"])
def test_plan_is_offline_without_credentials(cli, no_network, config):
    result = cli("plan", EXAMPLES / f"{config}.yaml", "--output", "json")
    assert result.exit_code == 0, result.output
    assert not [w for w in json.loads(result.stdout)["warnings"] if "Request exception" in w]


def test_without_credentials_plan_says_in_one_line_that_quotas_were_not_checked(cli, no_network):
    as_json = cli("plan", SMDDP, "--output", "json", "--job-name", "bert-smddp-1")
    assert as_json.exit_code == 0, as_json.output
    quota = json.loads(as_json.stdout)["quota"]
    assert (quota["checked"], quota["quotas"]) == (False, [])
    assert quota["note"].startswith("quotas not checked: no AWS credentials configured")
    table = cli("plan", SMDDP, "--job-name", "bert-smddp-1")
    assert table.exit_code == 0
    notes = [line for line in table.stderr.splitlines() if "quotas not checked" in line]
    assert len(notes) == 1 and "quota" not in table.stdout.lower()
    offline = cli("plan", SMDDP, "--no-check-quota", "--output", "json")
    assert "quota" not in json.loads(offline.stdout) and "quotas" not in offline.stderr


def test_json_has_the_spec_keys(cli, monkeypatch):
    priced(monkeypatch, {("us-east-1", "ml.p4d.24xlarge"): "32.0"})  # ships no p4d price
    result = cli("plan", SMDDP, "--output", "json", "--job-name", "bert-smddp-1")
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert {"job_name", "estimator", "request", "cost", "topology", "upload", "warnings"} <= set(
        plan
    )
    assert plan["estimator"]["class"] == "sagemaker.pytorch.PyTorch"
    assert plan["request"]["TrainingJobName"] == "bert-smddp-1"
    assert (
        plan["request"]["HyperParameters"]["sagemaker_distributed_dataparallel_enabled"] == "true"
    )
    assert plan["topology"] == {
        "hosts": 2,
        "processes_per_host": 8,
        "launcher": "mpirun",
        "world_size": 16,
        "mesh": None,  # no tensor/pipeline degrees in this config's hyperparameters
    }
    cost = plan["cost"]
    assert cost["max_usd"] == round(cost["hourly_usd"] * 2 * 24, 2) and cost["prices_as_of"]
    assert plan["upload"]["sha256"][:32] in plan["upload"]["s3_uri"]
    assert "train_pytorch.py" in plan["upload"]["files"]


def test_table_view_shows_topology_cost_and_upload(cli):
    result = cli("plan", SMDDP)
    assert result.exit_code == 0, result.output
    for text in (
        "world size 16",
        "algo-2: 8 processes (ranks 8–15)",
        "sagemaker_program",
        "cost",
        "upload",
        "pytorch-training:2.2.0-gpu-py310",
    ):
        assert text in result.stdout


def test_table_view_of_instance_groups_shows_each_group(cli):
    result = cli("plan", EXAMPLES / "hetero-c5-p4d.yaml")
    assert result.exit_code == 0, result.output
    assert (
        "2 instance groups" in result.stdout and "dnn_group: 2 × ml.p4d.24xlarge" in result.stdout
    )


def test_unknown_price_is_null_not_made_up(cli, make_config):
    result = cli(
        "plan", make_config({"compute": {"instance_type": "ml.g4dn.12xlarge"}}), "-o", "json"
    )
    cost = json.loads(result.stdout)["cost"]
    assert (
        cost["hourly_usd"] is None
        and cost["max_usd"] is None
        and "no public price for ml.g4dn.12xlarge" in cost["note"]
    )


def test_saved_plan_round_trips_and_detects_a_changed_bundle(cli, tmp_path):
    out = tmp_path / "plan.json"
    assert cli("plan", SMDDP, "--out", out, "-o", "json").exit_code == 0
    plan, data = plan_file.load(out)
    assert data is not None and plan.upload is not None and plan.upload.sha256
    plan_file.bundle_path_for(out).write_bytes(data.read_bytes() + b"tampered")
    with pytest.raises(Exception, match="changed after the plan was made"):
        plan_file.load(out)


def test_set_overrides_reach_the_request(cli):
    result = cli("plan", SMDDP, "--set", "compute.instance_count=4", "-o", "json")
    assert json.loads(result.stdout)["request"]["ResourceConfig"]["InstanceCount"] == 4


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        (
            {"distribution": {"strategy": "torchrun"}, "framework_version": "2.4.0"},
            "the SDK runs torch_distributed on gpu",
        ),
        ({"framework_version": "2.4.1"}, "has no pytorch training image for version"),
        ({"output_path": None}, "plan/submit need output_path"),
        ({"inputs": {"train": "file:///data"}}, "use an s3:// URI"),
        ({"role": None}, "no role"),
    ],
)
def test_jobs_the_sdk_or_service_would_reject_exit_2_with_a_location(
    cli, make_config, monkeypatch, overrides, fragment
):
    monkeypatch.delenv("SAGELAUNCH_ROLE", raising=False)
    path = make_config(overrides)
    result = cli("plan", path)
    assert result.exit_code == 2
    assert f"{path}:" in result.output and fragment in result.output
    assert "Traceback" not in result.output


def test_role_from_environment(cli, make_config, monkeypatch):
    monkeypatch.setenv("SAGELAUNCH_ROLE", "arn:aws:iam::111122223333:role/FromEnv")
    result = cli("plan", make_config({"role": None}), "-o", "json")
    assert json.loads(result.stdout)["request"]["RoleArn"].endswith("role/FromEnv")

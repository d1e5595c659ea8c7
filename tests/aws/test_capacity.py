"""`sagelaunch capacity` through the CLI, against the training-plans stand-in in front of moto
(tests/aws/plans_proxy.py): offerings searched for a config's instances, a plan reserved only
when confirmed and once per name (reruns and a concurrent second run report it), plans listed,
described and extended, and AWS's refusals as clear errors with SPEC's exit codes."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from tests.aws.capacity_proxy import twice_at_once
from tests.aws.plans_proxy import offering
from tests.conftest import EXAMPLES

pytestmark = pytest.mark.integration
P5 = EXAMPLES / "smp-v2-p5.yaml"  # 4 × ml.p5.48xlarge
START = datetime(2030, 1, 6, 12, tzinfo=UTC)


@pytest.fixture
def offered(plans):
    """The account's offerings: one for smp-v2-p5's 4 × p5 over a day, one over two days, and
    some that do not fit it (2 × p5, p4d, HyperPod)."""
    plans.offerings = [
        offering("tpo-p5-day", "ml.p5.48xlarge", 4, START, 24, upfront_fee="9000.00"),
        offering("tpo-p5-2day", "ml.p5.48xlarge", 4, START + timedelta(days=3), 48),
        offering("tpo-p5-two", "ml.p5.48xlarge", 2, START, 24),
        offering("tpo-p4d", "ml.p4d.24xlarge", 4, START, 24),
        offering("tpo-hp", "ml.p5.48xlarge", 4, START, 24, target="hyperpod-cluster"),
    ]
    return plans


def as_json(result) -> object:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def reserved(cli, offering_id: str = "tpo-p5-day", name: str = "p5-day") -> dict:
    return as_json(cli("capacity", "reserve", offering_id, "--name", name, "--yes", "-o", "json"))


def test_search_lists_the_offerings_for_the_configs_instances(cli, offered):
    found = as_json(cli("capacity", "search", P5, "-o", "json"))
    assert [row["offering_id"] for row in found] == ["tpo-p5-day", "tpo-p5-2day"]
    assert found[0] == {
        "offering_id": "tpo-p5-day",
        "instance_type": "ml.p5.48xlarge",
        "instance_count": 4,
        "start": "2030-01-06T12:00:00Z",
        "end": "2030-01-07T12:00:00Z",
        "duration_hours": 24,
        "upfront_fee": "9000.00",
        "currency": "USD",
        "availability_zone": "us-east-1a",
        "target_resources": ["training-job"],
    }
    (asked,) = [request for op, request in offered.received if op.startswith("Search")]
    assert asked == {
        "InstanceType": "ml.p5.48xlarge",
        "InstanceCount": 4,
        "TargetResources": ["training-job"],
    }
    table = cli("capacity", "search", P5)
    assert table.exit_code == 0, table.output
    assert "tpo-p5-day" in table.stdout and "4 × ml.p5.48xlarge" in table.stdout
    assert "9000.00 USD" in table.stdout and "2030-01-06 12:00" in table.stdout


def test_search_asks_the_duration_and_window_given(cli, offered):
    found = as_json(
        cli(
            "capacity",
            "search",
            P5,
            "--duration",
            "2d",
            "--start-after",
            "2030-01-08",
            "--end-before",
            "2030-01-12T00:00Z",
            "-o",
            "json",
        )
    )
    assert [row["offering_id"] for row in found] == ["tpo-p5-2day"]
    asked = offered.received[-1][1]
    assert asked["DurationHours"] == 48
    assert asked["StartTimeAfter"] == datetime(2030, 1, 8, tzinfo=UTC).timestamp()
    assert asked["EndTimeBefore"] == datetime(2030, 1, 12, tzinfo=UTC).timestamp()


def test_search_follows_set_overrides(cli, offered):
    found = as_json(
        cli("capacity", "search", P5, "--set", "compute.instance_count=2", "-o", "json")
    )
    assert [row["offering_id"] for row in found] == ["tpo-p5-two"]


def test_no_offering_is_a_clear_error(cli, offered):
    result = cli("capacity", "search", P5, "--duration", "72h")
    assert result.exit_code == 3
    assert "no training-plan offering for 4 × ml.p5.48xlarge (72 h)" in result.stderr
    assert "--duration" in result.stderr  # the hint: what to change


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--duration", "90m"), "not a whole number of hours"),
        (("--duration", "soon"), "is not a duration"),
        (("--start-after", "next week"), "is not an ISO 8601 time"),
    ],
)
def test_bad_search_options_are_usage_errors(cli, offered, args, said):
    result = cli("capacity", "search", P5, *args)
    assert result.exit_code == 2 and said in result.stderr
    assert offered.received == []  # refused before asking


def test_a_type_training_plans_do_not_offer_is_refused_at_its_line(cli, offered):
    result = cli("capacity", "search", P5, "--set", "compute.instance_type=ml.g5.xlarge")
    assert result.exit_code == 2
    assert "compute.instance_type: training plans offer no ml.g5.xlarge" in result.stderr
    assert "ml.p5.48xlarge" in result.stderr and offered.received == []


def test_reserve_without_yes_says_the_fee_and_buys_nothing(cli, offered):
    as_json(cli("capacity", "search", P5, "-o", "json"))  # what tells the fee
    result = cli("capacity", "reserve", "tpo-p5-day", "--name", "p5-day")
    assert result.exit_code == 2
    assert "upfront fee 9000.00 USD for 4 × ml.p5.48xlarge" in result.stderr
    assert "capacity reserve tpo-p5-day --name p5-day --yes" in result.stderr
    assert offered.plans == {}
    assert not [op for op, _ in offered.received if op == "CreateTrainingPlan"]


def test_reserve_buys_once_and_a_rerun_reports_the_plan(cli, offered):
    first = reserved(cli)
    assert (first["created"], first["name"], first["status"]) == (True, "p5-day", "Scheduled")
    assert first["arn"] == offered.plan_arn("p5-day")
    assert (first["instance_type"], first["instance_count"]) == ("ml.p5.48xlarge", 4)
    again = reserved(cli)
    assert again == {**first, "created": False}
    assert [op for op, _ in offered.received].count("CreateTrainingPlan") == 1
    shown = cli("capacity", "reserve", "tpo-p5-day", "--name", "p5-day")  # no --yes needed
    assert shown.exit_code == 0 and "already reserved training plan p5-day" in shown.stdout


def test_reserve_twice_at_once_buys_one_plan(offered):
    outputs = twice_at_once("capacity", "reserve", "tpo-p5-day", "--name", "p5-day", "--yes")
    assert sorted(output["created"] for output in outputs) == [False, True]
    assert {output["arn"] for output in outputs} == {offered.plan_arn("p5-day")}
    assert list(offered.plans) == ["p5-day"]


def test_reserve_of_a_gone_offering_says_to_search_again(cli, offered):
    result = cli("capacity", "reserve", "tpo-expired", "--name", "late", "--yes")
    assert result.exit_code == 3
    assert "no training-plan offering 'tpo-expired'" in result.stderr
    assert "capacity search" in result.stderr


def test_list_and_describe_show_the_plans(cli, offered):
    reserved(cli)
    reserved(cli, "tpo-p5-2day", "p5-later")
    offered.set_status("p5-day", "Active")
    listed = as_json(cli("capacity", "list", "-o", "json"))
    assert [(p["name"], p["status"]) for p in listed] == [
        ("p5-day", "Active"),
        ("p5-later", "Scheduled"),
    ]
    table = cli("capacity", "list")
    assert "p5-later" in table.stdout and "Scheduled" in table.stdout
    described = as_json(cli("capacity", "describe", offered.plan_arn("p5-day"), "-o", "json"))
    assert described["name"] == "p5-day" and described["extensions"] == []
    (capacity,) = described["reserved_capacity"]
    assert (capacity["instance_type"], capacity["instance_count"]) == ("ml.p5.48xlarge", 4)
    shown = cli("capacity", "describe", "p5-day")
    assert f"compute.training_plan: {offered.plan_arn('p5-day')}" in shown.stdout


def test_no_plans_is_said_and_an_empty_list_in_json(cli, offered):
    assert as_json(cli("capacity", "list", "-o", "json")) == []
    assert "no training plans" in cli("capacity", "list").stdout


def test_describe_of_no_such_plan_is_not_found(cli, offered):
    result = cli("capacity", "describe", "nobody")
    assert result.exit_code == 3
    assert "no training plan named 'nobody'" in result.stderr
    assert "capacity list" in result.stderr


def test_extend_lists_its_offerings_and_buys_one_only_when_confirmed(cli, offered):
    reserved(cli)
    offered.add_extension_offering("p5-day", "tpeo-day", hours=24, upfront_fee="8000.00")
    listed = as_json(cli("capacity", "extend", "p5-day", "-o", "json"))
    assert [(row["offering_id"], row["end"]) for row in listed] == [
        ("tpeo-day", "2030-01-08T12:00:00Z")
    ]
    refused = cli("capacity", "extend", "p5-day", "--offering", "tpeo-day")
    assert refused.exit_code == 2
    assert "24 h more: upfront fee 8000.00 USD" in refused.stderr and "--yes" in refused.stderr
    assert offered.extensions == {}
    extended = as_json(
        cli("capacity", "extend", "p5-day", "--offering", "tpeo-day", "--yes", "-o", "json")
    )
    assert (extended["end"], extended["duration_hours"]) == ("2030-01-08T12:00:00Z", 48)
    assert [e["offering_id"] for e in extended["extended_by"]] == ["tpeo-day"]
    history = as_json(cli("capacity", "describe", "p5-day", "-o", "json"))["extensions"]
    assert [(e["offering_id"], e["status"]) for e in history] == [("tpeo-day", "Active")]


def test_extend_by_an_offering_not_of_the_plan_is_refused(cli, offered):
    reserved(cli)
    offered.add_extension_offering("p5-day", "tpeo-day", hours=24)
    result = cli("capacity", "extend", "p5-day", "--offering", "tpeo-other", "--yes")
    assert result.exit_code == 3
    assert "tpeo-other is not an offering that extends training plan 'p5-day'" in result.stderr
    assert "tpeo-day" in result.stderr and offered.extensions == {}


def test_no_extension_offering_is_a_clear_error(cli, offered):
    reserved(cli)
    result = cli("capacity", "extend", "p5-day")
    assert result.exit_code == 3
    assert "no offering extends training plan 'p5-day'" in result.stderr


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ("AccessDeniedException", "access denied: ListTrainingPlans"),
        ("ThrottlingException", "AWS is throttling or unavailable: ListTrainingPlans"),
    ],
)
def test_denied_and_throttled_are_aws_errors(cli, offered, monkeypatch, code, said):
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "2")
    offered.script("sagemaker:ListTrainingPlans", code, "no", times=2)
    result = cli("capacity", "list")
    assert result.exit_code == 3
    assert said in result.stderr

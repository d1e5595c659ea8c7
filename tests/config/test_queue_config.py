"""`compute.queue`: an AWS Batch job queue, checked by `validate` at its line (each rule's fires and
quiet cases are in test_rules.CASES). The bounds are
SubmitServiceJob's (botocore's Batch model, data/api_limits.json); the refusals cite what the
service does (a queued job waits instead of failing over; a queue runs training jobs only)."""

from __future__ import annotations

import json

import pytest

from sagelaunch.catalog.api_limits import queue_range


def validate(cli, make_config, compute: dict, **more):
    path = make_config({"compute": compute, **more})
    result = cli("validate", path, "-o", "json")
    return result, json.loads(result.stdout)[0]


def test_a_queue_by_name_validates_quietly(cli, make_config):
    result, report = validate(cli, make_config, {"queue": "ml-queue", "max_run": 3600})
    assert result.exit_code == 0, result.output
    assert not [w for w in report["warnings"] if "queue" in w["path"]]


def test_every_setting_within_the_api_validates(cli, make_config):
    low, high = queue_range("schedulingPriority")
    queue = {
        "name": "ml-queue",
        "priority": high,
        "share": "research",
        "quota_share": "team-a",
        "preemption": 0,
        "retries": queue_range("retryStrategy.attempts")[1] - 1,
        "timeout": "2h",
        "tags": {"queue": "yes"},
    }
    result, _ = validate(cli, make_config, {"queue": queue, "max_run": 3600})
    assert result.exit_code == 0, result.output
    assert low == 0  # the bottom of the range is the service's default priority


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("priority", queue_range("schedulingPriority")[1] + 1),
        ("priority", -1),
        ("retries", queue_range("retryStrategy.attempts")[1]),
        ("name", ""),
    ],
)
def test_a_setting_outside_the_api_is_an_error_at_its_key(cli, make_config, key, value):
    result, report = validate(cli, make_config, {"queue": {"name": "q", key: value}})
    assert result.exit_code == 2
    assert any(e["path"] == f"compute.queue.{key}" for e in report["errors"]), report


@pytest.mark.parametrize(
    ("chain", "path"),
    [
        ({"fallback": [{"instance_type": "ml.g5.4xlarge"}]}, "compute.fallback"),
        ({"spot": {"max_wait": "2h", "fallback_after": "10m"}}, "compute.spot.fallback_after"),
    ],
)
def test_a_queue_with_a_failover_chain_is_refused_at_the_chain(cli, make_config, chain, path):
    result, report = validate(cli, make_config, {"queue": "ml-queue", **chain})
    assert result.exit_code == 2
    error = next(e for e in report["errors"] if e["path"] == path)
    assert "waits in the queue" in error["message"] and "fails over" in error["message"]
    assert error["line"] > 1


def test_the_sdks_one_day_default_timeout_is_advice_against_a_longer_max_run(cli, make_config):
    result, report = validate(cli, make_config, {"queue": "q", "max_run": "2d"})
    assert result.exit_code == 0, result.output
    warning = next(w for w in report["warnings"] if w["path"] == "compute.queue")
    assert "86400s" in warning["message"] and "SDK's default" in warning["message"]

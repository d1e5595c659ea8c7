"""`submit` of a job with instance preferences and a pending limit, against moto's server: the
request SDK v2 cannot build is sent as planned, once (a rerun attaches to the job)."""

from __future__ import annotations

import json

import pytest

from tests.aws.conftest import boto_client, submitted
from tests.config.conftest import preferred_config  # noqa: F401 (the fixture)

pytestmark = pytest.mark.integration


def test_preferences_and_max_pending_are_sent_as_planned(cli, proxy, preferred_config):  # noqa: F811
    job = submitted(cli("submit", preferred_config, "--idempotency-key", "flex-1", "-o", "json"))
    plan = cli("plan", preferred_config, "--job-name", job["job_name"], "-o", "json")
    request = json.loads(plan.stdout)["request"]
    sent = boto_client("sagemaker").describe_training_job(TrainingJobName=job["job_name"])
    assert sent["ResourceConfig"] == request["ResourceConfig"]
    assert "InstanceType" not in sent["ResourceConfig"]
    assert sent["ResourceConfig"]["InstancePreferences"][1] == {
        "InstanceType": "ml.p4d.24xlarge",
        "InstanceCount": 4,
    }
    assert sent["StoppingCondition"]["MaxPendingTimeInSeconds"] == 7200
    again = submitted(cli("submit", preferred_config, "--idempotency-key", "flex-1", "-o", "json"))
    assert (again["job_name"], again["attached"]) == (job["job_name"], True)
    assert proxy.created_names == [job["job_name"]]

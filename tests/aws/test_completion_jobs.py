"""Job names complete from SageMaker (moto's server): one quick ListTrainingJobs, newest first."""

from __future__ import annotations

import pytest

from sagelaunch.aws.completion import recent_job_names
from tests.aws.conftest import submitted
from tests.cli.test_completion_and_help import complete

pytestmark = pytest.mark.integration


def test_job_names_complete_for_status_and_metrics(cli, moto, plan_copy):
    names = [
        submitted(cli("submit", plan_copy, "--idempotency-key", key, "-o", "json"))["job_name"]
        for key in ("a", "b")
    ]
    assert sorted(complete("sagelaunch status ", jobs=True)) == sorted(names)
    assert set(names) <= set(complete("sagelaunch metrics ", jobs=True))  # after local runs
    prefix = names[0][: len(names[0]) - 3]
    assert set(recent_job_names(prefix)) == {n for n in names if n.startswith(prefix)}
    assert recent_job_names("no-such-prefix") == []


def test_no_aws_means_no_job_names_and_no_error(moto, monkeypatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")  # nothing listens there
    assert recent_job_names("") == []
    monkeypatch.delenv("AWS_DEFAULT_REGION")
    assert recent_job_names("") == []
    assert complete("sagelaunch status x", jobs=True) == []

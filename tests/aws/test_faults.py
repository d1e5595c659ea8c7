"""Faults on the wire: a loopback proxy in front of moto throttles a third of the API calls, each
for up to 3 attempts (a fixed schedule: the retry budget of 8 can never run out), and
endpoints that cannot be reached or credentials that are missing end in exit 3, cleanly, fast."""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.aws.conftest import boto_client
from tests.cli.runner import only_error, sagelaunch
from tests.conftest import REPO

pytestmark = pytest.mark.integration

SUBMITS = 20


# The n-th call of each operation is refused this many times before it is forwarded: a third of
# the calls faulted, once to 3 times in a row — below the 8 attempts sagelaunch's clients make,
# so the test cannot fail on a correct change, however the threads interleave.
SCHEDULE = (1, 0, 0, 2, 0, 0, 3, 0, 0)


def test_twenty_submits_through_scheduled_faults_make_twenty_jobs(proxy, plan_copy, monkeypatch):
    """Twenty CI steps at once, each submitting the plan with its own idempotency key (in
    threads: the same `deliver` the command runs, each with its own clients).

    botocore's retries are real; only their backoff sleeps (up to seconds per throttle, random)
    are cut to 10 ms, which is what this test would otherwise spend most of its time on."""
    from botocore.retries.standard import ExponentialBackoff

    from sagelaunch.services.submit import deliver

    monkeypatch.setattr(ExponentialBackoff, "delay_amount", lambda self, context: 0.01)
    proxy.fault_schedule = SCHEDULE
    with ThreadPoolExecutor(max_workers=SUBMITS) as pool:
        results = list(
            pool.map(lambda i: deliver(plan_copy, None, f"ci-{i}", None)[0], range(SUBMITS))
        )
    names = [result.job_name for result in results]
    assert len(set(names)) == SUBMITS and not any(result.attached for result in results)
    # Every create reached moto once per job. Exactly the scheduled faults happened, and each
    # was retried: three calls per submit (HeadObject; PutObject or DescribeTrainingJob;
    # Create...), each forwarded once, plus one request per injected fault, plus one per 500 of
    # moto's own (concurrent PutObjects of one key sometimes collide inside moto; botocore
    # retries those too).
    faults = sum(proxy.faults.values())
    moto_errors = sum(proxy.upstream_errors.values())
    assert Counter(proxy.created_names) == Counter(names)
    assert sum(proxy.calls.values()) == 3 * SUBMITS
    assert proxy.calls["s3:HeadObject"] == proxy.calls["sagemaker:CreateTrainingJob"] == SUBMITS
    assert proxy.faults == Counter({op: proxy.expected_faults(op) for op in proxy.calls})
    assert proxy.faults["sagemaker:CreateTrainingJob"] == proxy.faults["s3:HeadObject"] == 13
    assert sum(proxy.forwarded.values()) == 3 * SUBMITS + moto_errors
    assert proxy.total() == 3 * SUBMITS + faults + moto_errors
    print(
        f"\n{proxy.total() / SUBMITS:.2f} HTTP requests per submit at the proxy "
        f"({faults} faults injected, {moto_errors} moto errors): {dict(proxy.requests)}"
    )
    # moto holds exactly those jobs.
    proxy.fault_schedule = (0,)
    listed = boto_client("sagemaker").list_training_jobs(MaxResults=100)["TrainingJobSummaries"]
    assert sorted(j["TrainingJobName"] for j in listed) == sorted(names)


def test_throttling_that_outlasts_the_retries_is_exit_3(cli, proxy, plan_copy, monkeypatch):
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "2")
    proxy.fault_schedule = (99,)  # every call refused, attempt after attempt
    result = cli("submit", plan_copy)
    assert result.exit_code == 3
    assert "throttling or unavailable" in result.stderr and "after 2 attempts" in result.stderr
    assert proxy.total() == 2 and "Traceback" not in result.output  # AWS_MAX_ATTEMPTS is total


def run_cli(*args: str, env_changes: dict[str, str | None]) -> subprocess.CompletedProcess:
    """`sagelaunch ARGS` in a fresh process (tests/cli/runner.py): what a user or CI step sees.
    The timeout is the hang guard: an error path that waits out retries or backoff fails here."""
    env = dict(os.environ)
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return sagelaunch(REPO, *args, env=env, timeout=60)


def assert_one_clean_error(proc: subprocess.CompletedProcess, fragment: str) -> None:
    assert fragment in only_error(proc, code=3) and proc.stdout == "", proc.stderr


def test_unreachable_endpoint_is_exit_3(moto, plan_copy):
    proc = run_cli(
        "submit",
        str(plan_copy),
        env_changes={"AWS_ENDPOINT_URL": "http://127.0.0.1:1", "AWS_MAX_ATTEMPTS": "2"},
    )
    assert_one_clean_error(proc, "cannot reach AWS at http://127.0.0.1:1")


def test_no_credentials_is_exit_3(moto, plan_copy):
    proc = run_cli(
        "status", "some-job", env_changes={"AWS_ACCESS_KEY_ID": None, "AWS_SECRET_ACCESS_KEY": None}
    )
    assert_one_clean_error(proc, "no AWS credentials found")
    assert "hint:" in proc.stderr

"""`sagelaunch sweep` against moto's server: every trial created once — on the first run, on a
rerun under the same key (attach), on two concurrent reruns, and through quota refusals and
throttles injected by the loopback proxy — and never more than max_parallel running."""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path

import pytest
import yaml

from sagelaunch.aws.session import clients
from sagelaunch.sweeps.planning import plan_trials
from sagelaunch.sweeps.scheduler import Pacing, Scheduler
from tests.aws.conftest import boto_client, training_job
from tests.conftest import REPO

pytestmark = pytest.mark.integration

SOURCE = REPO / "tests" / "golden" / "source"  # small and fixed: the plan cache serves reruns
CONFIG = {
    "name": "lr-sweep",
    "framework": "pytorch",
    "entry_point": "train_pytorch.py",
    "source_dir": str(SOURCE),
    "framework_version": "2.2.0",
    "role": "arn:aws:iam::123456789012:role/SageMakerRole",
    "region": "us-east-1",
    "output_path": "s3://sagelaunch-examples/output/",
    "compute": {"instance_type": "ml.g5.xlarge", "max_run": 3600},
    "hyperparameters": {"max_steps": 10},
    "sweep": {
        "parameters": {"hyperparameters.lr": [0.001, 0.1], "compute.instance_count": [1, 2]},
        "max_parallel": 2,
        "objective": {"metric": "validation:loss", "goal": "minimize"},
    },
}


@pytest.fixture
def sweep_file(tmp_path) -> Path:
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(CONFIG, sort_keys=False))
    return path


def run_json(cli, *args) -> dict:
    result = cli("sweep", *args, "-o", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def moto_jobs() -> list[str]:
    listed = boto_client("sagemaker").list_training_jobs(MaxResults=100)["TrainingJobSummaries"]
    return sorted(job["TrainingJobName"] for job in listed)


def test_a_rerun_with_the_key_attaches_to_every_trial(cli, proxy, sweep_file):
    first = run_json(cli, sweep_file, "--idempotency-key", "ci-1", "--wait")
    names = [t["job_name"] for t in first["trials"]]
    assert len(set(names)) == 4 and moto_jobs() == sorted(names)
    assert [t["status"] for t in first["trials"]] == ["Completed"] * 4
    assert not any(t["attached"] for t in first["trials"])
    assert proxy.forwarded["s3:PutObject"] == 1  # one bundle for all four trials
    second = run_json(cli, sweep_file, "--idempotency-key", "ci-1", "--wait")
    assert [t["job_name"] for t in second["trials"]] == names
    assert all(t["attached"] for t in second["trials"])
    assert Counter(proxy.created_names) == Counter(names)  # each trial created once in all
    sent = boto_client("sagemaker").describe_training_job(TrainingJobName=names[3])
    assert sent["HyperParameters"]["lr"] == "0.1" and sent["ResourceConfig"]["InstanceCount"] == 2


def test_without_wait_only_max_parallel_are_started_and_a_rerun_adds_the_rest(
    cli, moto, sweep_file
):
    started = run_json(cli, sweep_file, "--idempotency-key", "k")
    statuses = Counter(t["status"] for t in started["trials"])
    assert statuses == {"Completed": 2, "Queued": 2}  # moto finishes jobs at once
    again = run_json(cli, sweep_file, "--idempotency-key", "k")
    assert Counter(t["status"] for t in again["trials"]) == {"Completed": 4}
    assert [t["attached"] for t in again["trials"]] == [True, True, False, False]
    assert len(moto_jobs()) == 4


def test_two_concurrent_reruns_create_each_trial_once(proxy, sweep_file):
    proxy.unique_creates = True  # as AWS: a second create of one name is refused
    planned = plan_trials(sweep_file, None, None, "pipeline-7")
    results = []

    def run() -> None:
        scheduler = Scheduler(clients("us-east-1"), planned, max_parallel=4, pacing=FAST)
        results.append(scheduler.run(wait=True))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    names = [t.plan.job_name for t in planned.trials]
    assert all([s.job_name for s in r.trials] == names for r in results)
    assert all(s.status == "Completed" for r in results for s in r.trials)
    assert Counter(proxy.created_names) == Counter(names) and moto_jobs() == sorted(names)


FAST = Pacing(poll_s=0.0, max_poll_s=0.0, quota_retry_s=0.0)


class Cluster:
    """moto finishes every job at once; this keeps created jobs InProgress and lets one end per
    pause of the scheduler, recording how many ran at once."""

    def __init__(self) -> None:
        self.running: list[str] = []
        self.most = 0
        self.pauses = 0

    def started(self, names: list[str]) -> None:
        for name in names:
            if name not in self.running and training_job(name).training_job_status == "Completed":
                job = training_job(name)
                job.training_job_status = "InProgress"
                job.final_metric_data_list = []
                self.running.append(name)
        self.most = max(self.most, len(self.running))

    def end_one(self, seconds: float) -> None:
        self.pauses += 1
        if self.running:
            job = training_job(self.running.pop(0))
            job.training_job_status = "Completed"
            value = 1.0 / (1 + len(job.training_job_name) + self.pauses)  # any distinct value
            job.final_metric_data_list = [{"MetricName": "validation:loss", "Value": value}]


def test_at_most_max_parallel_run_and_quota_refusals_wait_for_a_slot(
    proxy, sweep_file, monkeypatch
):
    """ResourceLimitExceeded on three creates, throttled creates and describes: every trial is
    still created exactly once, at most max_parallel (2) run at a time, and the best is the
    lowest. botocore retries the throttles (standard mode: adaptive only adds a rate limiter)."""
    from sagelaunch.aws import jobs as aws_jobs

    monkeypatch.setenv("AWS_RETRY_MODE", "standard")
    for code, times in (("ResourceLimitExceeded", 2), ("ThrottlingException", 1)):
        proxy.script("sagemaker:CreateTrainingJob", code, QUOTA if times == 2 else "Rate", times)
    proxy.script("sagemaker:CreateTrainingJob", "ResourceLimitExceeded", QUOTA)
    proxy.script("sagemaker:DescribeTrainingJob", "ThrottlingException", "Rate exceeded", 2)
    planned = plan_trials(sweep_file, None, None, "quota-run")
    cluster = Cluster()
    said: list[str] = []
    create = aws_jobs.create

    def tracked_create(sagemaker, request):
        outcome = create(sagemaker, request)
        cluster.started([request["TrainingJobName"]])
        return outcome

    monkeypatch.setattr(aws_jobs, "create", tracked_create)
    scheduler = Scheduler(
        clients("us-east-1"), planned, 2, FAST, say=said.append, sleep=cluster.end_one
    )
    result = scheduler.run(wait=True)
    names = [t.plan.job_name for t in planned.trials]
    assert Counter(proxy.created_names) == Counter(names) and moto_jobs() == sorted(names)
    assert [s.status for s in result.trials] == ["Completed"] * 4
    assert cluster.most == 2 and proxy.faults["sagemaker:CreateTrainingJob"] == 4
    assert proxy.faults["sagemaker:DescribeTrainingJob"] == 2
    assert any("ml.g5.xlarge for training job usage" in line for line in said), said
    best = min(result.trials, key=lambda s: s.metrics["validation:loss"])
    assert result.best is best


QUOTA = (
    "The account-level service limit 'ml.g5.xlarge for training job usage' is 1 Instances, "
    "with current utilization of 1 Instances and a request delta of 1 Instances."
)


def test_a_bad_trial_fails_the_whole_sweep_at_its_line(cli, moto, tmp_path):
    config = dict(CONFIG, sweep={"parameters": {"compute.instance_count": [1, 0]}})
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    result = cli("sweep", path, "--idempotency-key", "x")
    assert result.exit_code == 2
    line = next(
        n for n, text in enumerate(path.read_text().splitlines(), 1) if text.strip() == "- 0"
    )
    assert f"{path}:{line}:" in result.stderr and "trial 2 (compute.instance_count=0)" in (
        result.stderr
    )
    assert moto_jobs() == []

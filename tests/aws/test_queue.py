"""A training job that waits in an AWS Batch job queue, through the CLI as a user runs it:
moto's server for SageMaker and S3, and tests/aws/batch_server.py for Batch's service jobs (its
wire checked against botocore's model, its queue started by the test's capacity switch, each
started job a real CreateTrainingJob in moto)."""

from __future__ import annotations

import json
import threading

import pytest

from sagelaunch.aws import batch as batch_api
from sagelaunch.aws.session import clients
from sagelaunch.commands.queue_view import FAIR_SHARE_PLACES
from sagelaunch.services import queue as queues
from tests.aws.batch_server import BatchServer, batch_client, sagemaker_queue
from tests.aws.conftest import SMDDP, boto_client

pytestmark = pytest.mark.integration
QUEUE = "ml-queue"


@pytest.fixture
def server(moto, monkeypatch):
    batch_server = BatchServer(moto).start()
    monkeypatch.setenv("AWS_ENDPOINT_URL_BATCH", batch_server.url)
    monkeypatch.setattr(queues, "POLL_S", 0.01)
    yield batch_server
    batch_server.stop()


def submit(cli, key: str, *more: str) -> dict:
    result = cli("submit", SMDDP, "--queue", QUEUE, "--idempotency-key", key, "-o", "json", *more)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def status(cli, name: str) -> dict:
    result = cli("status", name, "--queue", QUEUE, "-o", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_queued_job_waits_with_its_place_and_runs_once_capacity_opens(cli, server):
    sagemaker_queue(server, QUEUE)
    job = submit(cli, "ci-1")
    assert (job["queue"], job["attached"], job["uploaded"]) == (QUEUE, False, True)
    assert job["place"] == 1
    now = status(cli, job["job_name"])
    assert (now["status"], now["place"], now["training_job"]) == ("RUNNABLE", 1, None)
    assert now["place"] == server.place(now["service_job_id"])  # the queue's own order

    ahead = submit(cli, "ci-2", "--set", "compute.queue.priority=50", "--set", "name=urgent")
    assert ahead["place"] == 1 and status(cli, job["job_name"])["place"] == 2

    server.capacity(4)  # room for both (2 × p4d each)
    waited = cli("wait", job["job_name"], "--queue", QUEUE, "-o", "json")
    assert waited.exit_code == 0, waited.output
    assert json.loads(waited.stdout)["status"] == "Completed"
    trained = boto_client("sagemaker").describe_training_job(TrainingJobName=job["job_name"])
    plan = json.loads(cli("plan", SMDDP, "--job-name", job["job_name"], "-o", "json").stdout)[
        "request"
    ]
    assert trained["HyperParameters"] == plan["HyperParameters"]
    assert trained["ResourceConfig"] == plan["ResourceConfig"]
    done = status(cli, job["job_name"])
    assert (done["status"], done["training_job"], done["place"]) == (
        "SUCCEEDED",
        job["job_name"],
        None,
    )


def test_a_rerun_attaches_and_two_racing_submits_make_one_job(cli, server):
    sagemaker_queue(server, QUEUE)
    first = submit(cli, "same-key")
    again = submit(cli, "same-key")
    assert again["attached"] and again["service_job_id"] == first["service_job_id"]
    assert not again["uploaded"]

    request = json.loads(
        cli(
            "plan",
            SMDDP,
            "--job-name",
            "racing-job",
            "--set",
            f"compute.queue={QUEUE}",
            "-o",
            "json",
        ).stdout
    )["queue"]["request"]
    request["jobQueue"] = batch_api.queue_detail(batch_client(server), QUEUE)["jobQueueArn"]
    answers: list = []
    racers = [
        threading.Thread(
            target=lambda: answers.append(
                batch_api.submit(clients("us-east-1").client("batch"), request)
            )
        )
        for _ in range(2)
    ]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    assert len({job["jobId"] for job, _ in answers}) == 1
    named = [j for j in server.jobs.values() if j.name == "racing-job"]
    assert len(named) == 1
    submits = [body for op, body in server.requests if op == "SubmitServiceJob"]
    assert all(body["clientToken"] == body["jobName"] for body in submits)


def test_a_job_of_the_same_name_with_another_payload_is_not_attached_to(cli, server, tmp_path):
    sagemaker_queue(server, QUEUE)
    first = submit(cli, "k")
    changed = tmp_path / "changed.json"
    planned = cli(
        "plan",
        SMDDP,
        "--job-name",
        first["job_name"],
        "--set",
        "hyperparameters.max_steps=9",
        "--out",
        changed,
        "--no-check-quota",
    )
    assert planned.exit_code == 0, planned.output
    refused = cli("submit", changed, "--queue", QUEUE)
    assert refused.exit_code == 2, refused.output
    assert "already exists with a different request" in refused.output
    assert "HyperParameters.max_steps" in refused.output


def test_stop_ends_the_queued_job_and_list_shows_the_queue(cli, server):
    sagemaker_queue(server, QUEUE)
    kept = submit(cli, "kept", "--set", "compute.queue.priority=7")
    ended = submit(cli, "ended")
    stopped = cli("stop", ended["job_name"], "--queue", QUEUE, "-o", "json")
    assert stopped.exit_code == 0, stopped.output
    assert status(cli, ended["job_name"])["status"] == "FAILED"
    listed = cli("list", "--queue", QUEUE, "-o", "json")
    assert listed.exit_code == 0, listed.output
    shown = json.loads(listed.stdout)
    assert (shown["queue"], shown["state"], shown["fair_share"]) == (QUEUE, "ENABLED", False)
    rows = {row["job_name"]: row for row in shown["jobs"]}
    assert (rows[kept["job_name"]]["place"], rows[kept["job_name"]]["priority"]) == (1, 7)
    assert rows[ended["job_name"]]["status"] == "FAILED"
    assert rows[ended["job_name"]]["status_reason"] == queues.STOP_REASON
    table = cli("list", "--queue", QUEUE)
    assert table.exit_code == 0 and kept["job_name"] in table.stdout
    assert FAIR_SHARE_PLACES not in table.stdout  # a plain queue starts them in this order


def test_a_fair_share_queue_says_its_places_are_priority_then_submit_order(cli, server):
    sagemaker_queue(server, QUEUE, fair_share=True)
    submit(cli, "shared", "--set", "compute.queue.share=research")
    table = cli("list", "--queue", QUEUE)
    assert table.exit_code == 0, table.output
    assert "fair share" in table.stdout
    assert " ".join(FAIR_SHARE_PLACES.split()) in " ".join(table.stdout.split())


def test_a_job_batch_fails_before_it_starts_exits_1_with_batchs_reason(cli, server):
    sagemaker_queue(server, QUEUE)
    job = submit(cli, "doomed")
    server.fail_before_start(job["service_job_id"], "Service environment capacity is 0")
    waited = cli("wait", job["job_name"], "--queue", QUEUE)
    assert waited.exit_code == 1
    assert "failed before any training job started" in waited.output
    assert "Service environment capacity is 0" in waited.output


def test_waiting_past_the_timeout_exits_5_with_the_place(cli, server):
    sagemaker_queue(server, QUEUE)
    job = submit(cli, "patient")
    waited = cli("wait", job["job_name"], "--queue", QUEUE, "--timeout", "0")
    assert waited.exit_code == 5
    assert "still RUNNABLE (place 1)" in waited.output


@pytest.mark.parametrize(
    ("setup", "sets", "code", "says"),
    [
        ({}, [], 3, "no AWS Batch job queue named 'ml-queue'"),
        ({"state": "DISABLED"}, [], 3, "is DISABLED"),
        ({"fair_share": True}, [], 2, "schedules by fair share"),
        ({}, ["compute.queue.share=research"], 2, "has no fair-share policy"),
    ],
)
def test_a_queue_that_cannot_take_the_job_says_why(cli, server, setup, sets, code, says):
    if setup or sets:
        sagemaker_queue(server, QUEUE, **setup)
    args = [a for s in sets for a in ("--set", s)]
    result = cli("submit", SMDDP, "--queue", QUEUE, *args)
    assert result.exit_code == code, result.output
    assert says in result.output
    assert not [op for op, _ in server.requests if op == "SubmitServiceJob"]


def test_access_denied_names_the_permissions(cli, server):
    sagemaker_queue(server, QUEUE)
    server.deny("DescribeJobQueues")
    result = cli("submit", SMDDP, "--queue", QUEUE)
    assert result.exit_code == 3
    assert "batch:SubmitServiceJob" in result.output and "access denied" in result.output


def test_a_failover_chain_and_a_queue_are_refused_together(cli, server):
    result = cli(
        "submit",
        SMDDP,
        "--queue",
        QUEUE,
        "--set",
        "compute.fallback=[{instance_type: ml.p5.48xlarge}]",
    )
    assert result.exit_code == 2
    assert "waits for capacity instead" in result.output
    assert not server.requests


def test_sweep_queue_puts_every_trial_on_the_queue_once_and_waits_for_them(
    cli, server, tmp_path, monkeypatch
):
    from sagelaunch.sweeps import queued
    from tests.aws.test_sweep import CONFIG

    sagemaker_queue(server, QUEUE)
    path = tmp_path / "sweep.yaml"
    path.write_text(json.dumps(CONFIG))  # JSON is YAML
    args = ["sweep", path, "--queue", QUEUE, "--idempotency-key", "sw-1", "-o", "json"]
    first = cli(*args)
    assert first.exit_code == 0, first.output
    trials = json.loads(first.stdout)["trials"]
    assert len(trials) == 4 and {t["status"] for t in trials} == {"Queued"}
    assert len(server.jobs) == 4 and not moto_jobs()  # nothing runs before the queue says so

    server.capacity(8)
    monkeypatch.setattr(queued, "POLL_S", 0.01)
    waited = cli(*args, "--wait")
    assert waited.exit_code == 0, waited.output
    rows = json.loads(waited.stdout)["trials"]
    assert {t["status"] for t in rows} == {"Completed"} and all(t["attached"] for t in rows)
    assert len(server.jobs) == 4  # the rerun queued nothing twice
    assert moto_jobs() == sorted(t["job_name"] for t in rows)


def moto_jobs() -> list[str]:
    listed = boto_client("sagemaker").list_training_jobs(MaxResults=100)["TrainingJobSummaries"]
    return sorted(job["TrainingJobName"] for job in listed)


@pytest.mark.parametrize(
    ("operation", "served"),
    [
        ("DescribeJobQueues", False),  # before anything (the code not uploaded yet)
        ("ListServiceJobs", False),  # the code uploaded, the job not yet submitted
        ("SubmitServiceJob", False),  # the submit on the wire, not arrived
        ("SubmitServiceJob", True),  # the job queued, its answer never back
    ],
)
def test_kill_9_at_each_step_of_a_queued_submit_then_a_rerun_makes_one_job(
    cli, server, plan_copy, operation, served
):
    import os
    import signal
    import subprocess
    import sys

    sagemaker_queue(server, QUEUE)
    held = server.hold(operation, served)
    command = [sys.executable, "-m", "sagelaunch", "submit", str(plan_copy), "--queue", QUEUE]
    first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert held.reached.wait(60), f"the submit never reached {operation}"
        os.kill(first.pid, signal.SIGKILL)
        first.wait(30)
    finally:
        held.release.set()
    assert len(server.jobs) == (1 if served else 0)
    again = cli("submit", plan_copy, "--queue", QUEUE, "-o", "json")
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["attached"] is served
    assert len(server.jobs) == 1


def test_logs_of_a_queued_job_say_it_waits_then_print_its_training_jobs(cli, server):
    from tests.aws.test_lifecycle import seed_logs

    sagemaker_queue(server, QUEUE)
    job = submit(cli, "logged")
    waiting = cli("logs", job["job_name"], "--queue", QUEUE)
    assert waiting.exit_code == 0, waiting.output
    assert "no training job started (RUNNABLE, place 1 in job queue ml-queue)" in waiting.output
    assert f"sagelaunch logs {job['job_name']} --queue {QUEUE} --follow" in waiting.output

    server.capacity(2)
    assert cli("wait", job["job_name"], "--queue", QUEUE).exit_code == 0
    seed_logs(job["job_name"])
    printed = cli("logs", job["job_name"], "--queue", QUEUE, "--host", "algo-2")
    assert printed.exit_code == 0, printed.output
    assert printed.stdout.splitlines() == ["[algo-2] step=1 host two", "[algo-2] step=2 host two"]
    followed = cli("logs", job["job_name"], "--queue", QUEUE, "--follow", "--host", "algo-1")
    assert followed.exit_code == 0, followed.output
    assert "[algo-1] done one" in followed.stdout and "[algo-2]" not in followed.stdout

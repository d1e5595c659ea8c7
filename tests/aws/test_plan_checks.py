"""Training plans checked before anything is uploaded, and what a job on one (or started from
instance preferences) ran on and cost, against moto behind the training-plans stand-in
(tests/aws/plans_proxy.py): the plans are the account's, bought from the proxy's offerings."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from tests.aws.conftest import BUCKET, SMDDP, boto_client, submitted, training_job
from tests.aws.plans_proxy import offering
from tests.aws.price_list import priced
from tests.config.conftest import PREFERRED

pytestmark = pytest.mark.integration

DESCRIBE_PLAN = "sagemaker:DescribeTrainingPlan"
WEEK_HOURS = 7 * 24


def bought(
    plans, name: str, instance_type: str, count: int, start_in_hours: int = -24, **options
) -> str:
    """A plan of the account, bought through the API from an offering that begins in
    ``start_in_hours`` (by default it began a day ago: it is Active; a week long, 12,096.00 USD
    unless ``options`` say otherwise); its ARN."""
    start = datetime.now(UTC) + timedelta(hours=start_in_hours)
    figures = {"upfront_fee": "12096.00", **options}
    plans.offerings.append(
        offering(f"tpo-{name}", instance_type, count, start, WEEK_HOURS, **figures)
    )
    answer = boto_client("sagemaker").create_training_plan(
        TrainingPlanName=name, TrainingPlanOfferingId=f"tpo-{name}"
    )
    plans.reset()  # the tests count only what sagelaunch sends
    return str(answer["TrainingPlanArn"])


def nothing_uploaded_or_created(plans) -> None:
    assert boto_client("s3").list_objects_v2(Bucket=BUCKET).get("KeyCount") == 0
    assert plans.forwarded["s3:PutObject"] == 0 and plans.created_names == []


def flat(text: str) -> str:
    return " ".join(text.split())


def test_a_job_on_an_expired_plan_is_refused_before_upload(cli, plans):
    arn = bought(plans, "p4d-week", "ml.p4d.24xlarge", 2)
    plans.set_status("p4d-week", "Expired")
    result = cli("submit", SMDDP, "--set", f"compute.training_plan={arn}")
    assert result.exit_code == 3, result.output
    output = flat(result.output)
    assert "training plan 'p4d-week' (compute.training_plan): it is Expired (window " in output
    assert "a training job runs only on a Scheduled or Active plan" in output
    assert "capacity search" in output  # the fix
    nothing_uploaded_or_created(plans)


@pytest.mark.parametrize(
    ("instance_type", "count", "options", "figures"),
    [
        (
            "ml.p5.48xlarge",
            2,
            {},
            "it reserves 2 × ml.p5.48xlarge, not the job's ml.p4d.24xlarge",
        ),
        (
            "ml.p4d.24xlarge",
            1,
            {},
            "it holds 1 × ml.p4d.24xlarge (1 available, 0 in use); the job asks 2",
        ),
        (
            "ml.p4d.24xlarge",
            2,
            {"target": "hyperpod-cluster"},
            "it reserves capacity for hyperpod-cluster (TargetResources), not training jobs",
        ),
    ],
    ids=["another-type", "fewer-instances", "hyperpod"],
)
def test_a_plan_that_cannot_hold_the_job_is_refused_with_its_figures(
    cli, plans, instance_type, count, options, figures
):
    arn = bought(plans, "the-plan", instance_type, count, **options)
    result = cli("submit", SMDDP, "--set", f"compute.training_plan={arn}")
    assert result.exit_code == 3, result.output
    assert figures in flat(result.output)
    nothing_uploaded_or_created(plans)


def test_a_plan_of_another_region_is_refused_without_describing_it(cli, plans):
    arn = bought(plans, "p4d-week", "ml.p4d.24xlarge", 2).replace("us-east-1", "eu-west-1")
    result = cli("submit", SMDDP, "--set", f"compute.training_plan={arn}")
    assert result.exit_code == 3, result.output
    assert "the plan is in eu-west-1, the job in us-east-1" in flat(result.output)
    assert plans.requests[DESCRIBE_PLAN] == 0
    nothing_uploaded_or_created(plans)


def test_a_plan_the_account_does_not_hold_is_refused_before_upload(cli, plans):
    arn = bought(plans, "p4d-week", "ml.p4d.24xlarge", 2).replace("p4d-week", "p4d-weak")
    result = cli("submit", SMDDP, "--set", f"compute.training_plan={arn}")
    assert result.exit_code == 3, result.output
    assert "training plan 'p4d-weak' (compute.training_plan): no such training plan in this " in (
        flat(result.output)
    )
    nothing_uploaded_or_created(plans)


def test_a_job_on_an_active_plan_is_created_with_its_arn(cli, plans):
    arn = bought(plans, "p4d-week", "ml.p4d.24xlarge", 2)
    result = cli("submit", SMDDP, "--set", f"compute.training_plan={arn}", "-o", "json")
    job = submitted(result)
    sent = boto_client("sagemaker").describe_training_job(TrainingJobName=job["job_name"])
    assert sent["ResourceConfig"]["TrainingPlanArn"] == arn
    assert plans.requests[DESCRIBE_PLAN] == 1 and plans.created_names == [job["job_name"]]
    assert "training plan" not in result.stderr  # nothing to say about a plan that fits


def test_a_scheduled_plan_says_when_it_starts_and_the_job_is_created(cli, plans):
    arn = bought(plans, "p4d-later", "ml.p4d.24xlarge", 2, start_in_hours=48)
    result = cli("submit", SMDDP, "--set", f"compute.training_plan={arn}", "-o", "json")
    job = submitted(result)
    assert plans.created_names == [job["job_name"]]
    said = flat(result.stderr)
    assert "training plan 'p4d-later' (compute.training_plan): it is Scheduled: it starts " in said
    assert "the job waits for it (compute.max_pending does not count that wait)" in said


def test_a_plan_that_ends_before_max_run_is_a_warning_and_the_job_is_created(cli, plans):
    arn = bought(plans, "p4d-ending", "ml.p4d.24xlarge", 2, start_in_hours=-WEEK_HOURS + 12)
    result = cli("submit", SMDDP, "--set", f"compute.training_plan={arn}", "-o", "json")
    job = submitted(result)
    assert plans.created_names == [job["job_name"]]
    said = flat(result.stderr)
    assert "training plan 'p4d-ending' (compute.training_plan): it ends " in said
    assert "(max_run 24 h): SageMaker terminates the plan's instances" in said


def test_a_plan_that_cannot_be_read_is_one_warning_and_the_job_goes_on(cli, plans):
    arn = bought(plans, "p4d-week", "ml.p4d.24xlarge", 2)
    plans.script(DESCRIBE_PLAN, "AccessDeniedException", "not authorized: DescribeTrainingPlan")
    result = cli("submit", SMDDP, "--set", f"compute.training_plan={arn}", "-o", "json")
    job = submitted(result)
    assert plans.created_names == [job["job_name"]]
    skipped = [line for line in result.stderr.splitlines() if "training plans not checked" in line]
    assert len(skipped) == 1 and "without the training-plan checks" in flat(result.stderr)


def test_plan_shows_the_plans_window_and_fee(cli, plans):
    arn = bought(plans, "p4d-week", "ml.p4d.24xlarge", 2)
    table = cli("plan", SMDDP, "--set", f"compute.training_plan={arn}")
    assert table.exit_code == 0, table.output
    line = next(x for x in table.stdout.splitlines() if x.startswith("training plan"))
    assert "p4d-week  Active · " in line and " UTC · 2 × ml.p4d.24xlarge " in line
    assert line.endswith("(2 available, 0 in use) · upfront fee 12,096.00 USD")
    as_json = cli("plan", SMDDP, "--set", f"compute.training_plan={arn}", "-o", "json")
    [shown] = json.loads(as_json.stdout)["training_plans"]["plans"]
    assert (shown["name"], shown["status"], shown["upfront_fee"]) == (
        "p4d-week",
        "Active",
        "12096.00",
    )
    assert shown["instances"] == {"ml.p4d.24xlarge": 2}


def test_plan_warns_of_a_plan_submit_would_refuse(cli, plans):
    arn = bought(plans, "p4d-week", "ml.p4d.24xlarge", 2)
    plans.set_status("p4d-week", "Expired")
    result = cli("plan", SMDDP, "--set", f"compute.training_plan={arn}", "-o", "json")
    assert result.exit_code == 0, result.output
    assert "warning: submit would refuse this job: training plan 'p4d-week'" in flat(result.stderr)
    [finding] = json.loads(result.stdout)["training_plans"]["findings"]
    assert (finding["severity"], finding["plan"]) == ("refuse", arn)
    strict = cli("plan", SMDDP, "--set", f"compute.training_plan={arn}", "--strict")
    assert strict.exit_code == 2


def test_plan_without_credentials_notes_once_that_plans_were_not_checked(cli, plans, monkeypatch):
    arn = bought(plans, "p4d-week", "ml.p4d.24xlarge", 2)
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name)
    result = cli("plan", SMDDP, "--set", f"compute.training_plan={arn}", "-o", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["request"]["ResourceConfig"]["TrainingPlanArn"] == arn
    notes = [line for line in result.stderr.splitlines() if "training plans not checked" in line]
    assert len(notes) == 1 and "no AWS credentials configured" in notes[0]
    assert plans.total() == 0


def preferences_config(tmp_path: Path, first_plan: str | None) -> Path:
    """tests/config's PREFERRED: p5 × 2 (on ``first_plan`` when given), else p4d × 4."""
    first, second = copy.deepcopy(PREFERRED["compute"]["instance_preferences"])
    first.pop("training_plans")
    if first_plan:
        first["training_plans"] = [first_plan]
    config = {**PREFERRED, "compute": {"instance_preferences": [first, second]}}
    path = tmp_path / "preferred.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def billed(name: str, seconds: int = 3600) -> None:
    """moto bills nothing itself: the job trained and was billed ``seconds``."""
    stored = training_job(name)
    stored.training_time_in_seconds = stored.billable_time_in_seconds = seconds


def test_status_and_cost_read_the_type_the_service_selected(cli, plans, tmp_path, monkeypatch):
    priced(monkeypatch, {("us-east-1", "ml.p4d.24xlarge"): "32.0"})
    plans.no_capacity = {"ml.p5.48xlarge"}  # the service moves on to the p4d preference
    config = preferences_config(tmp_path, None)
    job = submitted(cli("submit", config, "--idempotency-key", "sel-1", "-o", "json"))
    billed(job["job_name"])
    status = json.loads(cli("status", job["job_name"], "-o", "json").stdout)
    assert (status["instance_type"], status["instance_count"]) == ("ml.p4d.24xlarge", 4)
    assert status["cost"]["billed_as"] == "on demand"
    assert status["cost"]["usd"] == 32.0 * 4  # one hour of 4 p4d, not of 2 p5
    table = cli("status", job["job_name"]).stdout
    assert "4 × ml.p4d.24xlarge" in table


def test_a_plan_jobs_cost_is_its_share_of_the_plan(cli, plans, tmp_path):
    arn = bought(plans, "p5-week", "ml.p5.48xlarge", 2)
    config = preferences_config(tmp_path, arn)
    job = submitted(cli("submit", config, "--idempotency-key", "share-1", "-o", "json"))
    billed(job["job_name"])
    cost = json.loads(cli("status", job["job_name"], "-o", "json").stdout)["cost"]
    # 1 h × 2 instances of the plan's 2 × 168 h, of 12,096.00 USD: 72.00 USD.
    assert (cost["billed_as"], cost["training_plan"], cost["usd"]) == ("training plan", arn, 72.0)
    waited = cli("wait", job["job_name"])
    assert waited.exit_code == 0, waited.output
    line = flat(waited.output)
    assert "cost $72.00 (3,600 billable s; training plan p5-week: 7,200 of its 1,209,600" in line
    assert "not on-demand prices" in line


def test_metrics_read_every_host_of_the_selected_count(cli, plans, tmp_path):
    from tests.aws.test_metrics import put

    plans.no_capacity = {"ml.p5.48xlarge"}  # 4 × p4d run, not the first preference's 2 × p5
    config = preferences_config(tmp_path, None)
    name = submitted(cli("submit", config, "--idempotency-key", "hosts-1", "-o", "json"))[
        "job_name"
    ]
    stored = training_job(name)
    stored.algorithm_specification["MetricDefinitions"] = [
        {"Name": "train:loss", "Regex": "loss=([0-9.]+)"}
    ]
    start = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(minutes=10)
    stored.training_start_time, stored.training_end_time = start, start + timedelta(minutes=3)
    for host in ("algo-1", "algo-4"):
        put(name, host, "train:loss", [2.0], start)
    result = cli("metrics", name, "-o", "json")
    assert result.exit_code == 0, result.output
    hosts = {s["host"] for s in json.loads(result.stdout)["series"]}
    assert hosts == {"algo-1", "algo-4"}

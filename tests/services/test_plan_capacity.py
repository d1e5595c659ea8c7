"""The training-plan checks (services/plan_capacity.py) over DescribeTrainingPlan answers in the
API's own shape, and a plan job's cost after it ends (plan/cost.py): pure, no AWS."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from sagelaunch.services.plan_capacity import (
    PlanUse,
    findings,
    plan_uses,
    region_finding,
)

NOW = datetime(2030, 1, 6, 12, tzinfo=UTC)
ARN = "arn:aws:sagemaker:us-east-1:123456789012:training-plan/p5-week"
OTHER = "arn:aws:sagemaker:us-east-1:123456789012:training-plan/p4d-day"
CAPACITY = "arn:aws:sagemaker:us-east-1:123456789012:reserved-capacity/rc"
DAY = 24 * 3600


def described(
    status: str = "Active",
    instance_type: str = "ml.p5.48xlarge",
    total: int = 4,
    available: int | None = None,
    start: datetime = NOW - timedelta(days=1),
    hours: int = 7 * 24,
    target: str = "training-job",
) -> dict:
    """DescribeTrainingPlan's answer for one reserved capacity (the members the API names)."""
    end = start + timedelta(hours=hours)
    return {
        "TrainingPlanArn": ARN,
        "TrainingPlanName": "p5-week",
        "Status": status,
        "DurationHours": hours,
        "DurationMinutes": 0,
        "StartTime": start,
        "EndTime": end,
        "UpfrontFee": "12096.00",
        "CurrencyCode": "USD",
        "TotalInstanceCount": total,
        "AvailableInstanceCount": total if available is None else available,
        "InUseInstanceCount": total - (total if available is None else available),
        "TargetResources": [target],
        "ReservedCapacitySummaries": [
            {
                "ReservedCapacityArn": CAPACITY,
                "InstanceType": instance_type,
                "TotalInstanceCount": total,
                "Status": status,
                "AvailabilityZone": "us-east-1a",
                "DurationHours": hours,
                "DurationMinutes": 0,
                "StartTime": start,
                "EndTime": end,
            }
        ],
    }


JOB = PlanUse(ARN, "ml.p5.48xlarge", 4)


def found(plan: dict, use: PlanUse = JOB, max_run_s: int = DAY) -> list[tuple[str, str]]:
    return [(f.severity, str(f)) for f in findings(use, plan, max_run_s, NOW)]


def test_the_plans_are_read_from_the_request_job_level_and_per_preference():
    job_level = {
        "ResourceConfig": {
            "InstanceType": "ml.p5.48xlarge",
            "InstanceCount": 4,
            "TrainingPlanArn": ARN,
        }
    }
    assert plan_uses(job_level) == [PlanUse(ARN, "ml.p5.48xlarge", 4)]
    preferences = {
        "ResourceConfig": {
            "InstancePreferences": [
                {"InstanceType": "ml.p5.48xlarge", "InstanceCount": 4, "TrainingPlanArns": [ARN]},
                {"InstanceType": "ml.g5.48xlarge", "InstanceCount": 8},
                {
                    "InstanceType": "ml.p4d.24xlarge",
                    "InstanceCount": 8,
                    "TrainingPlanArns": [OTHER],
                },
            ]
        }
    }
    uses = plan_uses(preferences)
    assert uses == [
        PlanUse(ARN, "ml.p5.48xlarge", 4, 1),
        PlanUse(OTHER, "ml.p4d.24xlarge", 8, 3),
    ]
    assert uses[1].key == "compute.instance_preferences[2].training_plans"
    assert plan_uses({"ResourceConfig": {"InstanceType": "ml.p5.48xlarge"}}) == []


def test_an_active_plan_of_the_jobs_type_and_size_has_nothing_to_say():
    assert found(described()) == []


@pytest.mark.parametrize("status", ["Expired", "Failed", "Pending"])
def test_a_plan_neither_scheduled_nor_active_is_refused_with_its_window(status):
    [(severity, message)] = found(described(status=status))
    assert severity == "refuse"
    assert f"it is {status} (window 2030-01-05 12:00 → 2030-01-12 12:00 UTC" in message
    assert "'p5-week' (compute.training_plan)" in message


def test_a_plan_for_another_type_is_refused_naming_both():
    [(severity, message)] = found(described(instance_type="ml.p4d.24xlarge"))
    assert severity == "refuse"
    assert "it reserves 4 × ml.p4d.24xlarge, not the job's ml.p5.48xlarge" in message


def test_a_preference_is_checked_against_its_own_type_and_count():
    preference = PlanUse(ARN, "ml.p4d.24xlarge", 8, 3)
    [(severity, message)] = found(described(instance_type="ml.p4d.24xlarge"), preference)
    assert severity == "refuse"
    assert "compute.instance_preferences[2].training_plans" in message
    assert "it holds 4 × ml.p4d.24xlarge (4 available, 0 in use); the job asks 8" in message
    finding = findings(preference, described(instance_type="ml.p4d.24xlarge"), DAY, NOW)[0]
    assert "compute.instance_preferences[2].instance_count" in str(finding.hint)


def test_more_instances_than_the_plan_holds_is_refused_with_its_figures():
    [(severity, message)] = found(described(total=2))
    assert (severity, message.split(": ", 1)[1]) == (
        "refuse",
        "it holds 2 × ml.p5.48xlarge (2 available, 0 in use); the job asks 4",
    )


def test_instances_held_by_other_jobs_on_the_plan_make_the_job_wait_not_fail():
    [(severity, message)] = found(described(total=4, available=2))
    assert severity == "warn"
    assert "2 available, 2 in use; the job asks 4, so it waits" in message


def test_a_hyperpod_plan_is_refused():
    [(severity, message)] = found(described(target="hyperpod-cluster"))
    assert severity == "refuse"
    assert "it reserves capacity for hyperpod-cluster (TargetResources), not training jobs" in (
        message
    )


def test_a_plan_of_another_region_is_refused_from_its_arn():
    elsewhere = PlanUse(ARN.replace("us-east-1", "us-west-2"), "ml.p5.48xlarge", 4)
    finding = region_finding(elsewhere, "us-east-1")
    assert finding is not None and finding.severity == "refuse"
    assert "the plan is in us-west-2, the job in us-east-1" in str(finding)
    assert "--region us-west-2" in str(finding.hint)
    assert region_finding(JOB, "us-east-1") is None


def test_a_plan_that_ends_before_max_run_is_a_warning():
    # 6 days left; max_run 7 days: the job would still run when the plan's instances go.
    [(severity, message)] = found(described(), max_run_s=7 * DAY)
    assert severity == "warn"
    assert "it ends 2030-01-12 12:00 UTC" in message and "until 2030-01-13 12:00 UTC" in message
    # Termination starts 30 minutes before the end: a job due to end 10 minutes before it warns.
    six_days_less_10_min = 6 * DAY - 600
    assert [s for s, _ in found(described(), max_run_s=six_days_less_10_min)] == ["warn"]
    assert found(described(), max_run_s=6 * DAY - 1800) == []


def test_a_scheduled_plan_says_when_it_starts_and_counts_max_run_from_then():
    later = described(status="Scheduled", start=NOW + timedelta(days=2), hours=24)
    notes = found(later, max_run_s=12 * 3600)
    assert notes == [
        (
            "note",
            "training plan 'p5-week' (compute.training_plan): it is Scheduled: it starts "
            "2030-01-08 12:00 UTC (in 48 h), and the job waits for it (compute.max_pending does "
            "not count that wait)",
        )
    ]
    # From its start, a 2-day max_run outlasts a 1-day plan.
    assert [s for s, _ in found(later, max_run_s=2 * DAY)] == ["warn", "note"]


def plan_job(resources: dict, region: str = "us-east-1") -> dict:
    return {
        "TrainingJobArn": f"arn:aws:sagemaker:{region}:123456789012:training-job/j",
        "BillableTimeInSeconds": 3600,
        "ResourceConfig": resources,
    }


def test_a_plan_jobs_cost_is_its_share_of_the_plans_fee():
    from sagelaunch.commands.job_view import cost_line
    from sagelaunch.plan.cost import job_cost

    job = plan_job({"InstanceType": "ml.p5.48xlarge", "InstanceCount": 2, "TrainingPlanArn": ARN})
    cost = job_cost(job, {ARN: described()})
    assert cost is not None
    # 3,600 s × 2 instances of the plan's 4 × 168 h = 2,419,200 instance-seconds, of 12,096 USD.
    assert cost["billed_as"] == "training plan" and cost["training_plan"] == ARN
    assert cost["usd"] == round(7200 / 2_419_200 * 12096, 2) == 36.0
    assert cost_line(cost) == (
        "$36.00 (3,600 billable s; training plan p5-week: 7,200 of its 2,419,200 "
        "instance-seconds (0.30%) of its upfront fee of 12,096.00 USD), a share of the plan "
        "paid up front, not on-demand prices"
    )


def test_a_plan_job_whose_plan_was_not_described_has_no_on_demand_figure():
    from sagelaunch.plan.cost import job_cost

    job = plan_job({"InstanceType": "ml.p5.48xlarge", "InstanceCount": 2, "TrainingPlanArn": ARN})
    cost = job_cost(job)
    assert cost is not None and cost["usd"] is None and cost["billed_as"] == "training plan"
    assert "could not be described" in str(cost["note"])


def test_a_preferences_job_is_priced_as_the_selected_type_on_its_preferences_plan():
    from sagelaunch.plan.cost import job_cost

    listed = [
        {"InstanceType": "ml.p5.48xlarge", "InstanceCount": 4, "TrainingPlanArns": [ARN]},
        {"InstanceType": "ml.g5.xlarge", "InstanceCount": 2},
    ]
    on_plan = job_cost(
        plan_job(
            {
                "InstancePreferences": listed,
                "SelectedInstanceType": "ml.p5.48xlarge",
                "SelectedInstanceCount": 4,
            }
        ),
        {ARN: described()},
    )
    assert on_plan is not None and on_plan["usd"] == round(4 * 3600 / 2_419_200 * 12096, 2)
    on_demand = job_cost(
        plan_job(
            {
                "InstancePreferences": listed,
                "SelectedInstanceType": "ml.g5.xlarge",
                "SelectedInstanceCount": 2,
            },
            region="eu-west-1",
        )
    )
    # The shipped snapshot's eu-west-1 ml.g5.xlarge, 1.57 USD/h, × 2 instances × 1 h.
    assert on_demand is not None and on_demand["billed_as"] == "on demand"
    assert on_demand["usd"] == 3.14 and on_demand["prices_as_of"] == "2023-12-31"

"""aws.training_plans against the training-plans stand-in: a plan found by name or ARN, a
missing one as `PlanNotFound`, AWS's refusals as the other AWS errors, every page listed."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sagelaunch.aws import training_plans
from sagelaunch.aws.session import clients
from sagelaunch.errors import AwsError
from tests.aws.conftest import REGION
from tests.aws.plans_proxy import offering

pytestmark = pytest.mark.integration

START = datetime(2030, 1, 6, 12, tzinfo=UTC)


@pytest.fixture
def sagemaker(plans):
    plans.offerings = [offering("tpo-1", "ml.p5.48xlarge", 2, START, 24)]
    return clients(REGION).sagemaker  # the trimmed model: it must keep the plan operations


def test_a_plan_is_described_by_its_name_or_its_arn(sagemaker):
    arn = training_plans.create(sagemaker, "p5-week", "tpo-1")
    assert training_plans.describe(sagemaker, arn)["TrainingPlanName"] == "p5-week"
    assert training_plans.describe(sagemaker, "p5-week")["TrainingPlanArn"] == arn


def test_a_missing_plan_is_plan_not_found(sagemaker):
    with pytest.raises(training_plans.PlanNotFound, match="'nobody'") as excinfo:
        training_plans.describe(sagemaker, "arn:aws:sagemaker:us-east-1:1:training-plan/nobody")
    assert excinfo.value.exit_code == 3 and "capacity list" in (excinfo.value.hint or "")


@pytest.mark.parametrize(
    ("code", "said"),
    [("AccessDeniedException", "access denied"), ("ThrottlingException", "throttling")],
)
def test_refusals_are_mapped_as_other_aws_errors(plans, monkeypatch, code, said):
    # Two attempts, not the default's backoff over eight: the mapping is the point, not retries.
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "2")
    plans.script("sagemaker:DescribeTrainingPlan", code, "no", times=10)
    with pytest.raises(AwsError, match=said) as excinfo:
        training_plans.describe(clients(REGION).sagemaker, "p5-week")
    assert not isinstance(excinfo.value, training_plans.PlanNotFound)


def test_every_page_of_plans_is_listed(sagemaker, plans, monkeypatch):
    for name in ("a", "b", "c"):
        training_plans.create(sagemaker, name, "tpo-1")
    real = sagemaker.list_training_plans
    monkeypatch.setattr(sagemaker, "list_training_plans", lambda **q: real(MaxResults=1, **q))
    assert [p["TrainingPlanName"] for p in training_plans.list_plans(sagemaker)] == ["a", "b", "c"]
    assert plans.requests["sagemaker:ListTrainingPlans"] == 3

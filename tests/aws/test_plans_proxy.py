"""The training-plans stand-in (tests/aws/plans_proxy.py) holds to SageMaker's API: requests
checked against botocore's input shapes, answers valid for its output shapes, AWS's errors
(ResourceInUse, ResourceNotFound, ValidationException), and instance preferences run on the
first type with capacity."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from botocore.validate import ParamValidator

from tests.aws.capacity_proxy import CAPACITY_REASON
from tests.aws.conftest import ACCOUNT, BUCKET, REGION, boto_client
from tests.aws.plans_proxy import offering

pytestmark = pytest.mark.integration

START = datetime(2030, 1, 6, 12, tzinfo=UTC)
ROLE = f"arn:aws:iam::{ACCOUNT}:role/sagemaker"


@pytest.fixture
def sagemaker(plans):
    plans.offerings = [
        offering("tpo-p5-2", "ml.p5.48xlarge", 2, START, 24, upfront_fee="9000.00"),
        offering("tpo-p5-4", "ml.p5.48xlarge", 4, START, 48),
        offering("tpo-p4d", "ml.p4d.24xlarge", 2, START + timedelta(days=2), 24),
        offering("tpo-hp", "ml.p5.48xlarge", 2, START, 24, target="hyperpod-cluster"),
        offering(
            "tpo-gb200",
            "ml.p6e-gb200.36xlarge",
            18,
            START,
            24,
            ultraserver=("ml.u-p6e-gb200x36", 1),
            target="hyperpod-cluster",
        ),
    ]
    return boto_client("sagemaker")


def valid_answer(client, operation: str, answer: dict) -> dict:
    """``answer`` after checking it against the operation's output shape."""
    shape = client.meta.service_model.operation_model(operation).output_shape
    body = {k: v for k, v in answer.items() if k != "ResponseMetadata"}
    report = ParamValidator().validate(body, shape)
    assert not report.has_errors(), report.generate_report()
    return body


def error_of(excinfo) -> tuple[int, str]:
    response = excinfo.value.response
    return response["ResponseMetadata"]["HTTPStatusCode"], response["Error"]["Code"]


def test_search_answers_the_offerings_of_the_type_count_target_and_window(sagemaker):
    answer = sagemaker.search_training_plan_offerings(
        InstanceType="ml.p5.48xlarge",
        InstanceCount=2,
        TargetResources=["training-job"],
        StartTimeAfter=START - timedelta(hours=1),
        EndTimeBefore=START + timedelta(days=3),
    )
    found = valid_answer(sagemaker, "SearchTrainingPlanOfferings", answer)
    assert [o["TrainingPlanOfferingId"] for o in found["TrainingPlanOfferings"]] == ["tpo-p5-2"]
    capacity = found["TrainingPlanOfferings"][0]["ReservedCapacityOfferings"][0]
    assert (capacity["StartTime"], capacity["EndTime"]) == (START, START + timedelta(hours=24))
    assert found["TrainingPlanOfferings"][0]["UpfrontFee"] == "9000.00"
    late = sagemaker.search_training_plan_offerings(
        InstanceType="ml.p4d.24xlarge", EndTimeBefore=START + timedelta(days=1)
    )
    assert late["TrainingPlanOfferings"] == []


def test_ultraserver_offerings_carry_their_ultraserver_fields(sagemaker):
    answer = sagemaker.search_training_plan_offerings(
        UltraServerType="ml.u-p6e-gb200x36",
        UltraServerCount=1,
        TargetResources=["hyperpod-cluster"],
    )
    found = valid_answer(sagemaker, "SearchTrainingPlanOfferings", answer)
    (capacity,) = found["TrainingPlanOfferings"][0]["ReservedCapacityOfferings"]
    assert capacity["ReservedCapacityType"] == "UltraServer"
    assert (capacity["UltraServerType"], capacity["UltraServerCount"]) == ("ml.u-p6e-gb200x36", 1)


def test_a_plan_bought_is_described_and_listed_in_the_output_shapes(sagemaker, plans):
    arn = sagemaker.create_training_plan(
        TrainingPlanName="p5-week", TrainingPlanOfferingId="tpo-p5-2"
    )["TrainingPlanArn"]
    assert arn == f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:training-plan/p5-week"
    described = valid_answer(
        sagemaker,
        "DescribeTrainingPlan",
        sagemaker.describe_training_plan(TrainingPlanName="p5-week"),
    )
    assert described["Status"] == "Scheduled"  # it starts in 2030
    assert (described["TotalInstanceCount"], described["AvailableInstanceCount"]) == (2, 2)
    assert described["ReservedCapacitySummaries"][0]["InstanceType"] == "ml.p5.48xlarge"
    assert described["TargetResources"] == ["training-job"]
    plans.set_status("p5-week", "Active")
    listed = valid_answer(sagemaker, "ListTrainingPlans", sagemaker.list_training_plans())
    assert [(p["TrainingPlanName"], p["Status"]) for p in listed["TrainingPlanSummaries"]] == [
        ("p5-week", "Active")
    ]


def test_a_second_plan_of_one_name_is_refused_with_resource_in_use(sagemaker):
    sagemaker.create_training_plan(TrainingPlanName="p5-week", TrainingPlanOfferingId="tpo-p5-2")
    with pytest.raises(ClientError) as excinfo:
        sagemaker.create_training_plan(
            TrainingPlanName="p5-week", TrainingPlanOfferingId="tpo-p5-4"
        )
    assert error_of(excinfo) == (400, "ResourceInUse")


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.create_training_plan(TrainingPlanName="x", TrainingPlanOfferingId="tpo-none"),
        lambda c: c.describe_training_plan(TrainingPlanName="nothing"),
        lambda c: c.extend_training_plan(TrainingPlanExtensionOfferingId="tpeo-none"),
    ],
    ids=["unknown offering", "unknown plan", "unknown extension"],
)
def test_what_does_not_exist_is_resource_not_found(sagemaker, call):
    with pytest.raises(ClientError) as excinfo:
        call(sagemaker)
    assert error_of(excinfo) == (400, "ResourceNotFound")


def test_requests_are_checked_against_the_input_shape(sagemaker, plans):
    unchecked = boto_client_unvalidated()
    with pytest.raises(ClientError) as excinfo:
        unchecked.create_training_plan(TrainingPlanName="p5-week")  # no offering id
    assert error_of(excinfo) == (400, "ValidationException")
    assert "TrainingPlanOfferingId" in excinfo.value.response["Error"]["Message"]
    with pytest.raises(ClientError) as excinfo:
        unchecked.search_training_plan_offerings(InstanceCount="two")
    assert error_of(excinfo) == (400, "ValidationException")
    assert plans.plans == {}


def boto_client_unvalidated():
    import boto3

    return boto3.client("sagemaker", region_name=REGION, config=Config(parameter_validation=False))


def test_a_plan_is_extended_by_its_extension_offerings(sagemaker, plans):
    arn = sagemaker.create_training_plan(
        TrainingPlanName="p5-week", TrainingPlanOfferingId="tpo-p5-2"
    )["TrainingPlanArn"]
    plans.add_extension_offering("p5-week", "tpeo-1", hours=24)
    found = valid_answer(
        sagemaker,
        "SearchTrainingPlanOfferings",
        sagemaker.search_training_plan_offerings(TrainingPlanArn=arn),
    )
    assert [o["TrainingPlanExtensionOfferingId"] for o in found["TrainingPlanExtensionOfferings"]]
    made = valid_answer(
        sagemaker,
        "ExtendTrainingPlan",
        sagemaker.extend_training_plan(TrainingPlanExtensionOfferingId="tpeo-1"),
    )
    assert made["TrainingPlanExtensions"][0]["EndDate"] == START + timedelta(hours=48)
    history = valid_answer(
        sagemaker,
        "DescribeTrainingPlanExtensionHistory",
        sagemaker.describe_training_plan_extension_history(TrainingPlanArn=arn),
    )
    assert [e["TrainingPlanExtensionOfferingId"] for e in history["TrainingPlanExtensions"]] == [
        "tpeo-1"
    ]
    described = sagemaker.describe_training_plan(TrainingPlanName="p5-week")
    assert (described["EndTime"], described["DurationHours"]) == (START + timedelta(hours=48), 48)


def test_list_pages_by_max_results(sagemaker):
    for name in ("a", "b", "c"):
        sagemaker.create_training_plan(TrainingPlanName=name, TrainingPlanOfferingId="tpo-p5-2")
    first = sagemaker.list_training_plans(MaxResults=2)
    rest = sagemaker.list_training_plans(MaxResults=2, NextToken=first["NextToken"])
    names = [p["TrainingPlanName"] for p in first["TrainingPlanSummaries"]]
    names += [p["TrainingPlanName"] for p in rest["TrainingPlanSummaries"]]
    assert names == ["a", "b", "c"] and "NextToken" not in rest


def job_request(name: str, resources: dict) -> dict:
    return {
        "TrainingJobName": name,
        "AlgorithmSpecification": {
            "TrainingImage": f"{ACCOUNT}.dkr.ecr.{REGION}.amazonaws.com/train:1",
            "TrainingInputMode": "File",
        },
        "RoleArn": ROLE,
        "OutputDataConfig": {"S3OutputPath": f"s3://{BUCKET}/out"},
        "ResourceConfig": {"VolumeSizeInGB": 50, **resources},
        "StoppingCondition": {"MaxRuntimeInSeconds": 3600},
    }


def test_preferences_run_on_the_first_type_with_capacity(sagemaker, plans):
    arn = sagemaker.create_training_plan(
        TrainingPlanName="p5-week", TrainingPlanOfferingId="tpo-p5-2"
    )["TrainingPlanArn"]
    preferences = [
        {"InstanceType": "ml.p5.48xlarge", "InstanceCount": 2, "TrainingPlanArns": [arn]},
        {"InstanceType": "ml.p4d.24xlarge", "InstanceCount": 4},
    ]
    plans.no_capacity = {"ml.p5.48xlarge"}
    sagemaker.create_training_job(**job_request("prefs", {"InstancePreferences": preferences}))
    described = valid_answer(
        sagemaker,
        "DescribeTrainingJob",
        sagemaker.describe_training_job(TrainingJobName="prefs"),
    )
    resources = described["ResourceConfig"]
    assert resources["InstancePreferences"] == preferences
    assert (resources["SelectedInstanceType"], resources["SelectedInstanceCount"]) == (
        "ml.p4d.24xlarge",
        4,
    )
    assert "InstanceType" not in resources
    from tests.aws.conftest import training_job

    assert training_job("prefs").resource_config["InstanceType"] == "ml.p4d.24xlarge"  # moto's


def test_preferences_without_capacity_fail_the_job_as_the_service_does(sagemaker, plans):
    plans.no_capacity = {"ml.p5.48xlarge", "ml.p4d.24xlarge"}
    preferences = [{"InstanceType": t, "InstanceCount": 1} for t in sorted(plans.no_capacity)]
    sagemaker.create_training_job(**job_request("none", {"InstancePreferences": preferences}))
    described = sagemaker.describe_training_job(TrainingJobName="none")
    assert (described["TrainingJobStatus"], described["FailureReason"]) == (
        "Failed",
        CAPACITY_REASON,
    )
    assert "SelectedInstanceType" not in described["ResourceConfig"]


def test_a_job_on_a_plan_the_account_does_not_hold_is_refused(sagemaker, plans):
    unknown = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:training-plan/nobody"
    request = job_request(
        "planned",
        {"InstanceType": "ml.p5.48xlarge", "InstanceCount": 2, "TrainingPlanArn": unknown},
    )
    with pytest.raises(ClientError) as excinfo:
        sagemaker.create_training_job(**request)
    assert error_of(excinfo) == (400, "ValidationException")
    assert plans.forwarded["sagemaker:CreateTrainingJob"] == 0  # moto never saw it

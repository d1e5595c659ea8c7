"""SageMaker training plans (reserved capacity): offerings searched, a plan bought from one,
described, listed and extended, with its extension history.

Thin calls over SageMaker's training-plan API, botocore's exceptions translated as everywhere
(aws.errors). A plan that does not exist is `PlanNotFound`, not a generic AWS failure: callers
(a rerun of `capacity reserve`, the pre-upload check of `compute.training_plan`) tell "no such
plan" from "AWS said no".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError

from sagelaunch.aws.errors import is_already_exists, is_not_found, translated
from sagelaunch.errors import AwsError


class PlanNotFound(AwsError):
    """No training plan of that name in this account and region."""

    def __init__(self, name: str) -> None:
        super().__init__(
            f"no training plan named {name!r} in this account and region",
            hint="`sagelaunch capacity list` lists the plans there are; check the name, the "
            "ARN's region and --region",
        )
        self.name = name


class PlanNameTaken(AwsError):
    """CreateTrainingPlan of a name the account already has a plan of (ResourceInUse)."""


class OfferingNotFound(AwsError):
    """The offering is not (or no longer) offered: offerings are short-lived."""

    def __init__(self, offering_id: str) -> None:
        super().__init__(
            f"no training-plan offering {offering_id!r} (offerings expire soon after a search)",
            hint="search again and use an offering it lists: `sagelaunch capacity search "
            "CONFIG` (to reserve), `sagelaunch capacity extend PLAN` (to extend)",
        )


def plan_name(name_or_arn: str) -> str:
    """The plan's name: DescribeTrainingPlan takes a name, and an ARN's name is its last path
    segment (arn:aws:sagemaker:REGION:ACCOUNT:training-plan/NAME)."""
    return name_or_arn.rsplit("/", 1)[-1] if name_or_arn.startswith("arn:") else name_or_arn


@translated
def describe(sagemaker: Any, name_or_arn: str) -> dict[str, Any]:
    """DescribeTrainingPlan of a plan's name or ARN; `PlanNotFound` when there is none."""
    name = plan_name(name_or_arn)
    try:
        return dict(sagemaker.describe_training_plan(TrainingPlanName=name))
    except ClientError as exc:
        if is_not_found(exc):
            raise PlanNotFound(name) from None
        raise


@translated
def search_offerings(sagemaker: Any, **criteria: Any) -> list[dict[str, Any]]:
    """SearchTrainingPlanOfferings with ``criteria`` as the API names them (InstanceType,
    InstanceCount, DurationHours, StartTimeAfter, EndTimeBefore, TargetResources)."""
    found = sagemaker.search_training_plan_offerings(**criteria)
    return [dict(offering) for offering in found.get("TrainingPlanOfferings", [])]


@translated
def extension_offerings(sagemaker: Any, plan_arn: str) -> list[dict[str, Any]]:
    """The offerings that would extend the plan: SearchTrainingPlanOfferings by TrainingPlanArn
    answers them as TrainingPlanExtensionOfferings."""
    found = sagemaker.search_training_plan_offerings(TrainingPlanArn=plan_arn)
    return [dict(offering) for offering in found.get("TrainingPlanExtensionOfferings", [])]


@translated
def create(sagemaker: Any, name: str, offering_id: str) -> str:
    """CreateTrainingPlan from an offering; the new plan's ARN. A name already taken is
    `PlanNameTaken` (callers that reserve idempotently describe the plan there is), an offering
    gone `OfferingNotFound`."""
    try:
        answer = sagemaker.create_training_plan(
            TrainingPlanName=name, TrainingPlanOfferingId=offering_id
        )
    except ClientError as exc:
        if is_already_exists(exc):
            raise PlanNameTaken(f"a training plan named {name!r} already exists") from None
        if is_not_found(exc):
            raise OfferingNotFound(offering_id) from None
        raise
    return str(answer["TrainingPlanArn"])


def offered_instance_types(sagemaker: Any) -> tuple[str, ...]:
    """The instance types training plans offer (botocore's model: SearchTrainingPlanOfferings'
    InstanceType), to refuse another type before asking."""
    shape = sagemaker.meta.service_model.operation_model("SearchTrainingPlanOfferings")
    return tuple(shape.input_shape.members["InstanceType"].enum)


@translated
def list_plans(sagemaker: Any) -> list[dict[str, Any]]:
    """Every training plan's summary, all pages."""
    return _all_pages(sagemaker.list_training_plans, "TrainingPlanSummaries")


@translated
def extend(sagemaker: Any, extension_offering_id: str) -> list[dict[str, Any]]:
    """ExtendTrainingPlan by one of its extension offerings; the extensions it made
    (`OfferingNotFound` when the offering is gone)."""
    try:
        answer = sagemaker.extend_training_plan(
            TrainingPlanExtensionOfferingId=extension_offering_id
        )
    except ClientError as exc:
        if is_not_found(exc):
            raise OfferingNotFound(extension_offering_id) from None
        raise
    return [dict(extension) for extension in answer.get("TrainingPlanExtensions", [])]


@translated
def extension_history(sagemaker: Any, plan_arn: str) -> list[dict[str, Any]]:
    """DescribeTrainingPlanExtensionHistory, all pages: the plan's extensions so far."""
    return _all_pages(
        sagemaker.describe_training_plan_extension_history,
        "TrainingPlanExtensions",
        TrainingPlanArn=plan_arn,
    )


def _all_pages(
    call: Callable[..., dict[str, Any]], items: str, **query: Any
) -> list[dict[str, Any]]:
    """Every page's ``items``, following NextToken."""
    found: list[dict[str, Any]] = []
    while True:
        page = call(**query)
        found.extend(dict(item) for item in page.get(items, []))
        if not page.get("NextToken"):
            return found
        query["NextToken"] = page["NextToken"]

"""The training plans a billed job ran on, described: a plan's job costs its share of the
plan's upfront fee (plan.cost.job_cost), which needs the plan's instances and duration.

Advisory, like the other look-ups a report can do without: a plan that cannot be described
(gone, denied, unreachable) is left out, and the cost says its share is unknown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sagelaunch import resource_config
from sagelaunch.errors import AwsError

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients


def described(aws: Clients, job: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """ARN -> DescribeTrainingPlan of each plan the job ran on; none before it is billed."""
    if job.get("BillableTimeInSeconds") is None:
        return {}
    from sagelaunch.aws import training_plans

    found: dict[str, dict[str, Any]] = {}
    for arn in resource_config.running_plans(job.get("ResourceConfig", {})):
        try:
            found[arn] = training_plans.describe(aws.advisory("sagemaker"), arn)
        except AwsError:
            continue
    return found

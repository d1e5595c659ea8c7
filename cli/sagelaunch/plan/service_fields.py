"""What the service documents and the SDK v2 estimator cannot build, laid over its request.

SDK v2 2.257 has no argument for ResourceConfig.InstancePreferences or
StoppingCondition.MaxPendingTimeInSeconds (SDK v3's ModelTrainer builds both). A config that sets
them gets the SDK's request with these members as the API reference states them, and the result
is validated against botocore's model like the SDK's own: the request `plan` shows is the one
`submit` sends. A config that sets neither gets the SDK's request unchanged.
"""

from __future__ import annotations

import copy
from typing import Any

from sagelaunch.config.model import LaunchConfig


def added(config: LaunchConfig) -> list[str]:
    """The request members this config sets that the SDK v2 estimator cannot build."""
    compute = config.compute
    return [
        member
        for member, wanted in (
            ("ResourceConfig.InstancePreferences", compute.instance_preferences),
            ("StoppingCondition.MaxPendingTimeInSeconds", compute.max_pending),
        )
        if wanted
    ]


def with_service_fields(config: LaunchConfig, definition: dict[str, Any]) -> dict[str, Any]:
    """``definition`` (a CreateTrainingJob request, or a tuning job's training definition) with
    the members of ``added`` set; the SDK's request itself is not changed."""
    if not added(config):
        return definition
    laid = copy.deepcopy(definition)
    compute = config.compute
    if compute.instance_preferences:
        resources = laid.setdefault("ResourceConfig", {})
        # Exclusive of InstanceType (ResourceConfig); the count is each preference's.
        resources.pop("InstanceType", None)
        resources.pop("InstanceCount", None)
        resources["InstancePreferences"] = [p.as_request() for p in compute.instance_preferences]
    if compute.max_pending:
        laid.setdefault("StoppingCondition", {})["MaxPendingTimeInSeconds"] = compute.max_pending
    return laid

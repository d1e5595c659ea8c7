"""Flexible instance selection and UltraServer placement: `compute.instance_preferences` and
`compute.placement` (ResourceConfig.InstancePreferences and InstancePlacementConfig).

With preferences, SageMaker starts the job on the first type in the list that has capacity
(each type with its own count and training plans) and reports the one it chose in
DescribeTrainingJob (SelectedInstanceType, SelectedInstanceCount). As with instance groups,
``compute.instance_type`` and ``compute.instance_count`` are then *derived*: they describe the
first preference, so every rule, the image, the topology and a local run read the type the
service tries first. The request sends the preferences instead of InstanceType/InstanceCount
(plan/service_fields.py), which the API makes exclusive ("InstancePreferences is mutually
exclusive with InstanceType, InstanceGroups, InstancePlacementConfig, and
EnableManagedSpotTraining": ResourceConfig, botocore's model); the rules on the other exclusions
are in checks/rules/reserved.py.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from sagelaunch.catalog.api_limits import limit
from sagelaunch.config.instance_groups import with_instances, written_instance_keys
from sagelaunch.strict import Strict

_RESOURCES = "CreateTrainingJob.ResourceConfig."
_PREFERENCES = limit(_RESOURCES + "InstancePreferences")
# Why a preferences config names no instance_type of its own (the API's fact, quoted above).
EXCLUSIVE = (
    "the API makes InstancePreferences exclusive of InstanceType (ResourceConfig): the "
    "first preference is the type the job is planned on"
)


class InstancePreference(Strict):
    """One entry of ResourceConfig.InstancePreferences, in priority order."""

    instance_type: str = Field(description="Instance type, e.g. ml.p5.48xlarge.")
    instance_count: int = Field(1, ge=1, description="Number of instances of this type.")
    training_plans: list[str] = Field(
        default_factory=list,
        description="Training plan ARNs whose reserved capacity this type runs on (none: on "
        "demand); each plan's instance type must be this one.",
    )

    def as_request(self) -> dict[str, Any]:
        """The API's InstancePreference."""
        request: dict[str, Any] = {
            "InstanceType": self.instance_type,
            "InstanceCount": self.instance_count,
        }
        if self.training_plans:
            request["TrainingPlanArns"] = list(self.training_plans)
        return request


class PlacementSpecification(Strict):
    """ResourceConfig.InstancePlacementConfig.PlacementSpecifications[] (the API's names)."""

    UltraServerId: str | None = Field(
        None, description="The UltraServer to place these instances on (unset: any)."
    )
    # "Minimum value of 1" (the member's documentation; the shape's minimum is 0).
    InstanceCount: int = Field(
        ge=1, description="Instances placed together on this UltraServer (at least 1)."
    )


class Placement(Strict):
    """ResourceConfig.InstancePlacementConfig (the API's names): UltraServer capacity only."""

    EnableMultipleJobs: bool | None = Field(
        None,
        description="true: other jobs may share this job's UltraServers (the API's default: "
        "false, the UltraServers are this job's alone).",
    )
    PlacementSpecifications: list[PlacementSpecification] | None = Field(
        None,
        description="Which UltraServers the instances go on, and how many on each.",
    )

    def as_request(self) -> dict[str, Any]:
        """The API's InstancePlacementConfig, as the SDK passes it through."""
        return self.model_dump(exclude_none=True)


# At least one (the model's minimum: with none the job names no instance); the most, the model's
# too, is checks/request_limits', with the service's own message.
PREFERENCES_BOUNDS = {"min_length": _PREFERENCES.min}


def derive_from_preferences(data: Any) -> Any:
    """The raw config with ``compute.instance_type/instance_count`` filled from the first
    preference when ``compute.instance_preferences`` is given (see the module docstring).
    Writing either of them too, or instance groups, is an error the loader shows at
    ``compute``."""
    if not isinstance(data, dict) or not isinstance(data.get("compute"), dict):
        return data
    compute = data["compute"]
    preferences = compute.get("instance_preferences")
    if preferences is None:
        return data
    if compute.get("groups") is not None:
        raise ValueError(
            "compute sets both instance_preferences and groups: the API makes "
            "InstancePreferences exclusive of InstanceGroups (ResourceConfig); give one"
        )
    both = written_instance_keys(compute)
    if both:
        raise ValueError(
            f"compute sets both instance_preferences and {' and '.join(both)}: {EXCLUSIVE}; "
            f"drop compute.{both[0]} (each preference has its own instance_count)"
        )
    first = preferences[0] if isinstance(preferences, list) and preferences else None
    if not isinstance(first, dict):
        return data  # an empty or malformed list: the model reports it there
    return with_instances(data, first)

"""Which instances a ResourceConfig names: one reading for a planned request and a job's
description alike.

A request names its instances three ways: InstanceType/InstanceCount, InstanceGroups, or
InstancePreferences (the service starts the job on the first type with capacity). A job's
description adds, for preferences, what the service chose: SelectedInstanceType and
SelectedInstanceCount, which are what runs and what is billed.
"""

from __future__ import annotations

from typing import Any


def preferences(resources: dict[str, Any]) -> list[tuple[str, int]]:
    """The (type, count) of each instance preference, in priority order (none: [])."""
    return [
        (str(p["InstanceType"]), int(p.get("InstanceCount", 1)))
        for p in resources.get("InstancePreferences") or []
    ]


def planned(resources: dict[str, Any]) -> tuple[str | None, int]:
    """(type, count) the job is planned on: InstanceType, else the first preference (None for
    instance groups, whose types are each group's)."""
    if resources.get("InstanceType"):
        return str(resources["InstanceType"]), int(resources.get("InstanceCount", 1))
    listed = preferences(resources)
    return listed[0] if listed else (None, int(resources.get("InstanceCount", 1)))


def running(resources: dict[str, Any]) -> tuple[str | None, int]:
    """(type, count) a described job runs on: the service's selection where it made one, else
    the planned type."""
    if resources.get("SelectedInstanceType"):
        count = resources.get("SelectedInstanceCount") or planned(resources)[1]
        return str(resources["SelectedInstanceType"]), int(count)
    return planned(resources)


def training_plans(resources: dict[str, Any]) -> list[str]:
    """Every training plan ARN a request names, once each in order: the job-level
    TrainingPlanArn, then each preference's TrainingPlanArns."""
    named = [resources.get("TrainingPlanArn")] + [
        arn
        for p in resources.get("InstancePreferences") or []
        for arn in p.get("TrainingPlanArns") or []
    ]
    return list(dict.fromkeys(arn for arn in named if arn))


def running_plans(resources: dict[str, Any]) -> list[str]:
    """The training plans a described job runs on: its TrainingPlanArn, else those of the
    preference the service selected ([]: on demand, or not selected yet)."""
    if resources.get("TrainingPlanArn"):
        return [str(resources["TrainingPlanArn"])]
    selected = resources.get("SelectedInstanceType")
    chosen = [
        p for p in resources.get("InstancePreferences") or [] if p["InstanceType"] == selected
    ]
    return [str(arn) for arn in chosen[0].get("TrainingPlanArns") or []] if chosen else []

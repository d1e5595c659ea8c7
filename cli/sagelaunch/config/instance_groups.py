"""Heterogeneous clusters: `compute.groups`, `distribution.groups`, `inputs.<name>.groups`.

A job either names one instance type and count (`compute.instance_type/instance_count`) or lists
instance groups (`compute.groups`, the SDK's ``instance_groups=[InstanceGroup(...)]``). With
groups, ``compute.instance_type`` and ``compute.instance_count`` are *derived*: they describe the
training group (the one `distribution.groups` names, else the only or first group), so every rule
that asks "which instance trains?" reads the group that runs the launcher, as the SDK's own
``validate_distribution`` does ("per-instance-type validation then runs on that group's type").
Which key the user wrote is kept in ``Compute.groups``; nothing else needs to know.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from sagelaunch.strict import Strict

# The container's group name for a job without instance groups (resourceconfig.json).
HOMOGENEOUS = "homogeneousCluster"


class InstanceGroup(Strict):
    """One instance group (``sagemaker.instance_group.InstanceGroup``)."""

    name: str = Field(description="Group name (1-64 characters), e.g. data_group or dnn_group.")
    instance_type: str = Field(description="Instance type of this group, e.g. ml.c5.9xlarge.")
    # At least 1 (a group runs on its hosts); no most: the model states none (InstanceGroup's
    # InstanceCount, whose model minimum is 0), an account's instances are its quotas'.
    instance_count: int = Field(1, ge=1, description="Number of hosts in this group.")


class ChannelGroups(Strict):
    """Mixin for channels: which groups receive the channel."""

    groups: list[str] | None = Field(
        None,
        description="With compute.groups: the instance groups whose hosts receive this channel "
        "(TrainingInput(instance_groups=...)); default: every host.",
    )


def derive_compute(data: Any) -> Any:
    """The raw config with ``compute.instance_type/instance_count`` filled from the training
    group when ``compute.groups`` is given (see the module docstring). Giving both is an error,
    raised where the loader points at ``compute``."""
    if not isinstance(data, dict) or not isinstance(data.get("compute"), dict):
        return data
    compute = data["compute"]
    groups = compute.get("groups")
    if groups is None:
        return data
    both = written_instance_keys(compute)
    if both:
        raise ValueError(
            f"compute sets both groups and {' and '.join(both)}: give compute.groups (one "
            "entry per instance group) or compute.instance_type/instance_count, not both"
        )
    chosen = _training_entry(groups, data.get("distribution"))
    if chosen is None:
        return data  # an empty or malformed list: the model reports it at compute.groups
    return with_instances(data, chosen)


def written_instance_keys(compute: dict[str, Any]) -> list[str]:
    """Which of instance_type/instance_count the raw ``compute`` sets (`null`, from an
    `extends:` override or `--set compute.instance_type=null`, unsets a key)."""
    return [key for key in ("instance_type", "instance_count") if compute.get(key) is not None]


def with_instances(data: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    """``data`` with compute.instance_type/instance_count read from ``entry`` (a group, a
    preference): the derived keys every rule reads."""
    filled = {
        **data["compute"],
        "instance_type": entry.get("instance_type"),
        "instance_count": entry.get("instance_count", 1),
    }
    return {**data, "compute": filled}


def _training_entry(groups: Any, distribution: Any) -> dict[str, Any] | None:
    entries = [g for g in groups if isinstance(g, dict)] if isinstance(groups, list) else []
    if not entries:
        return None
    named = distribution.get("groups") if isinstance(distribution, dict) else None
    if isinstance(named, list) and named:
        for entry in entries:
            if entry.get("name") == named[0]:
                return entry
    return entries[0]

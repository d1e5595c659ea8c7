"""Heterogeneous-cluster rules: the API's limits on instance groups and the SDK's own checks of
``distribution["instance_groups"]`` (``fw_utils.validate_distribution``), before AWS is touched."""

from __future__ import annotations

from collections.abc import Iterator

from sagelaunch.catalog import api_limits
from sagelaunch.checks.rules.registry import error, rule
from sagelaunch.checks.rules.resources import INSTANCE_TYPE
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.errors import Problem
from sagelaunch.strategies import registry


def _group_names(loaded: LoadedConfig) -> list[str]:
    return [g.name for g in loaded.config.compute.groups or []]


@rule
def instance_group_count(loaded: LoadedConfig) -> Iterator[Problem]:
    """ResourceConfig.InstanceGroups holds at most 5 groups (the API's limit)."""
    groups = loaded.config.compute.groups or []
    _, most = api_limits.bounds("InstanceGroups")
    if len(groups) > most:
        yield error(
            loaded,
            ("compute", "groups"),
            f"{len(groups)} instance groups: the API allows at most {most}; merge groups of "
            "the same instance type",
        )


@rule
def instance_group_names(loaded: LoadedConfig) -> Iterator[Problem]:
    """Group names are 1-64 characters (InstanceGroupName) and must differ from each other."""
    least, most = api_limits.bounds("InstanceGroupName")
    seen: set[str] = set()
    for index, name in enumerate(_group_names(loaded)):
        where = ("compute", "groups", index, "name")
        if not least <= len(name) <= most:
            yield error(loaded, where, f"group names have {least}-{most} characters")
        elif name in seen:
            yield error(loaded, where, f"group {name!r} is defined twice: names must differ")
        seen.add(name)


@rule
def distribution_groups(loaded: LoadedConfig) -> Iterator[Problem]:
    """The SDK's rules for distribution["instance_groups"]: only with estimator groups, exactly
    one group when there are several ("Distribution should only contain one instance group
    name"), and a group that exists."""
    config = loaded.config
    named = getattr(config.distribution, "groups", None)
    defined = _group_names(loaded)
    where = ("distribution", "groups")
    if named is not None and not defined:
        yield error(loaded, where, "distribution.groups needs compute.groups (the SDK refuses it)")
    elif named is not None and len(named) != 1:
        yield error(
            loaded,
            where,
            "name exactly one group: the SDK runs the distributed launcher on one instance group",
        )
    elif named:
        if named[0] not in defined:
            yield error(loaded, where, f"no group {named[0]!r}; groups: {', '.join(defined)}")
    elif len(defined) > 1 and registry.distributed(config):
        yield error(
            loaded,
            ("distribution", "strategy"),
            f"{config.distribution.strategy} with {len(defined)} instance groups: set "
            "distribution.groups to the one group that trains (the SDK refuses the job without)",
        )


@rule
def channel_groups(loaded: LoadedConfig) -> Iterator[Problem]:
    """A channel names at most 5 groups (S3DataSource.InstanceGroupNames), groups that exist,
    only with compute.groups, and only for S3 channels (FileSystemInput has no groups)."""
    defined = _group_names(loaded)
    _, most = api_limits.bounds("InstanceGroupNames")
    for name, channel in loaded.config.inputs.items():
        if channel.groups is None:
            continue
        where = ("inputs", name, "groups")
        unknown = [g for g in channel.groups if g not in defined]
        if not defined:
            yield error(loaded, where, "channel groups need compute.groups")
        elif channel.file_system is not None:
            yield error(loaded, where, "file-system channels go to every host: remove groups")
        elif len(channel.groups) > most:
            yield error(loaded, where, f"at most {most} groups per channel (the API's limit)")
        elif unknown:
            yield error(loaded, where, f"no group {unknown[0]!r}; groups: {', '.join(defined)}")


@rule
def groups_with_checkpoint_and_debugger(loaded: LoadedConfig) -> Iterator[Problem]:
    """The SDK v2 framework estimator fails on instance groups + checkpoints + the debugger hook:
    ``Framework._validate_and_set_debugger_configs`` compares ``instance_count`` (None with
    groups) to 1 and raises a TypeError. Turning the hook off is what the SDK would do anyway
    (it disables the hook for distributed jobs with checkpoints)."""
    config = loaded.config
    if config.compute.groups and config.checkpoint and config.debugger is not False:
        yield error(
            loaded,
            ("debugger",) if "debugger" in loaded.document.data else ("checkpoint",),
            "the SageMaker SDK fails on instance groups + checkpoint + the debugger hook "
            "(it compares instance_count, None with groups, to 1): set debugger: false",
        )


@rule
def group_instance_types(loaded: LoadedConfig) -> Iterator[Problem]:
    """Each group's instance type is ml.<family>.<size> (the API refuses others). The training
    group's is also compute.instance_type, which instance_type_known checks; this rule covers
    every group, at the group's own line."""
    for index, group in enumerate(loaded.config.compute.groups or []):
        if not INSTANCE_TYPE.match(group.instance_type):
            yield error(
                loaded,
                ("compute", "groups", index, "instance_type"),
                f"{group.instance_type!r} is not a SageMaker instance type (e.g. ml.c5.9xlarge)",
            )

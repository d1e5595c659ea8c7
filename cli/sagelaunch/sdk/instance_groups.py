"""Heterogeneous clusters through the SDK's own classes: ``instance_groups=[InstanceGroup(...)]``,
``distribution["instance_groups"]`` and ``TrainingInput(instance_groups=[...])``.

One deliberate difference from the SDK's request, and only one: with ``torch_distributed`` the
SDK accepts ``distribution["instance_groups"]`` and drops it (it writes
``sagemaker_distribution_instance_groups`` only for ``mpi`` and ``smdistributed``). The container
then counts every host's own group as a distribution group and starts torchrun on the data hosts
too, each group its own world (``sagemaker_training.environment`` and the PyTorch container's
``training.py``). So for that case sagelaunch writes the hyperparameter itself, the value the SDK
writes for ``mpi``, and `plan` says so in a note.
"""

from __future__ import annotations

from typing import Any

from sagelaunch.config.model import Channel, LaunchConfig
from sagelaunch.sdk.objects import call

INSTANCE_GROUP = "sagemaker.instance_group.InstanceGroup"
HYPERPARAMETER = "sagemaker_distribution_instance_groups"


def apply(config: LaunchConfig, kwargs: dict[str, Any]) -> None:
    """instance_groups instead of instance_type/instance_count; the training group in the
    distribution (and, where the SDK drops it, in the hyperparameters)."""
    groups = config.compute.groups
    if not groups:
        return
    described = {
        g.name: call(
            INSTANCE_GROUP,
            instance_group_name=g.name,
            instance_type=g.instance_type,
            instance_count=g.instance_count,
        )
        for g in groups
    }
    kwargs.pop("instance_type", None)
    kwargs.pop("instance_count", None)
    kwargs["instance_groups"] = list(described.values())
    named = getattr(config.distribution, "groups", None)
    distribution = kwargs.get("distribution")
    if not named or distribution is None:
        return
    distribution["instance_groups"] = [described[name] for name in named]
    if sdk_drops_groups(distribution):
        kwargs.setdefault("hyperparameters", {})[HYPERPARAMETER] = list(named)


def sdk_drops_groups(distribution: dict[str, Any]) -> bool:
    """torch_distributed without smdistributed: the PyTorch estimator never calls
    ``_distribution_configuration``, which alone writes the training group."""
    return "torch_distributed" in distribution and "smdistributed" not in distribution


def channel_groups(channel: Channel) -> dict[str, Any]:
    return {"instance_groups": list(channel.groups)} if channel.groups else {}


def notes(config: LaunchConfig, kwargs: dict[str, Any]) -> list[str]:
    """What `plan` tells the user about the request it built for groups."""
    named = kwargs.get("hyperparameters", {}).get(HYPERPARAMETER)
    if not named:
        return []
    return [
        f"hyperparameter {HYPERPARAMETER}={named} is written by sagelaunch, not the SDK: "
        "the SDK drops distribution['instance_groups'] for torchrun, and the container would "
        "then start torchrun on every group; with it, only that group runs torchrun"
    ]

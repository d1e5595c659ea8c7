"""What each distribution strategy turns into on SageMaker: which launcher the container runs."""

from __future__ import annotations

from sagelaunch.config import facts
from sagelaunch.config.model import LaunchConfig


def smp_version(config: LaunchConfig) -> int | None:
    """1 or 2 for strategy smp (2 by default), else None."""
    distribution = config.distribution
    if distribution.strategy != "smp":
        return None
    return distribution.smp.version if distribution.smp else 2


def is_smp_v2(config: LaunchConfig) -> bool:
    return smp_version(config) == 2


def smddp_with_torchrun(config: LaunchConfig) -> bool:
    """SMDDP on p5-class instances runs under torchrun (the SDK refuses smdistributed there
    without torch_distributed)."""
    instances = facts.load("instances")["smddp_with_torchrun"]
    return (
        config.framework == "pytorch"
        and config.distribution.strategy == "smddp"
        and config.compute.instance_type in instances
    )


def uses_torch_distributed(config: LaunchConfig) -> bool:
    """Whether the request enables torch_distributed (torchrun in the container)."""
    strategy = config.distribution.strategy
    return strategy == "torchrun" or is_smp_v2(config) or smddp_with_torchrun(config)

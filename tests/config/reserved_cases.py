"""Rule cases for instance preferences and UltraServer placement (merged into
test_rules.CASES): rule -> (overrides that make it fire, message fragment, overrides where it
stays quiet)."""

from __future__ import annotations

from typing import Any


def preferring(*types: tuple[str, int], **compute: Any) -> dict[str, Any]:
    """A config with compute.instance_preferences instead of instance_type/instance_count."""
    listed = [{"instance_type": t, "instance_count": c} for t, c in types]
    return {
        "compute": {
            "instance_type": None,
            "instance_count": None,
            "instance_preferences": listed,
            **compute,
        }
    }


P4D, P5, G5 = ("ml.p4d.24xlarge", 2), ("ml.p5.48xlarge", 2), ("ml.g5.2xlarge", 1)
SMP = {"distribution": {"strategy": "smp"}}
GB200 = {"instance_type": "ml.p6e-gb200.36xlarge", "instance_count": 2}

RESERVED_CASES = {
    "preferences_exclusions": (
        preferring(P4D, P5, spot={"max_wait": "30h"}),
        "exclusive of EnableManagedSpotTraining",
        preferring(P4D, P5),
    ),
    "preferences_share_an_image": (
        preferring(G5, ("ml.c5.xlarge", 1)),
        "the job sends one image for every preference",
        preferring(G5, ("ml.g5.4xlarge", 1)),
    ),
    "preferences_each_valid": (
        {**preferring(P4D, G5), **SMP},
        "on 1 × ml.g5.2xlarge (preference 2), compute.instance_type:",
        {**preferring(P4D, P5), **SMP},
    ),
    "placement_on_ultraserver": (
        {"compute": {"placement": {"PlacementSpecifications": [{"InstanceCount": 1}]}}},
        "no UltraServer is made of ml.g5.2xlarge",
        {"compute": {**GB200, "placement": {"PlacementSpecifications": [{"InstanceCount": 2}]}}},
    ),
}

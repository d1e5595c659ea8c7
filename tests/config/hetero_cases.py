"""Rule cases for instance groups and Debugger/Profiler rules (merged into test_rules.CASES):
rule -> (overrides that make it fire, message fragment, overrides where it stays quiet)."""

from __future__ import annotations

from typing import Any


def grouped(*groups: tuple[str, str, int], **over: Any) -> dict[str, Any]:
    """A config with compute.groups instead of instance_type/instance_count."""
    compute = {
        "instance_type": None,
        "instance_count": None,
        "groups": [{"name": n, "instance_type": t, "instance_count": c} for n, t, c in groups],
    }
    return {"compute": compute, **over}


DATA = ("data_group", "ml.c5.9xlarge", 1)
DNN = ("dnn_group", "ml.p4d.24xlarge", 2)
TORCHRUN_DNN = {"strategy": "torchrun", "groups": ["dnn_group"]}
SIX = [(f"g{i}", "ml.c5.xlarge", 1) for i in range(6)]

HETERO_CASES = {
    "instance_group_count": (grouped(*SIX), "the API allows at most 5", grouped(*SIX[:5])),
    "instance_group_names": (
        grouped(("x" * 65, "ml.c5.xlarge", 1)),
        "1-64 characters",
        grouped(("x" * 64, "ml.c5.xlarge", 1)),
    ),
    "distribution_groups": (
        grouped(DATA, DNN, distribution={"strategy": "torchrun"}),
        "set distribution.groups to the one group that trains",
        grouped(DATA, DNN, distribution=TORCHRUN_DNN),
    ),
    "channel_groups": (
        grouped(DATA, DNN, inputs={"train": {"uri": "s3://b/t/", "groups": ["cpu_group"]}}),
        "no group 'cpu_group'",
        grouped(DATA, DNN, inputs={"train": {"uri": "s3://b/t/", "groups": ["data_group"]}}),
    ),
    "groups_with_checkpoint_and_debugger": (
        grouped(DATA, checkpoint={"s3_uri": "s3://b/c/"}),
        "set debugger: false",
        grouped(DATA, checkpoint={"s3_uri": "s3://b/c/"}, debugger=False),
    ),
    "group_instance_types": (
        grouped(("cpu", "c5.xlarge", 1), DNN, distribution=TORCHRUN_DNN),
        "'c5.xlarge' is not a SageMaker instance type",
        grouped(DATA, DNN, distribution=TORCHRUN_DNN),
    ),
    "builtin_rule_names": (
        {"debugger": {"rules": ["ProfilerReport"]}},
        "is a Profiler rule: list it under profiler.rules",
        {"debugger": {"rules": ["loss_not_decreasing"]}, "profiler": {"rules": ["ProfilerReport"]}},
    ),
    "rule_count": (
        {"debugger": {"rules": ["loss_not_decreasing"] * 21}},
        "at most 20 rules",
        {"debugger": {"rules": ["loss_not_decreasing"] * 20}},
    ),
}

"""`import` maps instance groups, rules, hook, TensorBoard, experiments and the other issue-22
fields back: the config that sets every key (conftest.EVERYTHING) plans, imports and plans back to
the same request; the imported config says it the way the user wrote it."""

from __future__ import annotations

import pytest
import yaml

from sagelaunch.translate.import_extras import Unmappable
from sagelaunch.translate.importer import import_request
from tests.golden.regenerate import GOLDEN, golden_plan, unordered


def test_everything_round_trips(tmp_path, everything_plan):
    original = everything_plan["request"]
    imported = import_request(original, source_dir=str(GOLDEN / "source"))
    assert imported["compute"]["groups"][1] == {
        "name": "dnn_group",
        "instance_type": "ml.p5.48xlarge",
        "instance_count": 2,
    }
    assert "instance_type" not in imported["compute"]
    assert imported["distribution"] == {"strategy": "torchrun", "groups": ["dnn_group"]}
    assert "sagemaker_distribution_instance_groups" not in imported.get("hyperparameters", {})
    assert imported["inputs"]["train"]["groups"] == ["data_group"]
    # A rule's own defaults and collections are the rule's, not the user's.
    assert imported["debugger"] == {
        "rules": [{"name": "loss_not_decreasing", "parameters": {"patience": "3"}}],
        "hook": {
            "s3_output_path": "s3://b/debug/",
            "collections": {"losses": {"save_interval": "5"}},
        },
    }
    assert imported["profiler"] == {"rules": [{"name": "ProfilerReport"}], "interval_ms": 1000}
    path = tmp_path / "imported.yaml"
    path.write_text(yaml.safe_dump(imported, sort_keys=False))
    assert unordered(golden_plan(path)["request"]) == unordered(original)


def test_a_custom_rule_is_refused_by_name(everything_plan):
    request = dict(everything_plan["request"])
    rule = {**request["DebugRuleConfigurations"][0], "RuleConfigurationName": "MyRule"}
    with pytest.raises(Unmappable, match="MyRule is not a built-in Debugger rule"):
        import_request({**request, "DebugRuleConfigurations": [rule]}, source_dir=".")


def test_instance_preferences_round_trip(tmp_path, preferred_plan):
    """The preferences the SDK cannot build, laid over its request, import back as the user
    wrote them (each type with its count and plans; no instance_type) and plan to that request."""
    original = preferred_plan["request"]
    assert "InstanceType" not in original["ResourceConfig"]
    assert original["StoppingCondition"]["MaxPendingTimeInSeconds"] == 7200
    imported = import_request(original, source_dir=str(GOLDEN / "source"))
    assert [p["instance_type"] for p in imported["compute"]["instance_preferences"]] == [
        "ml.p5.48xlarge",
        "ml.p4d.24xlarge",
    ]
    assert "instance_type" not in imported["compute"]
    assert imported["compute"]["max_pending"] == 7200
    path = tmp_path / "imported.yaml"
    path.write_text(yaml.safe_dump(imported, sort_keys=False))
    assert unordered(golden_plan(path)["request"]) == unordered(original)

"""`import` for instance groups, Debugger/Profiler rules and hook, TensorBoard, experiments and
the other request fields of issue 22: each mapped back to the key that produced it, so the
imported config plans to the same request. Built-in rules are recognised from the same rules
package the SDK uses (read as data): what a rule adds by itself (its default parameters, its
collections in the hook) is left out, as the user would have written it."""

from __future__ import annotations

from typing import Any

from sagelaunch import resource_config
from sagelaunch.config.debugger_settings import (
    builtin_rules,
    debugger_rule_configs,
    debugger_rule_functions,
)
from sagelaunch.errors import UsageError
from sagelaunch.hyperparameters import decode, number_or_text

# Request fields this module maps (the importer refuses what nobody maps).
FIELDS = {
    "DebugRuleConfigurations", "ProfilerRuleConfigurations", "TensorBoardOutputConfig",
    "ExperimentConfig", "RemoteDebugConfig", "InfraCheckConfig", "SessionChainingConfig",
}  # fmt: skip
GROUPS_HYPERPARAMETER = "sagemaker_distribution_instance_groups"
_EXPERIMENT = {
    "ExperimentName": "name",
    "TrialName": "trial",
    "TrialComponentDisplayName": "trial_component_display_name",
    "RunName": "run_name",
}


class Unmappable(UsageError):
    """A value the launch config cannot express (a custom rule, a renamed rule...)."""


def compute_groups(resources: dict[str, Any]) -> dict[str, Any]:
    """compute.groups, instance_preferences (each naming its own type and count), training_plan
    and placement from ResourceConfig."""
    found: dict[str, Any] = {}
    if "InstanceGroups" in resources:
        found["groups"] = [
            {
                "name": g["InstanceGroupName"],
                "instance_type": g["InstanceType"],
                "instance_count": g["InstanceCount"],
            }
            for g in resources["InstanceGroups"]
        ]
    if resources.get("TrainingPlanArn"):
        found["training_plan"] = resources["TrainingPlanArn"]
    if resources.get("InstancePlacementConfig"):
        found["placement"] = resources["InstancePlacementConfig"]
    if resources.get("InstancePreferences"):
        found["instance_preferences"] = [
            {
                "instance_type": p["InstanceType"],
                "instance_count": p.get("InstanceCount", 1),
                **({"training_plans": p["TrainingPlanArns"]} if p.get("TrainingPlanArns") else {}),
            }
            for p in resources["InstancePreferences"]
        ]
    return found


def training_instance_type(request: dict[str, Any], named: list[str] | None) -> str:
    """The instance type the image was chosen for: the training group's with groups."""
    resources = request["ResourceConfig"]
    if "InstanceGroups" not in resources:
        return str(resource_config.planned(resources)[0] or "")
    named = named or []
    groups = resources["InstanceGroups"]
    chosen = next((g for g in groups if g["InstanceGroupName"] in named), groups[0])
    return str(chosen["InstanceType"])


def distribution_groups(hps: dict[str, Any]) -> list[str] | None:
    value = hps.get(GROUPS_HYPERPARAMETER)
    if value is None:
        return None
    return list(decode(value))


def channel_extras(channel: dict[str, Any]) -> dict[str, Any]:
    """groups, compression, record_wrapping, shuffle_seed of one InputDataConfig entry."""
    s3 = channel["DataSource"].get("S3DataSource", {})
    found: dict[str, Any] = {}
    if s3.get("InstanceGroupNames"):
        found["groups"] = list(s3["InstanceGroupNames"])
    if channel.get("CompressionType") not in (None, "None"):
        found["compression"] = channel["CompressionType"]
    if channel.get("RecordWrapperType") not in (None, "None"):
        found["record_wrapping"] = channel["RecordWrapperType"]
    if channel.get("ShuffleConfig"):
        found["shuffle_seed"] = channel["ShuffleConfig"]["Seed"]
    return found


def settings(request: dict[str, Any]) -> dict[str, Any]:
    """debugger, profiler, tensorboard, experiment, remote_debug, infra_check,
    session_tag_chaining, as config keys (None where the request keeps the default)."""
    output_path = (request.get("OutputDataConfig") or {}).get("S3OutputPath")
    board = request.get("TensorBoardOutputConfig")
    experiment = request.get("ExperimentConfig") or {}
    return {
        "debugger": _debugger(request, output_path),
        "profiler": _profiler(request, output_path),
        "tensorboard": {"s3_uri": board["S3OutputPath"], "local_path": board.get("LocalPath")}
        if board
        else None,
        "experiment": {_EXPERIMENT[k]: v for k, v in experiment.items() if k in _EXPERIMENT}
        or None,
        "remote_debug": _flag(request, "RemoteDebugConfig", "EnableRemoteDebug"),
        "infra_check": _flag(request, "InfraCheckConfig", "EnableInfraCheck"),
        "session_tag_chaining": _flag(request, "SessionChainingConfig", "EnableSessionTagChaining"),
    }


def _flag(request: dict[str, Any], field: str, member: str) -> bool | None:
    return True if (request.get(field) or {}).get(member) else None


def _debugger(request: dict[str, Any], output_path: str | None) -> Any:
    hook = request.get("DebugHookConfig")
    rules = [_debugger_rule(r) for r in request.get("DebugRuleConfigurations") or []]
    if hook is None:
        return False if not rules else {"rules": [r for r, _ in rules]}
    from_rules = [c for _, collections in rules for c in collections]
    collections = {
        c["CollectionName"]: dict(c.get("CollectionParameters") or {})
        for c in hook.get("CollectionConfigurations") or []
        if c not in from_rules
    }
    settings: dict[str, Any] = {}
    if hook.get("S3OutputPath") not in (None, output_path):
        settings["s3_output_path"] = hook["S3OutputPath"]
    if collections:
        settings["collections"] = collections
    if not rules and not settings:
        return None  # the SDK's default hook
    block: dict[str, Any] = {"rules": [r for r, _ in rules]} if rules else {}
    if settings:
        block["hook"] = settings
    return block


def _debugger_rule(entry: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the rule as config, the collections its base configuration brings)."""
    name = entry["RuleConfigurationName"]
    function = debugger_rule_functions().get(name)
    base = debugger_rule_configs().get(name)
    if function is None or base is None or function not in builtin_rules()["debugger"]:
        raise Unmappable(f"DebugRuleConfigurations: {name} is not a built-in Debugger rule")
    defaults = base["DebugRuleConfiguration"].get("RuleParameters", {})
    given = entry.get("RuleParameters") or {}
    parameters = {k: v for k, v in given.items() if defaults.get(k) != v}
    rule: dict[str, Any] = {"name": function}
    if parameters:
        rule["parameters"] = parameters
    return rule, list(base.get("CollectionConfigurations", []))


def _profiler(request: dict[str, Any], output_path: str | None) -> Any:
    config = request.get("ProfilerConfig") or {}
    if config.get("DisableProfiler"):
        return False
    rules = [_profiler_rule(r) for r in request.get("ProfilerRuleConfigurations") or []]
    block: dict[str, Any] = {"rules": rules} if rules else {}
    if config.get("ProfilingIntervalInMilliseconds") is not None:
        block["interval_ms"] = config["ProfilingIntervalInMilliseconds"]
    if config.get("S3OutputPath") not in (None, output_path):
        block["s3_output_path"] = config["S3OutputPath"]
    return block or None


def _profiler_rule(entry: dict[str, Any]) -> dict[str, Any]:
    parameters = dict(entry.get("RuleParameters") or {})
    name = parameters.pop("rule_to_invoke", entry["RuleConfigurationName"])
    if name not in builtin_rules()["profiler"] or name != entry["RuleConfigurationName"]:
        raise Unmappable(f"ProfilerRuleConfigurations: {name} is not a built-in Profiler rule")
    rule: dict[str, Any] = {"name": name}
    if parameters:
        rule["parameters"] = {k: _number(name, k, v) for k, v in parameters.items()}
    return rule


def _number(rule: str, key: str, text: str) -> int | float:
    value = number_or_text(text)
    if isinstance(value, int | float):
        return value
    raise Unmappable(f"ProfilerRuleConfigurations: {rule} parameter {key}={text!r} is no number")


def user_channels(request: dict[str, Any], hps: dict[str, Any]) -> list[dict[str, Any]]:
    """InputDataConfig without the channel the SDK adds itself: with network isolation, the
    code bundle travels as channel "code" and sagemaker_submit_directory points into it."""
    channels = list(request.get("InputDataConfig") or [])
    submitted = str(hps.get("sagemaker_submit_directory", ""))
    if request.get("EnableNetworkIsolation") and submitted.startswith("/opt/ml/input/data/code/"):
        channels = [c for c in channels if c["ChannelName"] != "code"]
    return channels

"""Debugger, Profiler, TensorBoard and Experiments through the SDK's own classes:
``Rule.sagemaker(rule_configs.<name>())``, ``ProfilerRule.sagemaker(rule_configs.<Name>())``,
``DebuggerHookConfig``/``CollectionConfig``, ``ProfilerConfig``, ``TensorBoardOutputConfig`` and
``fit(experiment_config=...)``. Rule images come from the SDK's own lookup for the region when it
builds the request."""

from __future__ import annotations

from typing import Any

from sagelaunch.config.debugger_settings import Debugger, Profiler
from sagelaunch.config.model import LaunchConfig
from sagelaunch.sdk.objects import call

DEBUGGER = "sagemaker.debugger"
RULE_CONFIGS = "sagemaker.debugger.rule_configs"


def apply(config: LaunchConfig, kwargs: dict[str, Any]) -> None:
    """Estimator keyword arguments for the debugger/profiler/tensorboard blocks."""
    rules = _debugger_rules(config.debugger) + _profiler_rules(config.profiler)
    if rules:
        kwargs["rules"] = rules
    if isinstance(config.debugger, Debugger) and config.debugger.hook:
        kwargs["debugger_hook_config"] = _hook(config.debugger)
    if isinstance(config.profiler, Profiler):
        profiler = config.profiler
        settings = {
            "s3_output_path": profiler.s3_output_path,
            "system_monitor_interval_millis": profiler.interval_ms,
        }
        given = {k: v for k, v in settings.items() if v is not None}
        if given:
            kwargs["profiler_config"] = call(f"{DEBUGGER}.ProfilerConfig", **given)
    if config.tensorboard:
        board = {"s3_output_path": config.tensorboard.s3_uri}
        if config.tensorboard.local_path:
            board["container_local_output_path"] = config.tensorboard.local_path
        kwargs["tensorboard_output_config"] = call(f"{DEBUGGER}.TensorBoardOutputConfig", **board)


def fit_kwargs(config: LaunchConfig) -> dict[str, Any]:
    """``fit()`` keyword arguments beyond the inputs: the experiment."""
    experiment = config.experiment
    if experiment is None:
        return {}
    names = {
        "ExperimentName": experiment.name,
        "TrialName": experiment.trial,
        "TrialComponentDisplayName": experiment.trial_component_display_name,
        "RunName": experiment.run_name,
    }
    return {"experiment_config": {k: v for k, v in names.items() if v is not None}}


def _debugger_rules(block: bool | Debugger) -> list[dict[str, Any]]:
    if not isinstance(block, Debugger):
        return []
    return [
        call(
            f"{DEBUGGER}.Rule.sagemaker",
            call(f"{RULE_CONFIGS}.{rule.name}"),
            **({"rule_parameters": dict(rule.parameters)} if rule.parameters else {}),
        )
        for rule in block.rules
    ]


def _profiler_rules(block: bool | Profiler) -> list[dict[str, Any]]:
    if not isinstance(block, Profiler):
        return []
    return [
        call(
            f"{DEBUGGER}.ProfilerRule.sagemaker",
            call(f"{RULE_CONFIGS}.{rule.name}", **rule.parameters),
        )
        for rule in block.rules
    ]


def _hook(block: Debugger) -> dict[str, Any]:
    hook = block.hook
    assert hook is not None
    collections = [
        call(
            f"{DEBUGGER}.CollectionConfig", name=name, **({"parameters": params} if params else {})
        )
        for name, params in hook.collections.items()
    ]
    settings: dict[str, Any] = {}
    if hook.s3_output_path:
        settings["s3_output_path"] = hook.s3_output_path
    if collections:
        settings["collection_configs"] = collections
    return call(f"{DEBUGGER}.DebuggerHookConfig", **settings)

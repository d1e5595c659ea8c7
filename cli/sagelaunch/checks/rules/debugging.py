"""Debugger and Profiler rules: built-in names only (the installed SDK's rule_configs), within
the API's limits (DebugRuleConfigurations and ProfilerRuleConfigurations: at most 20 each)."""

from __future__ import annotations

from collections.abc import Iterator

from sagelaunch.catalog import api_limits
from sagelaunch.checks.rules.registry import error, rule
from sagelaunch.config.debugger_settings import Debugger, Profiler, builtin_rules
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.errors import Problem
from sagelaunch.strategies.base import offered

_OTHER_KIND = {"debugger": "profiler", "profiler": "debugger"}


@rule
def builtin_rule_names(loaded: LoadedConfig) -> Iterator[Problem]:
    """A rule must be one the SDK's rule_configs offers, of the kind its block takes: Debugger
    rules under debugger.rules, Profiler rules under profiler.rules."""
    config = loaded.config
    known = builtin_rules()
    for kind, block in (("debugger", config.debugger), ("profiler", config.profiler)):
        if not isinstance(block, (Debugger, Profiler)):
            continue
        for index, entry in enumerate(block.rules):
            if entry.name in known[kind]:
                continue
            other = _OTHER_KIND[kind]
            hint = (
                f"{entry.name} is a {other.capitalize()} rule: list it under {other}.rules"
                if entry.name in known[other]
                else f"{kind} rules: {offered(known[kind])}"
            )
            yield error(loaded, (kind, "rules", index, "name"), f"unknown rule; {hint}")


@rule
def rule_count(loaded: LoadedConfig) -> Iterator[Problem]:
    """The API takes at most 20 Debugger and 20 Profiler rule configurations."""
    config = loaded.config
    shapes = {"debugger": "DebugRuleConfigurations", "profiler": "ProfilerRuleConfigurations"}
    for kind, shape in shapes.items():
        block = getattr(config, kind)
        if not isinstance(block, (Debugger, Profiler)) or not block.rules:
            continue  # nothing to count: skip reading the service model (~60 ms)
        _, most = api_limits.bounds(shape)
        if len(block.rules) > most:
            yield error(loaded, (kind, "rules"), f"at most {most} rules (the API's limit)")

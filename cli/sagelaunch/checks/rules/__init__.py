"""Compatibility rules: what the service and the containers need, checked before AWS is touched.

Whatever the SageMaker SDK accepts, sagelaunch accepts, unless a rule cites the service, SDK or
container fact that makes the job fail; everything else a rule has to say is advice, reported as a
warning (exit 0, unless `--strict`). Each rule is a small named function yielding located
problems with the fix; `check` runs them all; tests run each one by name, once where it fires and
once where it stays quiet. Every rule reads the same data the plan reads: the SDK's own tables
(`catalog.sdk_data`) and the dated files in `data/`.
"""

from __future__ import annotations

# Registration happens on import: each module below adds its rules to RULES (rules/registry.py).
from sagelaunch.checks.rules import (  # noqa: F401
    capacity,
    cluster,
    code,
    debugging,
    frameworks,
    gpu,
    groups,
    huggingface,
    parallelism,
    queue,
    reserved,
    resources,
    tensorflow,
)
from sagelaunch.checks.rules.registry import RULES, Rule
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.errors import Problem
from sagelaunch.strategies import registry


def check(loaded: LoadedConfig) -> list[Problem]:
    """Every rule's findings, errors and warnings, in file order."""
    found = [problem for func in all_rules().values() for problem in func(loaded)]
    return sorted(found, key=lambda p: (p.line, p.col, p.path))


def all_rules() -> dict[str, Rule]:
    """The rule modules' rules and every registered strategy's own (strategies/*.py,
    Strategy.rules)."""
    owned = {func.__name__: func for s in registry.strategies() for func in s.rules()}
    return {**RULES, **owned}


# The built-in strategies' rules, by name beside the others.
RULES.update(all_rules())

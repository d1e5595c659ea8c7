"""What a rule is and where it registers: the rule modules import this, never the package, so the
package can import them without a cycle."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from sagelaunch.config.loader import LoadedConfig
from sagelaunch.errors import Problem

Rule = Callable[[LoadedConfig], Iterator[Problem]]
RULES: dict[str, Rule] = {}


def rule(func: Rule) -> Rule:
    RULES[func.__name__] = func
    return func


def error(loaded: LoadedConfig, path: tuple, message: str) -> Problem:
    return loaded.problem(path, message)


def warning(loaded: LoadedConfig, path: tuple, message: str) -> Problem:
    return loaded.problem(path, message, severity="warning")

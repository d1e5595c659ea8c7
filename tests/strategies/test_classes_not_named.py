"""Code outside strategies/ never names a strategy's class or config model (``isinstance(
config.distribution, SmddpDistribution)``): what differs between strategies is a capability each
declares (strategies/base.py), so a new strategy needs no edit elsewhere."""

from __future__ import annotations

import ast
from pathlib import Path

import sagelaunch
from sagelaunch.strategies import registry

PACKAGE = Path(sagelaunch.__file__).parent


def strategy_classes() -> set[str]:
    return {cls.__name__ for s in registry.strategies() for cls in (type(s), s.model)}


def named(tree: ast.AST, classes: set[str]) -> list[tuple[int, str]]:
    """Where ``tree`` imports or mentions one of ``classes``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.alias):
            names = [node.name.rpartition(".")[2]]
        elif isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        else:
            continue
        found += [(getattr(node, "lineno", 0), name) for name in names if name in classes]
    return found


def test_no_strategy_class_is_named_outside_strategies():
    classes = strategy_classes()
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line}: {name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if "strategies" not in path.relative_to(PACKAGE).parts[:1]
        for line, name in named(ast.parse(path.read_text(encoding="utf-8")), classes)
    ]
    assert offenders == []


def test_the_scan_finds_a_class():
    source = (
        "from sagelaunch.strategies.smddp import SmddpDistribution\n"
        "a = isinstance(config.distribution, smddp.SmddpDistribution)\n"
        "b = MpiStrategy()\n"
    )
    found = named(ast.parse(source), strategy_classes())
    assert sorted({line for line, _ in found}) == [1, 2, 3]

"""A strategy's name is the registry's: outside strategies/, no code compares a value with a
strategy's name, written as a string (``strategy == "smddp"``, ``strategy in {"mpi", "smp"}``)
or taken from a strategy module (``chosen == torchrun.NAME``, ``mode == PARAMETER_SERVER`` after
``from sagelaunch.strategies.parameter_server import NAME as PARAMETER_SERVER``); it asks the
registry, a strategy's method, or its model instead."""

from __future__ import annotations

import ast
from pathlib import Path

import sagelaunch
from sagelaunch.strategies import registry

PACKAGE = Path(sagelaunch.__file__).parent
# "none" is also an everyday word (offload: none, --bind-to none): it counts only where the other
# side of the comparison is about a strategy or a distribution.
COMMON_WORDS = {"none"}
ABOUT_A_STRATEGY = ("strategy", "distribution", "mode")


def _strings(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Set | ast.Tuple | ast.List):
        return [s for element in node.elts for s in _strings(element)]
    return []


def _name_constants(tree: ast.AST) -> set[str]:
    """Names bound to a strategy module's NAME (``from ...strategies.smp import NAME as X``)."""
    return {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith("sagelaunch.strategies")
        for alias in node.names
        if alias.name == "NAME"
    }


def _strategy_constant(node: ast.expr, constants: set[str]) -> bool:
    """``smp.NAME`` (a module's NAME), or a name imported as one."""
    if isinstance(node, ast.Attribute):
        return node.attr == "NAME"
    if isinstance(node, ast.Name):
        return node.id in constants
    if isinstance(node, ast.Set | ast.Tuple | ast.List):
        return any(_strategy_constant(element, constants) for element in node.elts)
    return False


def _compared_names(tree: ast.AST, names: set[str]) -> list[tuple[int, str]]:
    found = []
    constants = _name_constants(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        if any(_strategy_constant(operand, constants) for operand in operands):
            found.append((node.lineno, ast.unparse(node)))
            continue
        text = " ".join(ast.unparse(o) for o in operands if not _strings(o))
        for operand in operands:
            for value in _strings(operand):
                common = value in COMMON_WORDS
                if value in names and (not common or any(w in text for w in ABOUT_A_STRATEGY)):
                    found.append((node.lineno, ast.unparse(node)))
    return found


def test_no_strategy_name_is_compared_as_a_string_outside_strategies():
    names = set(registry.names())
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line}: {source}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if "strategies" not in path.relative_to(PACKAGE).parts[:1]
        for line, source in _compared_names(ast.parse(path.read_text(encoding="utf-8")), names)
    ]
    assert offenders == []


def test_the_scan_finds_a_comparison():
    """The scan is not blind: it finds each form it looks for."""
    source = (
        'a = config.distribution.strategy == "smddp"\n'
        'b = strategy in {"mpi", "smp"}\n'
        'c = self.mode != "none"\n'
        'd = offload == "none"\n'
        "from sagelaunch.strategies.parameter_server import NAME as PS\n"
        "e = chosen.strategy == torchrun.NAME\n"
        "f = self.mode != PS\n"
        "g = strategy in {'fsdp', smp.NAME}\n"
    )
    found = _compared_names(ast.parse(source), set(registry.names()))
    assert sorted({line for line, _ in found}) == [1, 2, 3, 6, 7, 8]

"""Facts the CLI writes once: each test scans the source (AST) for a second definition."""

from __future__ import annotations

import ast
from pathlib import Path

from pydantic import BaseModel

from sagelaunch.strict import Strict

PACKAGE = Path(__file__).resolve().parents[2] / "cli" / "sagelaunch"


def modules() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text())) for path in sorted(PACKAGE.rglob("*.py"))]


def where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(PACKAGE)}:{getattr(node, 'lineno', 0)}"


def test_one_strict_model_base() -> None:
    """Only sagelaunch.strict says extra="forbid"; every other model inherits it."""
    found = [
        where(path, node)
        for path, tree in modules()
        if path.name != "strict.py"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and _called(node) == "ConfigDict"
        and any(keyword.arg == "extra" for keyword in node.keywords)
    ]
    assert found == []


def test_the_strict_base_refuses_unknown_keys_and_changes() -> None:
    class Point(Strict):
        x: int

    assert issubclass(Strict, BaseModel)
    assert Point(x=1).x == 1
    for attempt in (lambda: Point(x=1, y=2), lambda: setattr(Point(x=1), "x", 2)):
        try:
            attempt()
        except (ValueError, TypeError):  # pydantic's ValidationError is a ValueError
            continue
        raise AssertionError("a strict model accepted an unknown key or a change")


def _called(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def test_status_names_only_from_statuses() -> None:
    """A job status written as a literal beside statuses.py could drift from it (or be misspelt
    unnoticed): every module names them through statuses.py's constants."""
    from sagelaunch.statuses import INTERRUPTED, JobStatus

    names = {status.value for status in JobStatus} | {INTERRUPTED}
    found = [
        f"{where(path, node)} {node.value}"
        for path, tree in modules()
        if path.name != "statuses.py"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in names
    ]
    assert found == []

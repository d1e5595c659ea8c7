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


def test_one_hyperparameter_codec() -> None:
    """No function that handles hyperparameters calls json itself: sagelaunch.hyperparameters
    encodes and decodes them (SDK v2's JSON, v3's text, the toolkit's reading)."""
    found = [
        f"{where(path, function)} {function.name}"
        for path, tree in modules()
        if path.name != "hyperparameters.py"
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        and _mentions_hyperparameters(function)
        and _calls_json(function)
    ]
    assert found == []


def _mentions_hyperparameters(function: ast.AST) -> bool:
    # A tuning job's name ("HyperParameterTuningJob...") is not a hyperparameter.
    text = ast.unparse(function).lower().replace("hyperparametertuning", "")
    return any(word in text for word in ("hyperparam", "hps", "sagemaker_"))


def _calls_json(function: ast.AST) -> bool:
    """A plain json.dumps/loads: documents and digests (indent=, sort_keys=) are not values."""
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "json"
        and node.func.attr in ("dumps", "loads")
        and not any(k.arg in ("indent", "sort_keys") for k in node.keywords)
        for node in ast.walk(function)
    )


def test_json_or_text_is_decoded_in_one_place() -> None:
    """The toolkit's reading, "JSON when it parses, else the text" (a json.loads whose failure
    falls back to the very text it was given), is `hyperparameters.decode`'s alone."""
    found = [
        where(path, node)
        for path, tree in modules()
        if path.name != "hyperparameters.py"
        for node in ast.walk(tree)
        if isinstance(node, ast.Try) and _falls_back_to_text(node)
    ]
    assert found == []


def _falls_back_to_text(block: ast.Try) -> bool:
    parsed = {
        call.args[0].id
        for statement in block.body
        for call in ast.walk(statement)
        if isinstance(call, ast.Call)
        and ast.unparse(call.func) == "json.loads"
        and call.args
        and isinstance(call.args[0], ast.Name)
    }
    return any(
        isinstance(name, ast.Name) and name.id in parsed
        for handler in block.handlers
        for statement in handler.body
        for name in ast.walk(statement)
    )

"""Facts written once: each test scans the source (AST) for a second definition.

The CLI (cli/sagelaunch) and the entry points (entrypoints/) are scanned. The entry points run in
the job without the CLI (one framework's folder is the job's source_dir), so a fact both need has
one owner on each side: the CLI's module and the entry points' shared/ module. The framework
folders' shared_hparams.py, shared_outputs.py and smenv.py are links to shared/
(tests/entrypoints/test_layout.py holds that), scanned once, as shared/'s.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel

from sagelaunch.hyperparameters import integer
from sagelaunch.strict import Strict
from tests.conftest import ENTRYPOINTS, REPO

PACKAGE = REPO / "cli" / "sagelaunch"


def modules() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text())) for path in sorted(PACKAGE.rglob("*.py"))]


def entry_point_modules() -> list[tuple[Path, ast.Module]]:
    """Every entry point module once: the framework folders' links to shared/ are skipped."""
    return [
        (path, ast.parse(path.read_text()))
        for path in sorted(ENTRYPOINTS.rglob("*.py"))
        if not path.is_symlink()
    ]


def everywhere() -> list[tuple[Path, ast.Module]]:
    return [*modules(), *entry_point_modules()]


def where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(REPO)}:{getattr(node, 'lineno', 0)}"


def owned(path: Path, owners: set[str]) -> bool:
    return path.relative_to(REPO).as_posix() in owners


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


# The toolkit's "JSON when it parses, else the text": the CLI's and the entry points' (which ship
# without the CLI, so they cannot import it).
JSON_OR_TEXT_OWNERS = {"cli/sagelaunch/hyperparameters.py", "entrypoints/shared/smenv.py"}


def test_json_or_text_is_decoded_in_one_place() -> None:
    """The toolkit's reading, "JSON when it parses, else the text" (a json.loads whose failure
    falls back to the very text it was given), is `hyperparameters.decode`'s alone in the CLI
    and `smenv.decode_value`'s alone in the entry points (they run in the job without the CLI,
    so they have their own owner)."""
    found = [
        where(path, node)
        for path, tree in everywhere()
        if not owned(path, JSON_OR_TEXT_OWNERS)
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


# The Hugging Face starter is the user's script to edit: `init huggingface` copies it beside the
# config, alone, so it reads SM_* itself, as Hugging Face's own SageMaker scripts do.
STANDALONE = {"entrypoints/huggingface/train_huggingface.py"}


def test_sm_variables_are_read_only_by_smenv() -> None:
    """The container's SM_* environment is smenv.py's to read: no other entry point module
    names an SM_* variable to read it (``environ.get("SM_HOSTS")``, ``os.getenv(...)``,
    ``environ[f"SM_HP_{name}"]``, ``"SM_X" in environ``, a module constant holding the name);
    it asks smenv (``current()``, a SageMakerEnv property, or one of its readers)."""
    found = [
        f"{where(path, node)} {ast.unparse(node)}"
        for path, tree in entry_point_modules()
        if not owned(path, {"entrypoints/shared/smenv.py", *STANDALONE})
        for node in _sm_variable_reads(tree)
    ]
    assert found == []


_READS = ("get", "getenv", "pop", "setdefault", "startswith")


def _sm_variable_reads(tree: ast.Module) -> Iterator[ast.AST]:
    named = {  # module constants that hold an SM_* name (PORTS = "SM_...")
        target.id
        for statement in tree.body
        if isinstance(statement, ast.Assign) and _names_sm(statement.value, set())
        for target in statement.targets
        if isinstance(target, ast.Name)
    }
    for node in ast.walk(tree):
        read = _read_name(node)
        if read is not None and _names_sm(read, named):
            yield node


def _read_name(node: ast.AST) -> ast.AST | None:
    """The variable name an expression reads: ``X.get(name)``, ``getenv(name)``, ``X[name]``,
    ``name in X``; None for anything else."""
    if isinstance(node, ast.Call) and _called(node) in _READS and node.args:
        return node.args[0]
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        return node.slice
    if isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.In | ast.NotIn):
        return node.left
    return None


def _names_sm(node: ast.AST, named: set[str]) -> bool:
    """A literal (or f-string, or a constant holding one) that starts with "SM_"."""
    if isinstance(node, ast.JoinedStr) and node.values:
        node = node.values[0]
    if isinstance(node, ast.Name):
        return node.id in named
    return isinstance(node, ast.Constant) and str(node.value).startswith("SM_")


# An integer hyperparameter is read once on each side: the CLI's reading is the entry points'
# (test_the_integer_readers_agree), written again only because the CLI cannot import it.
INTEGER_OWNERS = {"cli/sagelaunch/hyperparameters.py", "entrypoints/shared/shared_hparams.py"}


def test_integer_hyperparameters_are_read_once_per_side() -> None:
    """Turning a hyperparameter into an integer (``10.0`` as 10, JSON quoting removed, a boolean
    refused) is `hyperparameters.integer`'s in the CLI and `shared_hparams.integer`'s in the
    entry points: no other function that handles hyperparameters tests ``.is_integer()`` or
    calls ``int(str(...))``, which would drift from the job's reading (a config that validates
    and then fails at start, or the reverse)."""
    found = sorted(
        {
            f"{where(path, node)} {function.name}"
            for path, tree in everywhere()
            if not owned(path, INTEGER_OWNERS)
            for function in ast.walk(tree)
            if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
            and _handles_hyperparameters(function)
            for node in ast.walk(function)
            if _coerces_to_integer(node)
        }
    )
    assert found == []


def _handles_hyperparameters(function: ast.AST) -> bool:
    decodes = any(
        isinstance(node, ast.Call) and _called(node) in ("decode", "decode_value")
        for node in ast.walk(function)
    )
    return decodes or _mentions_hyperparameters(function)


def _coerces_to_integer(node: ast.AST) -> bool:
    """``x.is_integer()``, or ``int()`` of a value made text (``int(str(x))``,
    ``int(str(x).strip('"'))``)."""
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Attribute) and node.func.attr == "is_integer":
        return True
    return (
        isinstance(node.func, ast.Name) and node.func.id == "int" and any(map(_text_of, node.args))
    )


def _text_of(node: ast.AST) -> bool:
    """``str(x)``, or a method called on it (``str(x).strip('"').lower()``)."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        node = node.func.value
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str"


def test_the_integer_readers_agree() -> None:
    """The CLI's `integer` gives what the entry points' integer options give, for each way
    SageMaker and users write a value (None where the entry point refuses it)."""
    shared_hparams = _entry_point_module("shared_hparams")
    values = (
        *("4", "-2", "0", "4.0", "1e3", '"4"', '"4.0"', '"\\"4\\""', " 4 "),
        *("4.5", "true", "True", "false", "null", "", "abc", "[4]", '{"a": 4}', "NaN"),
    )
    for raw in values:
        try:
            job: int | None = shared_hparams.integer(raw)
        except ValueError:
            job = None
        assert integer(raw) == job, raw


def _entry_point_module(name: str):
    """An entry point's shared module, imported from shared/ and forgotten afterwards (the
    entry point tests import it from a framework's folder)."""
    before = dict(sys.modules)
    sys.path.insert(0, str(ENTRYPOINTS / "shared"))
    try:
        sys.modules.pop(name, None)
        sys.modules.pop("smenv", None)
        return __import__(name)
    finally:
        sys.path.remove(str(ENTRYPOINTS / "shared"))
        for key in set(sys.modules) - set(before):
            del sys.modules[key]
        sys.modules.update(before)

"""The public surface of the XGBoost container's own library, read from its source at a commit.

`python -m sagelaunch.local.xgboost_surface --git GIT_DIR` reads every module of
src/sagemaker_xgboost_container in aws/sagemaker-xgboost-container at XGB_MASTER (a clone's git
directory, ``ast`` only: nothing is imported) and writes data/xgboost_container_surface.json: each
module and its public top-level names, functions, classes and constants (with the container's
value where it is a literal, or one the generator can work out from literals). It also writes the
stand-in's placeholder modules (container_libraries/sagemaker_xgboost_container/) for the modules
nobody emulated by hand: the container's names, each raising when used. ``--check`` compares and
writes nothing; without ``--git`` it checks the placeholder modules against the shipped data file.
"""

from __future__ import annotations

import ast
import json
import operator
import posixpath
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sagelaunch.local.image_software import XGB, XGB_MASTER

GENERATOR = "python -m sagelaunch.local.xgboost_surface"
PACKAGE = "sagemaker_xgboost_container"
SOURCE_DIR = f"src/{PACKAGE}"
CONTAINER = "3.0-5"
DATA_FILE = Path(__file__).parents[1] / "data" / "xgboost_container_surface.json"
STAND_IN = Path(__file__).with_name("container_libraries") / PACKAGE
# First line of a placeholder module: the generator rewrites only files that start with it.
MARKER = f"# Written by `{GENERATOR}`"
# Values from libraries outside the repository that its constants are built from
# (sagemaker_containers._content_types, which the container pins at 2.8.6.post2).
EXTERNAL = {("sagemaker_containers._content_types", "CSV"): "text/csv"}
# Calls whose result is a logger: the placeholder modules get a real one.
LOGGER_CALLS = {"getLogger", "get_logger", "setup_main_logger"}
OPERATORS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Pow: operator.pow, ast.Mod: operator.mod,
}  # fmt: skip


def module_name(path: str) -> str:
    """src/sagemaker_xgboost_container/a/b.py -> sagemaker_xgboost_container.a.b (packages too)."""
    parts = path.removeprefix("src/").removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def read_sources(git_dir: Path, commit: str = XGB_MASTER) -> dict[str, str]:
    """Every module's text at ``commit``, by path, read with git (no work tree needed)."""
    git = ["git", "--git-dir", str(git_dir)]
    listed = subprocess.run(
        [*git, "ls-tree", "-r", "--name-only", commit, SOURCE_DIR],
        capture_output=True, check=True, text=True,
    ).stdout.split()  # fmt: skip
    return {
        path: subprocess.run(
            [*git, "show", f"{commit}:{path}"], capture_output=True, check=True, text=True
        ).stdout
        for path in sorted(listed)
        if path.endswith(".py")
    }


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Top-level statements, those under a top-level ``if`` or ``try`` too (not ``__main__``)."""
    for node in body:
        if isinstance(node, ast.If):
            if "__main__" not in ast.unparse(node.test):
                yield from _statements(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            yield from _statements(node.body + node.orelse + node.finalbody)
        else:
            yield node


class Module:
    """One module's top-level definitions and imports, for listing and for working out values."""

    def __init__(self, name: str, text: str) -> None:
        self.name = name
        self.defined: dict[str, ast.stmt] = {}
        self.assigned: dict[str, ast.expr] = {}
        self.imported: dict[str, tuple[str, str | None]] = {}  # alias -> (module, name or None)
        for node in _statements(ast.parse(text).body):
            self._take(node)

    def _take(self, node: ast.stmt) -> None:
        """Record what ``node`` binds at top level."""
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            self.defined[node.name] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    self.defined[target.id] = node
                    self.assigned[target.id] = node.value
        elif isinstance(node, ast.Import):
            for alias in node.names:
                self.imported[alias.asname or alias.name.split(".")[0]] = (alias.name, None)
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                self.imported[alias.asname or alias.name] = (node.module, alias.name)


class Surface:
    """The library's modules, and the values of their constants where literals decide them."""

    def __init__(self, sources: dict[str, str]) -> None:
        self.modules = {name: Module(name, text) for name, text in sources.items()}
        self._busy: set[tuple[str, str]] = set()

    def listing(self) -> dict[str, dict[str, Any]]:
        """Each module's public names in source order, with what each one is."""
        return {
            name: {n: self._entry(module, n) for n in module.defined if not n.startswith("_")}
            for name, module in self.modules.items()
        }

    def _entry(self, module: Module, name: str) -> dict[str, Any]:
        """What a public name is: what its placeholder must be (exception classes stay ones)."""
        node = module.defined[name]
        if isinstance(node, ast.ClassDef):
            bases = [ast.unparse(base) for base in node.bases]
            exception = any(b.endswith(("Error", "Exception")) for b in bases)
            return {"kind": "class", "bases": bases, "exception": exception}
        if not isinstance(node, ast.Assign | ast.AnnAssign):
            return {"kind": "function"}
        return self._constant(module, module.assigned[name])

    def _constant(self, module: Module, value: ast.expr) -> dict[str, Any]:
        """A constant's value (Python source) where it can be worked out, else what it is."""
        source = ast.unparse(value)
        try:
            return {"kind": "constant", "value": literal(self.evaluate(module, value))}
        except (LookupError, TypeError, ValueError):
            pass
        if isinstance(value, ast.Call) and _callee(value) in LOGGER_CALLS:
            return {"kind": "logger", "expression": source}
        environment = self._environment(module, value)
        if environment:
            return {"kind": "environment", **environment, "expression": source}
        return {"kind": "value", "expression": source}

    def _environment(self, module: Module, value: ast.expr) -> dict[str, Any] | None:
        """``os.getenv(NAME[, default])`` (or ``int(...)`` of it): read when the module loads."""
        cast = None
        if isinstance(value, ast.Call) and _callee(value) == "int" and len(value.args) == 1:
            cast, value = "int", value.args[0]
        if not isinstance(value, ast.Call) or ast.unparse(value.func) not in (
            "os.getenv", "os.environ.get",
        ):  # fmt: skip
            return None
        try:
            arguments = [self.evaluate(module, argument) for argument in value.args]
        except LookupError:
            return None
        found = {"variable": arguments[0], "default": (arguments[1:] or [None])[0]}
        return {**found, "cast": cast} if cast else found

    def evaluate(self, module: Module, node: ast.expr) -> Any:
        """The expression's value from literals and other constants; LookupError where it needs
        anything else (a call, a name that is no constant)."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            items = [self.evaluate(module, item) for item in node.elts]
            return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)](items)
        if isinstance(node, ast.Dict) and None not in node.keys:
            keys = [self.evaluate(module, key) for key in node.keys if key is not None]
            return dict(zip(keys, [self.evaluate(module, v) for v in node.values], strict=True))
        if isinstance(node, ast.Name | ast.Attribute):
            return self._named(module, node)
        if isinstance(node, ast.Call):
            return self._call(module, node)
        if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
            left, right = self.evaluate(module, node.left), self.evaluate(module, node.right)
            return OPERATORS[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -self.evaluate(module, node.operand)
        raise LookupError(ast.unparse(node))

    def _call(self, module: Module, node: ast.Call) -> Any:
        """The two calls constants are built with: ``", ".join(...)`` and ``os.path.join``."""
        arguments = [self.evaluate(module, argument) for argument in node.args]
        func = node.func
        if node.keywords or not isinstance(func, ast.Attribute):
            raise LookupError(ast.unparse(node))
        if isinstance(func.value, ast.Constant) and func.attr == "join":
            return str(func.value.value).join(*arguments)
        if ast.unparse(func) == "os.path.join":
            return posixpath.join(*arguments)
        raise LookupError(ast.unparse(node))

    def _named(self, module: Module, node: ast.Name | ast.Attribute) -> Any:
        """A name: this module's constant, or one imported from another module."""
        if isinstance(node, ast.Name):
            return self.resolve(module, node.id)
        if not isinstance(node.value, ast.Name) or node.value.id not in module.imported:
            raise LookupError(ast.unparse(node))
        target = self._imported_module(module, node.value.id)
        if node.attr == "__name__" and target in self.modules:
            return target
        return self._in(target, node.attr)

    def _imported_module(self, module: Module, alias: str) -> str:
        """The module an alias names: ``import a.b as m`` or ``from a import b`` (a module)."""
        source, name = module.imported[alias]
        return source if name is None else f"{source}.{name}"

    def resolve(self, module: Module, name: str) -> Any:
        """The value of ``name`` as seen in ``module``."""
        if name in module.assigned:
            key = (module.name, name)
            if key in self._busy:
                raise LookupError(name)
            self._busy.add(key)
            try:
                return self.evaluate(module, module.assigned[name])
            finally:
                self._busy.discard(key)
        if name in module.imported and module.imported[name][1] is not None:
            source, original = module.imported[name]
            return self._in(source, str(original))
        raise LookupError(name)

    def _in(self, module: str, name: str) -> Any:
        """``module.name``: a library module's constant, or a known outside value."""
        if module in self.modules:
            return self.resolve(self.modules[module], name)
        if (module, name) in EXTERNAL:
            return EXTERNAL[(module, name)]
        raise LookupError(f"{module}.{name}")


def _callee(call: ast.Call) -> str:
    """The called name's last part (``logging.getLogger`` -> getLogger), to tell loggers."""
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else ast.unparse(func)


def literal(value: Any) -> str:
    """Python source for a literal value, the same on every run (a set's items sorted)."""
    if isinstance(value, set | frozenset):
        return "{" + ", ".join(sorted(literal(item) for item in value)) + "}" if value else "set()"
    if isinstance(value, list):
        return "[" + ", ".join(literal(item) for item in value) + "]"
    if isinstance(value, tuple):
        return "(" + "".join(literal(item) + ", " for item in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    if value is None or isinstance(value, bool | int | float | str | bytes):
        return repr(value)
    raise LookupError(type(value).__name__)


def data(sources: dict[str, str], commit: str = XGB_MASTER) -> dict[str, Any]:
    """The data file's content: where it was read, and each module's path and public names."""
    paths = {module_name(path): path for path in sources}
    listing = Surface({name: sources[path] for name, path in paths.items()}).listing()
    return {
        "note": f"Written by `{GENERATOR} --git GIT_DIR` from the library's source (ast only).",
        "source": {"repo": XGB, "commit": commit, "path": SOURCE_DIR, "container": CONTAINER},
        "modules": {
            name: {"path": paths[name], "names": names} for name, names in sorted(listing.items())
        },
    }


def data_text(content: dict[str, Any]) -> str:
    """The data file as written (stable: sorted modules, names in source order)."""
    return json.dumps(content, indent=1) + "\n"


def stand_in_file(module: str, path: str) -> Path:
    """Where the stand-in's module lives: a package's __init__.py, else name.py."""
    parts = module.split(".")[1:]
    if path.endswith("__init__.py"):
        return STAND_IN.joinpath(*parts, "__init__.py")
    return STAND_IN.joinpath(*parts[:-1], parts[-1] + ".py")


def hand_written(file: Path) -> bool:
    """A module someone emulated (the generator never writes over it)."""
    return file.is_file() and not file.read_text("utf-8").startswith(MARKER)


def placeholders(content: dict[str, Any]) -> dict[Path, str]:
    """The placeholder modules: each module of the data file nobody wrote by hand."""
    source = content["source"]
    written = {}
    for module, entry in content["modules"].items():
        file = stand_in_file(module, entry["path"])
        if not hand_written(file):
            written[file] = formatted(file, placeholder(module, entry, source))
    return written


def placeholder(module: str, entry: dict[str, Any], source: dict[str, str]) -> str:
    """One placeholder module's text: the container's constants, everything else raising."""
    names = entry["names"]
    constants = all(what["kind"] == "constant" for what in names.values())
    summary = (
        f"{module} in sagelaunch local: a package, as in the container."
        if not names
        else f"{module} in sagelaunch local: the container's constants, with its values."
        if constants
        else f"{module} in sagelaunch local: the container's names, not its behaviour. Its "
        "constants carry the container's values; the rest raises when used (never at import), "
        "naming what is not emulated and where the job runs instead."
    )
    head = [
        f"{MARKER} from",
        f"# {source['repo']}@{source['commit']}",
        f"# {entry['path']}.",
        "# Do not edit: a module written by hand in its place is kept instead.",
        '"""' + "\n".join(textwrap.wrap(summary, 94)) + '"""',
        "",
    ]
    lines = [f"{name} = {_definition(name, what)}" for name, what in names.items()]
    imports = [] if constants else ["from sagemaker_xgboost_container import _not_emulated", ""]
    return "\n".join([*head, *imports, *lines]) + "\n"


def _definition(name: str, what: dict[str, Any]) -> str:
    """The right-hand side that gives ``name`` in a placeholder module."""
    kind = what["kind"]
    if kind == "constant":
        return _source(ast.literal_eval(what["value"]))
    if kind == "logger":
        return "_not_emulated.logger(__name__)"
    if kind == "environment":
        cast = ", cast=int" if what.get("cast") == "int" else ""
        return f"_not_emulated.environment({what['variable']!r}, {what['default']!r}{cast})"
    if kind == "class":
        exception = ", exception=True" if what["exception"] else ""
        return f"_not_emulated.placeholder_class(__name__, {name!r}{exception})"
    return f"_not_emulated.{kind}(__name__, {name!r})"


def _source(value: Any) -> str:
    """A literal as source, long strings split in parts the formatter can lay out."""
    if isinstance(value, str) and len(value) > 70:
        words = value.split(" ")
        parts, part = [], ""
        for word in words:
            if part and len(part) + len(word) > 60:
                parts.append(part)
                part = ""
            part += word + " "
        parts.append(part[:-1])
        return "(" + " ".join(repr(p) for p in parts) + ")"
    if isinstance(value, list | tuple | set) and value:
        items = [_source(item) for item in (sorted(value) if isinstance(value, set) else value)]
        brackets = {list: "[]", tuple: "()", set: "{}"}[type(value)]
        return (
            brackets[0] + ", ".join(items) + ("," if isinstance(value, tuple) else "") + brackets[1]
        )
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_source(k)}: {_source(v)}" for k, v in value.items()) + "}"
    return literal(value)


def formatted(file: Path, text: str) -> str:
    """``text`` as `ruff format` lays it out with the project's settings (a dev dependency)."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", str(file), "-"],
        input=text, capture_output=True, check=True, text=True,
    )  # fmt: skip
    return done.stdout


def stale(expected: dict[Path, str]) -> list[str]:
    """The files that differ from what the generator would write, and placeholder modules it
    would no longer write (their module left the library)."""
    differing = [
        path for path, text in expected.items()
        if not path.is_file() or path.read_text("utf-8") != text
    ]  # fmt: skip
    leftover = [
        path for path in STAND_IN.rglob("*.py")
        if path not in expected and path.read_text("utf-8").startswith(MARKER)
    ]  # fmt: skip
    return sorted(str(path) for path in differing + leftover)


def main(argv: list[str] | None = None) -> int:
    """Write (or with --check, compare) the data file and the placeholder modules."""
    import argparse

    parser = argparse.ArgumentParser(prog=GENERATOR, description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--git", type=Path, help="a clone's git directory of " + XGB)
    parser.add_argument("--commit", default=XGB_MASTER, help="default: %(default)s")
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args(argv)
    expected: dict[Path, str] = {}
    if args.git:
        content = data(read_sources(args.git, args.commit), args.commit)
        expected[DATA_FILE] = data_text(content)
    else:
        content = json.loads(DATA_FILE.read_text("utf-8"))
    expected |= placeholders(content)
    if args.check:
        differing = stale(expected)
        for name in differing:
            print(f"differs from what the generator writes: {name}")
        return 1 if differing else 0
    for path, text in expected.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    print(f"wrote {len(expected)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())

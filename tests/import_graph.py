"""One import graph for every fence (the cycle and floor tests, the layering rules): every import
a module makes, at module level, under ``if``/``try`` and inside functions (the lazy imports that
keep the heavy SDKs off the fast path are arrows too), relative ones resolved; under ``if
TYPE_CHECKING`` nothing runs, but an annotation there is a dependency a reader follows, so the
CLI's graphs count those unless asked not to. The entry points are in it twice: as the package
pyproject.toml maps (``sagelaunch.entrypoints.<framework>.<module>``, what the CLI imports) and
as one container's /opt/ml/code, by bare name (``entrypoint_graph``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import ENTRYPOINTS, REPO

PACKAGE = REPO / "cli" / "sagelaunch"
FRAMEWORKS = sorted(p.name for p in ENTRYPOINTS.iterdir() if p.is_dir() and p.name != "__pycache__")

Graph = dict[str, set[str]]


def loaded_imports(
    body: list[ast.stmt], typing: bool = False
) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run: at any depth (functions, classes, branches), and
    under ``if TYPE_CHECKING`` only with ``typing`` (else only its else branch runs)."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and _type_checking(node.test) and not typing:
            yield from loaded_imports(node.orelse)
        else:
            children = [c for c in ast.iter_child_nodes(node) if _statement(c)]
            yield from loaded_imports(children, typing)


def _statement(node: ast.AST) -> bool:
    return isinstance(node, ast.stmt | ast.excepthandler | ast.match_case)


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


# pyproject.toml's package-dir maps this package onto entrypoints/ (the scripts ship inside the
# wheel): an import of it is an arrow like any other, though its files live outside cli/.
MAPPED = "sagelaunch.entrypoints"


def package_modules() -> dict[str, Path]:
    """sagelaunch's modules by dotted name (a package by its own name, not ``__init__``), the
    entry points' under their mapped name (``sagelaunch.entrypoints.pytorch.torch_mesh``)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    for path in ENTRYPOINTS.glob("*/*.py"):
        found[f"{MAPPED}.{path.parent.name}.{path.stem}"] = path
    return found


def package_graph(typing: bool = True) -> Graph:
    modules = package_modules()
    return {
        name: _package_edges(name, path, modules, typing) - {name} for name, path in modules.items()
    }


def room_of(module: str) -> str:
    """``sagelaunch.checks.rules.capacity`` -> ``sagelaunch.checks``; a top-level module is its
    own room."""
    return ".".join(module.split(".")[:2])


def room_graph() -> Graph:
    """The rooms and which import which (every import, type-only ones included)."""
    rooms: Graph = {}
    for module, imported in package_graph().items():
        if module == "sagelaunch":  # the package's face: a docstring and a version
            continue
        here = room_of(module)
        rooms.setdefault(here, set()).update(
            room_of(m) for m in imported if m != "sagelaunch" and room_of(m) != here
        )
    return rooms


def _package_edges(name: str, path: Path, modules: dict[str, Path], typing: bool) -> set[str]:
    here = name if path.name == "__init__.py" else name.rpartition(".")[0]
    edges = set()
    for node in loaded_imports(ast.parse(path.read_text()).body, typing):
        if isinstance(node, ast.Import):
            edges |= {alias.name for alias in node.names}
            continue
        base = node.module or ""
        if node.level:  # relative: from the package ``level - 1`` above this one
            anchor = here.rsplit(".", node.level - 1)[0] if node.level > 1 else here
            base = f"{anchor}.{base}" if base else anchor
        submodules = {f"{base}.{alias.name}" for alias in node.names}
        edges |= (submodules & modules.keys()) or {base}
    return edges & modules.keys()


def entrypoint_graph(framework: str) -> Graph:
    """One container's /opt/ml/code: the framework's scripts and the shared ones, by bare name."""
    modules = {path.stem: path for path in (ENTRYPOINTS / "shared").glob("*.py")}
    modules |= {path.stem: path for path in (ENTRYPOINTS / framework).glob("*.py")}
    graph = {}
    for name, path in modules.items():
        imported = set()
        for node in loaded_imports(ast.parse(path.read_text()).body):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
            elif node.level == 0 and node.module:
                imported.add(node.module)
        graph[name] = (imported & modules.keys()) - {name}
    return graph


def cycles(graph: Graph) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module, as the path that
    closes it (``a -> b -> a``)."""
    return [_cycle_in(graph, component) for component in _components(graph) if len(component) > 1]


def _components(graph: Graph) -> list[set[str]]:
    """Tarjan's strongly connected components, iteratively (no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, successors = work[-1]
            successor = next(successors, None)
            if successor is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    found.append(_pop_component(stack, node))
            elif successor not in index:
                index[successor] = low[successor] = len(index)
                stack.append(successor)
                work.append((successor, iter(sorted(graph[successor]))))
            elif successor in stack:
                low[node] = min(low[node], index[successor])
    return found


def _pop_component(stack: list[str], root: str) -> set[str]:
    component = set()
    while True:
        node = stack.pop()
        component.add(node)
        if node == root:
            return component


def _cycle_in(graph: Graph, component: set[str]) -> list[str]:
    """A shortest path from the component's first module back to itself, inside it."""
    start = min(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for successor in sorted(graph[node] & component):
                if successor == start:
                    return [*paths[node], start]
                if successor not in paths:
                    paths[successor] = [*paths[node], successor]
                    following.append(successor)
        frontier = following
    raise AssertionError(f"{sorted(component)} is not strongly connected")


def described(found: list[list[str]]) -> str:
    return "; ".join(" -> ".join(cycle) for cycle in found)

"""No import cycle, in the CLI package nor in any entry-point folder, and the CLI's rooms on
floors.

The graph holds every import a module makes: at module level, under ``if``/``try``, and inside
functions (the lazy imports that keep the heavy SDKs off the fast path are still arrows: a lazy
import back up is a cycle all the same). Under ``if TYPE_CHECKING`` nothing runs, but an
annotation there is still a dependency a reader follows: the CLI's graphs count those too.
A room is one folder of the package (config/, strategies/, ...) or one top-level module; rooms
stand on floors when no room imports one that (through others) imports it back, so no import
runs back up. Entry points import each other by bare module name, as they do in the container's
/opt/ml/code, with entrypoints/shared beside every framework's folder.
"""

from __future__ import annotations

import ast

import pytest

from tests.import_graph import (
    ENTRYPOINTS,
    FRAMEWORKS,
    MAPPED,
    PACKAGE,
    cycles,
    described,
    entrypoint_graph,
    loaded_imports,
    package_graph,
    room_graph,
)


def test_the_finder_names_a_cycle_sees_lazy_imports_and_ignores_typing_ones() -> None:
    source = (
        "import b\nif TYPE_CHECKING:\n    import c\nelse:\n    import e\ndef f():\n    import d\n"
        "class K:\n    def g(self):\n        try:\n            import h\n        except E:\n"
        "            import i\n"
    )
    found = {node.names[0].name for node in loaded_imports(ast.parse(source).body)}
    assert found == {"b", "e", "d", "h", "i"}
    typed = {node.names[0].name for node in loaded_imports(ast.parse(source).body, typing=True)}
    assert typed == {"b", "c", "e", "d", "h", "i"}
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert described(cycles(graph)) == "a -> b -> c -> a"
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_cli_package_has_no_import_cycle() -> None:
    graph = package_graph()
    assert "sagelaunch.checks.rules.registry" in graph["sagelaunch.checks.rules.capacity"]
    # a type-only import counts: strategies see configs through a view, not the model above them
    assert "sagelaunch.config.model" in graph["sagelaunch.config.loader"]
    assert cycles(graph) == [], f"import cycles: {described(cycles(graph))}"


def test_the_cli_rooms_stand_on_floors_no_import_runs_back_up() -> None:
    rooms = room_graph()
    assert "sagelaunch.catalog" in rooms["sagelaunch.strategies"]
    assert "sagelaunch.strategies" in rooms["sagelaunch.config"]
    assert "sagelaunch.config" not in rooms["sagelaunch.strategies"]
    assert cycles(rooms) == [], f"rooms importing each other: {described(cycles(rooms))}"


def test_the_config_holds_what_the_user_wrote_and_imports_no_check_plan_or_behaviour():
    """config/ is what the user wrote: it imports the catalog, shared top-level values and the
    strategies' settings models (registry's union of them, base's types), nothing that checks
    a config (checks/) or turns it into a plan (plan/), and none of them imports it back up."""
    rooms, graph = room_graph(), package_graph()
    packages = {"sagelaunch.catalog", "sagelaunch.strategies"}
    folders = {name for name in rooms if (PACKAGE / name.split(".", 1)[1]).is_dir()}
    assert rooms["sagelaunch.config"] & folders <= packages, sorted(rooms["sagelaunch.config"])
    strategies = {
        imported
        for module, imports in graph.items()
        if module.startswith("sagelaunch.config.")
        for imported in imports
        if imported.startswith("sagelaunch.strategies")
    }
    assert strategies == {"sagelaunch.strategies.registry", "sagelaunch.strategies.base"}
    assert {"sagelaunch.config", "sagelaunch.strategies", "sagelaunch.plan"} <= rooms[
        "sagelaunch.checks"
    ]
    assert "sagelaunch.checks" not in rooms["sagelaunch.plan"]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_an_entry_point_folder_has_no_import_cycle(framework: str) -> None:
    graph = entrypoint_graph(framework)
    assert graph, f"no entry point modules in entrypoints/{framework}"
    assert cycles(graph) == [], f"entrypoints/{framework}: {described(cycles(graph))}"


def test_the_cli_imports_only_the_mesh_resolver_of_the_entry_points_which_imports_only_stdlib():
    """The CLI plans PyTorch meshes with the entry point's own resolver (one answer for `plan`
    and the job) and nothing else of entrypoints/: the rest needs torch. torch_mesh.py runs in
    the CLI's process, so it imports only the standard library (and no other entry point)."""
    import sys

    graph = package_graph()
    reached = {
        imported
        for module, imports in graph.items()
        if not module.startswith(MAPPED)
        for imported in imports
        if imported.startswith(MAPPED)
    }
    assert reached == {f"{MAPPED}.pytorch.torch_mesh"}  # plan/mesh.py's import is seen
    assert "sagelaunch.entrypoints" in room_graph()["sagelaunch.plan"]
    mesh = ENTRYPOINTS / "pytorch" / "torch_mesh.py"
    tops = set()
    for node in loaded_imports(ast.parse(mesh.read_text()).body, typing=True):
        if isinstance(node, ast.Import):
            tops |= {alias.name.partition(".")[0] for alias in node.names}
        elif node.module:
            assert node.level == 0, "torch_mesh.py: a relative import"
            tops.add(node.module.partition(".")[0])
    assert tops - {"__future__"} <= sys.stdlib_module_names, sorted(tops)

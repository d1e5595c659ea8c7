"""The entry points' layout: one folder per framework, and each job's bundle holds that folder only.

The shipped folders are bundled exactly as `plan` and `submit` bundle them (sagelaunch.bundle), then
checked against the modules' own imports: everything a bundled script imports from the entry points
is in the bundle, and nothing of another framework is.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sagelaunch import bundle
from sagelaunch.config.paths import default_source_dir, shipped_source_dir
from tests.conftest import REPO

FRAMEWORKS = ("pytorch", "tensorflow", "xgboost")
SHARED = REPO / "entrypoints" / "shared"
# What the other frameworks' code looks like, by module name.
FOREIGN = {
    "pytorch": ("tf_", "train_tensorflow", "xgb_", "train_xgboost"),
    "tensorflow": ("torch_", "train_pytorch", "xgb_", "train_xgboost"),
    "xgboost": ("torch_", "train_pytorch", "tf_", "train_tensorflow"),
}


def every_entrypoint_module() -> set[str]:
    return {path.stem for path in (REPO / "entrypoints").glob("*/*.py")}


def sibling_imports(source: str, siblings: set[str], top_level_only: bool = False) -> set[str]:
    """Entry-point modules a file imports, at any level (lazy imports count: they run too), or
    at module level only."""
    tree = ast.parse(source)
    found = set()
    for node in tree.body if top_level_only else ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found & siblings


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_jobs_bundle_holds_its_frameworks_code_and_the_shared_modules_only(framework):
    shipped = bundle.build(shipped_source_dir(framework))
    modules = {Path(name).stem for name in shipped.files}
    assert all("/" not in name for name in shipped.files)  # flat, as /opt/ml/code expects
    assert f"train_{framework}" in modules
    assert {path.stem for path in SHARED.glob("*.py")} <= modules
    assert not [m for m in modules if m.startswith(FOREIGN[framework])]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_everything_a_bundled_module_imports_is_in_the_bundle(framework, tmp_path):
    bundle.extract(bundle.build(shipped_source_dir(framework)).data, tmp_path)
    bundled = {path.stem for path in tmp_path.glob("*.py")}
    for path in tmp_path.glob("*.py"):
        missing = sibling_imports(path.read_text(), every_entrypoint_module()) - bundled
        assert not missing, f"{path.name} imports {missing}, not in the {framework} bundle"


def test_every_framework_folder_links_every_shared_module():
    for framework in FRAMEWORKS:
        for module in SHARED.glob("*.py"):
            link = REPO / "entrypoints" / framework / module.name
            assert link.is_symlink() and link.resolve() == module.resolve(), link


def test_linked_and_copied_trees_give_the_same_bundle_bytes(tmp_path):
    # A built wheel holds copies where the checkout holds links: same bytes, same S3 key.
    linked = shipped_source_dir("pytorch")
    copied = shutil.copytree(linked, tmp_path / "pytorch", ignore=shutil.ignore_patterns("__*"))
    assert bundle.build(linked).sha256 == bundle.build(copied).sha256


def test_the_default_source_dir_is_the_frameworks_folder_for_a_shipped_script(tmp_path):
    config = REPO / "launch_configs" / "cpu-local.yaml"
    for framework in FRAMEWORKS:
        script = f"train_{framework}.py"
        assert default_source_dir(config, script, framework) == REPO / "entrypoints" / framework
    (tmp_path / "train_pytorch.py").write_text("")  # a user's own script beside the config wins
    assert default_source_dir(tmp_path / "job.yaml", "train_pytorch.py", "pytorch") == tmp_path


@pytest.mark.slow
@pytest.mark.parametrize("framework", ["pytorch", "xgboost"])
def test_the_extracted_bundle_runs_from_its_own_folder(framework, tmp_path):
    """As in the container: the bundle extracted flat, the script run from that folder."""
    bundle.extract(bundle.build(shipped_source_dir(framework)).data, tmp_path)
    done = subprocess.run(
        [sys.executable, f"train_{framework}.py", "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: train_{framework}.py")


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_no_module_level_import_cycle(framework):
    """Module-level imports between a framework's modules form no cycle (an import inside a
    function, taken when it runs, is not module-level)."""
    folder = shipped_source_dir(framework)
    modules = {path.stem for path in folder.glob("*.py")}
    graph = {
        path.stem: sibling_imports(path.read_text(), modules, top_level_only=True)
        for path in folder.glob("*.py")
    }
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, " -> ".join([*path, module])
        if module not in done:
            for imported in sorted(graph[module]):
                visit(imported, (*path, module))
            done.add(module)

    for module in sorted(graph):
        visit(module, ())

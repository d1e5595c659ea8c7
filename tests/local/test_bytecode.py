"""`sagelaunch local` compiles, once and outside the sandbox, the bytecode of the installed
packages a job imports (local/bytecode.py): in the sandbox the environment is read-only, so a
package installed without bytecode (as uv installs) would be compiled from source by every host
process on every run. Checked with a venv made here, packages installed into it without bytecode,
and a library of the user's on PYTHONPATH that must stay as it was."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sysconfig
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from sagelaunch.local import bytecode, sandbox
from tests.local.conftest import checksums, clean_env, visible_root, warm_plan

NAMESPACES = sandbox.choose("auto").isolated
COMPILING = "compiling the bytecode of"

SCRIPT = """
import mine, tinylib
print("value", tinylib.VALUE, mine.NAME, flush=True)
"""


def test_import_lines_name_the_top_level_modules_a_job_needs(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "train.py").write_text(
        "import os, json\nimport numpy as np, xgboost.core\nfrom torch.distributed import run\n"
        "from . import helper\n\ndef later():\n    import deepspeed\n"
    )
    (tmp_path / "pkg" / "helper.py").write_text("from __future__ import annotations\nimport yaml\n")
    (tmp_path / "notes.txt").write_text("import pandas\n")  # not Python
    assert bytecode.imported_names(tmp_path) == {"numpy", "xgboost", "torch", "deepspeed", "yaml"}


def install(site: Path, name: str, files: dict[str, str], requires: tuple[str, ...] = ()) -> None:
    """What an installer that writes no bytecode leaves: the files and a dist-info."""
    for relative, text in files.items():
        (site / relative).parent.mkdir(parents=True, exist_ok=True)
        (site / relative).write_text(text)
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    needs = "".join(f"Requires-Dist: {r}\n" for r in requires)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n{needs}")
    recorded = [*files, f"{info.name}/METADATA", f"{info.name}/RECORD"]
    (info / "RECORD").write_text("".join(f"{path},,\n" for path in recorded))


def has_bytecode(source: Path) -> bool:
    return Path(importlib.util.cache_from_source(str(source))).is_file()


@pytest.fixture
def root() -> Iterator[Path]:
    made = visible_root("test-bytecode")
    made.mkdir(parents=True)
    yield made
    shutil.rmtree(made, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.skipif(not NAMESPACES, reason="this machine cannot make user namespaces")
def test_packages_without_bytecode_are_compiled_once_and_nothing_of_the_users(root, tmp_path):
    venv.EnvBuilder(with_pip=False).create(root / "venv")
    python = root / "venv" / "bin" / "python"
    where = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = Path(subprocess.check_output([python, "-c", where], text=True).strip())
    # sagelaunch and its dependencies: the test venv's, behind this venv's own packages
    (site / "test-venv.pth").write_text(
        f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n"
    )
    tinylib = {
        "tinylib/__init__.py": "import tinydep\nVALUE = tinydep.VALUE * 2\n",
        "tinylib/extra.py": "UNUSED = 1\n",  # never imported: compiled with the rest
    }
    install(site, "tinylib", tinylib, requires=("tinydep>=1",))
    install(site, "tinydep", {"tinydep.py": "VALUE = 21\n"})
    install(site, "bystander", {"bystander/__init__.py": "NEVER = 'imported'\n"})
    (root / "userlib" / "mine").mkdir(parents=True)
    (root / "userlib" / "mine" / "__init__.py").write_text("NAME = 'mine'\n")
    (root / "code").mkdir()
    (root / "code" / "train.py").write_text(SCRIPT)
    config = {
        "name": "bytecode-test",
        "framework": "pytorch",
        "framework_version": "2.8.0",
        "entry_point": "train.py",
        "source_dir": "code",
        "compute": {"instance_type": "ml.c5.xlarge", "instance_count": 1},
        "distribution": {"strategy": "none"},
        # tinylib is this venv's, in no image: the job sees it only with the whole venv
        "local": {"software": "machine"},
    }
    (root / "job.yaml").write_text(yaml.safe_dump(config))
    users = {name: checksums(root / name) for name in ("userlib", "code")}
    command = [python, "-m", "sagelaunch", "local", "job.yaml", "--workdir", str(tmp_path / "run")]
    env = clean_env(PYTHONPATH=str(root / "userlib"))
    # The plan in the session's plan cache first, as run_local's runs have it (warm_plan): the
    # SDK is imported once per test worker, not by this run's interpreter; what is checked here
    # (bytecode compiled for the hosts) is after the plan.
    warm_plan(root / "job.yaml", "--workdir", str(tmp_path / "run"))

    first = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    assert "value 42 mine" in first.stderr
    assert f"{COMPILING} tinylib and what it requires" in first.stderr
    for module in ("tinylib/__init__.py", "tinylib/extra.py", "tinydep.py"):  # all of it, and
        assert has_bytecode(site / module), module  # what it requires
    assert not has_bytecode(site / "bystander" / "__init__.py")
    # The host imported `mine` but could not write its bytecode (the sandbox): none was written
    # by sagelaunch either, in the user's library or code.
    assert {name: checksums(root / name) for name in users} == users

    again = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert "value 42 mine" in again.stderr
    assert COMPILING not in again.stderr

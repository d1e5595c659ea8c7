"""The layering the linter and the import graph hold: commands never reach AWS themselves (a
service does), and aws/ depends on nothing above it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO
from tests.import_graph import package_graph, package_modules

RUFF = Path(sys.executable).parent / "ruff"
PACKAGE = REPO / "cli" / "sagelaunch"


def root_bans() -> list[str]:
    """The modules pyproject.toml's banned-api table names."""
    text = (REPO / "pyproject.toml").read_text()
    table = text.split("[tool.ruff.lint.flake8-tidy-imports.banned-api]", 1)[1].split("\n[", 1)[0]
    return re.findall(r'^"([\w.]+)"\.msg', table, flags=re.MULTILINE)


def banned_at(path: str, modules: list[str]) -> set[str]:
    """Which of ``modules`` ruff refuses in a function of a module at ``path``."""
    source = "def probe():\n" + "".join(f"    import {m}\n" for m in modules)
    command = [RUFF, "check", "--no-cache", "--select", "TID251", "--output-format", "json"]
    proc = subprocess.run(
        [*command, "--stdin-filename", path, "-"],
        input=source,
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    return {modules[d["location"]["row"] - 2] for d in json.loads(proc.stdout)}


def test_commands_may_not_import_aws_nor_any_sdk() -> None:
    modules = [*root_bans(), "sagelaunch.aws"]
    assert "boto3" in modules and "sagemaker" in modules
    assert banned_at("cli/sagelaunch/commands/probe.py", modules) == set(modules)


def test_services_may_import_aws_but_no_sdk() -> None:
    modules = [*root_bans(), "sagelaunch.aws"]
    assert banned_at("cli/sagelaunch/services/probe.py", modules) == set(root_bans())


def test_sweeps_stand_on_the_services_floor() -> None:
    """sweeps/ may import aws/ as services/ does, but no SDK; and nothing below it imports it:
    only the commands run sweeps."""
    modules = [*root_bans(), "sagelaunch.aws"]
    assert banned_at("cli/sagelaunch/sweeps/probe.py", modules) == set(root_bans())
    importers = {
        path.relative_to(PACKAGE).parts[0]
        for path in PACKAGE.rglob("*.py")
        for name in _sagelaunch_imports(path)
        if name == "sagelaunch.sweeps" or name.startswith("sagelaunch.sweeps.")
    }
    assert importers == {"commands", "sweeps"}


def test_the_commands_import_nothing_from_aws() -> None:
    imported = {
        f"{path.name}: {name}"
        for path in (PACKAGE / "commands").glob("*.py")
        for name in _sagelaunch_imports(path)
        if name == "sagelaunch.aws" or name.startswith("sagelaunch.aws.")
    }
    assert imported == set()


# What aws/ may import of sagelaunch: itself, and the plain modules every layer shares.
BELOW_AWS = (
    "sagelaunch.aws",
    "sagelaunch.errors",
    "sagelaunch.statuses",
    "sagelaunch.job_events",
    "sagelaunch.s3uri",
    "sagelaunch.caches",  # where the trimmed botocore models are kept (aws/models.py)
    "sagelaunch.nearest",  # "did you mean" for a region typo
    "sagelaunch.resource_config",  # which instances a ResourceConfig names (quotas in use)
)


def test_aws_depends_on_nothing_above_it() -> None:
    above = {
        f"{path.name}: {name}"
        for path in (PACKAGE / "aws").glob("*.py")
        for name in _sagelaunch_imports(path)
        if not any(name == ok or name.startswith(ok + ".") for ok in BELOW_AWS)
    }
    assert above == set()


def _sagelaunch_imports(path: Path) -> set[str]:
    """Every sagelaunch module ``path`` imports, at any level, relative imports resolved
    (``from sagelaunch import aws`` and ``from .. import aws`` count as ``sagelaunch.aws``): the
    fences' one import graph."""
    return _GRAPH[_MODULE_OF[path.resolve()]]


_GRAPH = package_graph()
_MODULE_OF = {path.resolve(): name for name, path in package_modules().items()}

"""sagelaunch as a user installs it: the wheel built from a clean checkout, in an environment of
its own with the core dependencies only, runs every command a CI pipeline runs.

Once for the module (`installed`): a copy of the checkout as a clone has it; then the GitHub
workflow's pull-request job, install step included, exactly as examples/ci/github-actions.yml
says: `uv build` (the sdist, then the wheel built from the sdist), `uv tool install` of the
wheel (a new environment, here under tmp_path, no torch), its bin folder on PATH through
$GITHUB_PATH, then `validate --strict`, `plan --out plan.json --output json` (no AWS
credentials) and the summary. uv resolves offline: this machine's uv cache and the find-links and
extra indexes that pip is configured with, which the Makefile passes to uv too. Nothing else on
PATH offers a `sagelaunch`, and nothing puts the checkout on the path.

Not run here: `sagelaunch local` from the wheel. The `local` extra cannot be installed offline
(uv itself, one of its requirements, is in neither the uv cache nor the local indexes: `make
setup` installs uv with pip), and a first run in a fresh environment compiles the bytecode of
torch and what it imports (cpu-local.yaml took 12.7 s so, commit 8ca2a47), past this file's
budget. The local command's help and the files it needs from the package (the shipped entry
points, the container stand-ins) are checked instead.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.aws.conftest import boto_client
from tests.aws.test_ci_examples import (
    CI,
    github_install,
    github_job,
    gitlab_install,
    load_workflow,
)
from tests.conftest import REPO
from tests.packaging.shipped import copy_checkout, expected_in_wheel

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("wheel")]

FRAMEWORKS = ("pytorch", "tensorflow", "xgboost")

# What the installed package finds of its own files, asked of the tool environment's Python.
RESOURCES = """
import importlib.util, json
import sagelaunch
from sagelaunch.config.paths import shipped_source_dir
from sagelaunch.local.container_packages import STAND_INS_DIR
print(json.dumps({
    "package": sagelaunch.__file__,
    "entrypoints": {
        fw: {p.name: p.read_text() for p in shipped_source_dir(fw).iterdir() if p.suffix == ".py"}
        for fw in ("pytorch", "tensorflow", "xgboost")
    },
    "stand_ins": sorted(p.relative_to(STAND_INS_DIR).as_posix()
                        for p in STAND_INS_DIR.rglob("*.py")),
    "stand_ins_dir": str(STAND_INS_DIR),
    "torch": importlib.util.find_spec("torch") is not None,
}))
"""


@dataclass
class Installed:
    checkout: Path  # the copy the wheel was built in, and where the commands run
    files: list[str]  # the checkout's files (as git lists them)
    tools: Path  # UV_TOOL_DIR: the tool environment is tools/sagelaunch
    bin: Path  # UV_TOOL_BIN_DIR: the `sagelaunch` script
    environ: dict[str, str]  # the commands' environment: PATH, uv's settings, no AWS
    plan_job: dict[str, Any]  # the pull-request job's result (tests/aws/test_ci_examples.py)
    plan_view: dict[str, Any]  # and the plan it printed (plan-view.json)

    @property
    def python(self) -> Path:
        return self.tools / "sagelaunch" / "bin" / "python"

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``sagelaunch ARGS`` as the CI's later steps find it, on PATH, in the checkout."""
        env = {**self.environ, "PATH": f"{self.bin}{os.pathsep}{self.environ['PATH']}"}
        return subprocess.run(
            ["sagelaunch", *args], cwd=self.checkout, env=env, capture_output=True, text=True,
            timeout=120,
        )  # fmt: skip


def pip_settings() -> dict[str, list[str]]:
    """pip's configured global settings (what the Makefile's `pip config get global.KEY` reads)."""
    listed = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True
    ).stdout
    settings = {}
    for line in listed.splitlines():
        key, _, value = line.partition("=")
        if key.startswith("global."):
            settings[key.removeprefix("global.")] = value.strip("'\"").split()
    return settings


def uv_environment(tmp: Path) -> dict[str, str]:
    """uv offline, on this machine's cache and pip's find-links and extra indexes (the Makefile's
    UV_SOURCES), installing tools under ``tmp`` with this Python, never downloading one."""
    uv = Path(sys.executable).with_name("uv")
    if not uv.exists():  # `make setup` falls back to pip where uv cannot be installed
        pytest.skip("uv is not installed in this venv: the examples' install lines need it")
    cache = subprocess.run([uv, "cache", "dir"], capture_output=True, text=True, check=True)
    pip = pip_settings()
    env = {
        "UV_OFFLINE": "1",
        "UV_CACHE_DIR": cache.stdout.strip(),
        "UV_INDEX_STRATEGY": "unsafe-best-match",
        "UV_CONSTRAINT": str(REPO / "cli" / "constraints.txt"),
        "UV_PYTHON": sys.executable,
        "UV_PYTHON_DOWNLOADS": "never",
        "UV_NO_PROGRESS": "1",
        "UV_TOOL_DIR": str(tmp / "tools"),
        "UV_TOOL_BIN_DIR": str(tmp / "bin"),
    }
    if pip.get("find-links"):
        env["UV_FIND_LINKS"] = ",".join(pip["find-links"])
    if pip.get("extra-index-url"):
        env["UV_EXTRA_INDEX_URL"] = " ".join(pip["extra-index-url"])
    # The runner has uv (the examples' `pip install uv`); only uv, not this venv's sagelaunch.
    (tmp / "uv").mkdir()
    (tmp / "uv" / "uv").symlink_to(uv)
    return env


def clean_environ(tmp: Path) -> dict[str, str]:
    """This process's environment without what would reach AWS, another sagelaunch or the
    checkout's sources: no credentials, no PYTHONPATH, no other `sagelaunch` on PATH."""
    drop = ("AWS_", "UV_", "SAGELAUNCH_", "PYTHON", "VIRTUAL_ENV", "CONDA_PREFIX")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    path = [d for d in env["PATH"].split(os.pathsep) if d and not Path(d, "sagelaunch").exists()]
    env.update(
        PATH=os.pathsep.join([str(tmp / "uv"), *path]),
        AWS_CONFIG_FILE="/nonexistent/aws-config",
        AWS_SHARED_CREDENTIALS_FILE="/nonexistent/aws-credentials",
        AWS_EC2_METADATA_DISABLED="true",
        XDG_CACHE_HOME=str(tmp / "xdg-cache"),  # the SDK's trimmed model, not in ~
    )
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    tmp = tmp_path_factory.mktemp("wheel")
    checkout = tmp / "repo"
    files = copy_checkout(REPO, checkout)
    environ = {**clean_environ(tmp), **uv_environment(tmp)}
    plan_job = github_job(load_workflow(), "plan", checkout, environ=environ, install=True)
    assert plan_job["code"] == 0, plan_job["stderr"][-3000:]
    tools, bin_dir = Path(environ["UV_TOOL_DIR"]), Path(environ["UV_TOOL_BIN_DIR"])
    plan_view = json.loads((checkout / "plan-view.json").read_text())
    return Installed(checkout, files, tools, bin_dir, environ, plan_job, plan_view)


def test_the_wheel_and_the_sdist_hold_every_file_of_the_package(installed):
    dist = installed.checkout / "dist"
    (wheel,) = dist.glob("sagelaunch-*.whl")
    (sdist,) = dist.glob("sagelaunch-*.tar.gz")
    expected = expected_in_wheel(installed.files)
    with zipfile.ZipFile(wheel) as archive:
        names = {n for n in archive.namelist() if ".dist-info/" not in n}
        assert sorted(expected - names) == [], "left out of the wheel"
        assert sorted(names - expected) == [], "in the wheel, but no file of the checkout"
        shared = {n.rpartition("/")[2]: archive.read(n) for n in names if "/shared/" in n}
        for fw in FRAMEWORKS:  # the links to the shared modules, as copies
            for name, text in shared.items():
                assert archive.read(f"sagelaunch/entrypoints/{fw}/{name}") == text
    # The wheel was built from the sdist (uv build's way): it holds the sources it needs.
    with tarfile.open(sdist) as archive:
        prefix = archive.getmembers()[0].name.split("/")[0] + "/"
        members = {m.name.removeprefix(prefix): m for m in archive.getmembers()}
    sources = [p for p in installed.files if expected_in_wheel([p])]
    for path in [*sources, "pyproject.toml", "setup.py", "README.md"]:  # links as copies
        assert path in members and members[path].isfile(), path


def test_the_installed_tool_validates_plans_imports_and_exports_offline(installed):
    assert installed.plan_job["summary"].startswith("### sagelaunch plan: `bert-smddp-")
    assert (installed.checkout / "github-path.txt").read_text().split() == [str(installed.bin)]
    env_path = f"{installed.bin}{os.pathsep}{installed.environ['PATH']}"
    assert shutil.which("sagelaunch", path=env_path) == str(installed.bin / "sagelaunch")

    helped = installed.run("--help")
    assert helped.returncode == 0 and "validate" in helped.stdout, helped.stderr
    validated = installed.run("validate", "launch_configs/")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert " 0 invalid" in validated.stdout

    # The pull-request job's plan, made offline: its code bundle is the installed package's.
    view = installed.plan_view
    assert not view["quota"]["checked"]  # no credentials: nothing was asked of AWS
    with tarfile.open(installed.checkout / "plan.sourcedir.tar.gz") as bundle:
        bundled = {m.name.removeprefix("./") for m in bundle.getmembers() if m.isfile()}
    assert {"train_pytorch.py", "smenv.py", "shared_hparams.py"} <= bundled

    (installed.checkout / "request.json").write_text(json.dumps(view["request"]))
    imported = installed.run("import", "request.json", "--out", "imported.yaml")
    assert imported.returncode == 0, imported.stderr
    config = yaml.safe_load((installed.checkout / "imported.yaml").read_text())
    assert config["distribution"]["strategy"] == "smddp" and config["name"] == "bert-smddp"

    exported = installed.run("export", "plan.json", "--out", "job.py")
    assert exported.returncode == 0, exported.stderr
    script = (installed.checkout / "job.py").read_text()
    ast.parse(script)
    assert view["job_name"] in script

    assert installed.run("local", "--help").returncode == 0


def test_the_installed_package_finds_its_entry_points_and_container_stand_ins(installed):
    done = subprocess.run(
        [str(installed.python), "-I", "-c", RESOURCES],
        cwd=installed.checkout.parent, capture_output=True, text=True, check=True,
    )  # fmt: skip
    found = json.loads(done.stdout)
    site = installed.tools / "sagelaunch"
    assert Path(found["package"]).is_relative_to(site)  # not the checkout's
    assert not found["torch"]  # the core dependencies only
    entrypoints = installed.checkout / "entrypoints"
    for fw in FRAMEWORKS:
        shipped = {p.name: p.read_text() for p in (entrypoints / fw).glob("*.py")}
        assert found["entrypoints"][fw] == shipped, fw
    stand_ins = installed.checkout / "cli" / "sagelaunch" / "local" / "container_libraries"
    assert found["stand_ins"] == sorted(p.relative_to(stand_ins).as_posix()
                                        for p in stand_ins.rglob("*.py"))  # fmt: skip
    assert Path(found["stand_ins_dir"]).is_relative_to(site)


def test_gitlab_installs_with_the_same_lines(installed):
    """GitLab's before_script is the GitHub step, its PATH set in the shell: that line finds
    the installed script."""
    workflow, pipeline = load_workflow(), yaml.safe_load((CI / "gitlab-ci.yml").read_text())
    github, gitlab = github_install(workflow).splitlines(), gitlab_install(pipeline)
    assert github[:-1] == gitlab[:-1]
    assert github[-1] == 'uv tool dir --bin >> "$GITHUB_PATH"'
    found = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", f"{gitlab[-1]}\ncommand -v sagelaunch"],
        cwd=installed.checkout, env=installed.environ, capture_output=True, text=True,
    )  # fmt: skip
    assert found.stdout.strip() == str(installed.bin / "sagelaunch"), found.stderr


@pytest.mark.integration
def test_the_merge_job_submits_from_the_wheel_against_moto(installed, moto):
    aws = {k: v for k, v in os.environ.items() if k.startswith("AWS_")}  # the moto fixture's
    environ = {**installed.environ, **aws}
    environ["PATH"] = f"{installed.bin}{os.pathsep}{environ['PATH']}"  # installed, as above
    # The job's own `submit plan.json --idempotency-key SHA --wait`, with the quota pre-flight.
    submitted = github_job(load_workflow(), "submit", installed.checkout, environ=environ)
    assert submitted["code"] == 0, submitted["stderr"][-3000:]
    assert "outcome=Completed" in submitted["outputs"]
    result = json.loads((installed.checkout / "submit.json").read_text())
    jobs = boto_client("sagemaker").list_training_jobs()["TrainingJobSummaries"]
    assert [j["TrainingJobName"] for j in jobs] == [result["job_name"]]

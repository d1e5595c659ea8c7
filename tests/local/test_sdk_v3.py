"""`sdk: v3` configs under `local`: ModelTrainer's hyperparameter encoding and a .tar.gz source.

The oracle is the installed SDK's own v3 code, loaded from its files: ModelTrainer.train sends
`safe_serialize(value)` per hyperparameter (sagemaker/modules/train/model_trainer.py) and the
container's basic_script_driver.py passes `hyperparameters_to_cli_args` of them to the script
(sagemaker/modules/train/container_drivers/common/utils.py).
"""

from __future__ import annotations

import ast
import importlib.util
import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path
from types import ModuleType

import pytest

from sagelaunch.local import v3
from sagelaunch.translate.importer import import_request
from tests.golden.regenerate import GOLDEN
from tests.local.conftest import clean_env, pytorch_config, run_local
from tests.local.in_process import local_in_process

HYPERPARAMETERS = {"flag": True, "off": False, "lr": 0.1, "name": "abc", "steps": 3, "ids": [1, 2]}
ECHO = 'import json, os, sys\nprint("ARGV", json.dumps(sys.argv[1:]))\n'
ECHO += 'print("ENTRY", os.environ.get("SM_ENTRY_SCRIPT"))\n'


def _v3_utils() -> ModuleType:
    """The SDK's container-side utils module, loaded by path (no `import sagemaker`)."""
    spec = importlib.util.find_spec("sagemaker")
    assert spec is not None and spec.submodule_search_locations
    root = Path(spec.submodule_search_locations[0])
    path = root / "modules" / "train" / "container_drivers" / "common" / "utils.py"
    module_spec = importlib.util.spec_from_file_location("v3_driver_utils", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def _v3_config(write_config, **over):
    config = pytorch_config(
        entry_point="echo.py",
        source_dir="code",
        sdk="v3",
        framework_version="2.8.0",
        distribution={"strategy": "none"},
        compute={"instance_type": "ml.c5.xlarge", "instance_count": 1},
        hyperparameters=HYPERPARAMETERS,
    )
    config.update(over)
    return write_config(config, code={"echo.py": ECHO})


def _argv(done: subprocess.CompletedProcess[str]) -> list[str]:
    line = next(x for x in (done.stdout + done.stderr).splitlines() if "ARGV " in x)
    return list(json.loads(line.split("ARGV ", 1)[1]))


def test_a_v3_script_gets_what_model_trainer_sends(write_config):
    """Under torchrun on a CPU instance: v3's Torchrun has no instance rule (v2's SDK has)."""
    utils = _v3_utils()
    sent = {key: utils.safe_serialize(value) for key, value in HYPERPARAMETERS.items()}
    done = run_local(_v3_config(write_config, distribution={"strategy": "torchrun"}))
    assert done.returncode == 0, done.stderr[-3000:]
    assert _argv(done) == utils.hyperparameters_to_cli_args(sent)
    assert "--flag" in _argv(done) and "true" in _argv(done)  # v2's toolkit passes "True"
    assert "ENTRY echo.py" in done.stdout + done.stderr


def test_a_v2_config_keeps_the_toolkits_encoding(write_config):
    done = run_local(_v3_config(write_config, sdk="v2"))
    assert done.returncode == 0, done.stderr[-3000:]
    argv = _argv(done)
    assert argv[argv.index("--flag") + 1] == "True"
    assert "ENTRY None" in done.stdout + done.stderr


def _archive(path: Path, files: dict[str, str]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            tar.addfile(info, io.BytesIO(text.encode()))
    return path


def test_a_tar_gz_source_runs(write_config, tmp_path):
    _archive(tmp_path / "code.tar.gz", {"echo.py": ECHO})
    config = _v3_config(write_config, source_dir="code.tar.gz")
    (tmp_path / "code" / "echo.py").unlink()  # only the archive holds the script
    done = run_local(config)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ENTRY echo.py" in done.stdout + done.stderr


# The three refusals below stop before any host starts: `local` in this process
# (local_in_process), the same app, exit code and stderr as `python -m sagelaunch local`.
def test_a_wrong_archive_says_what_it_holds(write_config, tmp_path, cli, monkeypatch):
    _archive(tmp_path / "code.tar.gz", {"src/train.py": "", "README.md": ""})
    done = local_in_process(cli, monkeypatch, _v3_config(write_config, source_dir="code.tar.gz"))
    assert done.exit_code == 2
    said = " ".join(done.stderr.split())
    assert "echo.py is not at the top of code.tar.gz" in said
    assert "it holds 2 file(s): README.md, src/train.py" in said


def test_a_file_that_is_no_archive_is_named(write_config, tmp_path, cli, monkeypatch):
    (tmp_path / "code.tar.gz").write_text("not gzip")
    done = local_in_process(cli, monkeypatch, _v3_config(write_config, source_dir="code.tar.gz"))
    assert done.exit_code == 2 and "is not a gzipped tar archive" in done.stderr


def test_a_tar_gz_source_needs_sdk_v3(write_config, tmp_path, cli, monkeypatch):
    _archive(tmp_path / "code.tar.gz", {"echo.py": ECHO})
    config = _v3_config(write_config, source_dir="code.tar.gz", sdk="v2")
    done = local_in_process(cli, monkeypatch, config)
    assert done.exit_code == 2 and "set sdk: v3" in " ".join(done.stderr.split())


def test_import_keeps_a_v3_request_as_sdk_v3():
    plan = json.loads((GOLDEN / "cpu-local.json").read_text())
    request = plan["request"]
    assert "sdk" not in import_request(request, "code")
    source = {"S3Uri": "s3://bucket/job/sm_drivers", "S3DataType": "S3Prefix"}
    drivers = {"ChannelName": "sm_drivers", "DataSource": {"S3DataSource": source}}
    request["InputDataConfig"] = [*request.get("InputDataConfig", []), drivers]
    assert import_request(request, "code")["sdk"] == "v3"


def test_validate_sees_an_archive_replaced_since_its_last_run(write_config, tmp_path):
    archive = _archive(tmp_path / "code.tar.gz", {"echo.py": ECHO})
    config = _v3_config(write_config, source_dir="code.tar.gz")
    command = [sys.executable, "-m", "sagelaunch", "validate", str(config)]
    ok = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=clean_env())
    assert ok.returncode == 0, ok.stderr[-2000:]
    _archive(archive, {"other.py": ""})  # the validate cache must not answer from before
    bad = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=clean_env())
    assert bad.returncode == 2  # the located error is on stderr, the table on stdout
    assert "it holds 1 file(s): other.py" in " ".join(bad.stderr.split())


# A v3 TensorFlow job (issue 62, item 5): the script reads what v3's driver sets about the code.
SOURCE = ECHO + 'source = os.environ.get("SM_SOURCE_DIR", "-")\n'
SOURCE += 'print("SOURCE", source, os.path.isfile(os.path.join(source, "echo.py")))\n'


def _v3_constant(name: str) -> str:
    """A constant of v3's container-side environment script, read from its file (no import)."""
    spec = importlib.util.find_spec("sagemaker")
    assert spec is not None and spec.submodule_search_locations
    root = Path(spec.submodule_search_locations[0])
    path = root / "modules" / "train" / "container_drivers" / "scripts" / "environment.py"
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == name:
            return str(ast.literal_eval(node.value))
    raise AssertionError(f"{name} not in {path}")


def _tensorflow_v3(write_config, **over):
    config = {
        "name": "v3-tf",
        "framework": "tensorflow",
        "framework_version": "2.19.0",
        "entry_point": "echo.py",
        "source_dir": "code",
        "sdk": "v3",
        "compute": {"instance_type": "ml.c5.xlarge", "instance_count": 1},
        "distribution": {"strategy": "none"},
        "hyperparameters": {"steps": 3},
        **over,
    }
    return write_config(config, code={"echo.py": SOURCE})


def _source(done: subprocess.CompletedProcess[str]) -> tuple[str, str]:
    line = next(x for x in (done.stdout + done.stderr).splitlines() if "SOURCE " in x)
    path, holds = line.split("SOURCE ", 1)[1].rsplit(" ", 1)
    return path, holds


@pytest.mark.parametrize("isolation", ["auto", "off"])
def test_a_v3_tensorflow_job_gets_no_model_dir_and_v3s_source_dir(
    write_config, tmp_path, isolation
):
    """ModelTrainer sends the config's hyperparameters only (no v2 estimator's --model_dir), and
    SM_SOURCE_DIR is the code channel, as the container sees it, holding the code."""
    local = {"local": {"sandbox": isolation}}
    config = _tensorflow_v3(write_config, **local)
    done = run_local(config, "--keep", "--output", "json", "--workdir", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert _argv(done) == ["--steps", "3"]
    result = json.loads(done.stdout)
    path, holds = _source(done)
    if result["sandbox"] == "namespace":
        assert path == _v3_constant("SM_SOURCE_DIR_PATH") == "/opt/ml/input/data/code"
    else:
        assert path == str(tmp_path / "run" / "algo-1" / "input" / "data" / "code")
    assert holds == "True"
    hyperparameters = tmp_path / "run" / "algo-1" / "input" / "config" / "hyperparameters.json"
    assert "model_dir" not in json.loads(hyperparameters.read_text())


def test_a_v3_job_keeps_a_model_dir_hyperparameter_it_sends(write_config):
    """A model_dir the config's hyperparameters hold is one ModelTrainer sends, as it is."""
    done = run_local(_tensorflow_v3(write_config, hyperparameters={"model_dir": "/tmp/m"}))
    assert done.returncode == 0, done.stderr[-3000:]
    assert _argv(done) == ["--model_dir", "/tmp/m"]


def test_a_v2_tensorflow_job_keeps_the_estimators_model_dir(write_config):
    done = run_local(_tensorflow_v3(write_config, sdk="v2"))
    assert done.returncode == 0, done.stderr[-3000:]
    argv = _argv(done)
    assert argv[argv.index("--model_dir") + 1].endswith("shared/model")
    assert _source(done) == ("-", "False")  # v2's toolkit sets no SM_SOURCE_DIR


def test_the_code_channel_holds_the_code_folder(tmp_path):
    code = tmp_path / "algo-1" / "code"
    code.mkdir(parents=True)
    (code / "echo.py").write_text(ECHO)
    channel = v3.code_channel(code)
    assert channel == tmp_path / "algo-1" / "input" / "data" / "code"
    assert os.readlink(channel) == "../../code" and (channel / "echo.py").read_text() == ECHO
    assert v3.code_channel(code) == channel  # once per host process: the link is kept
    isolated = tmp_path / "algo-2"
    (isolated / "code").mkdir(parents=True)
    (isolated / "code" / "echo.py").write_text(ECHO)
    (isolated / "input" / "data" / "code").mkdir(parents=True)  # network isolation's bundle
    (isolated / "input" / "data" / "code" / "sourcedir.tar.gz").write_bytes(b"")
    filled = v3.code_channel(isolated / "code")
    assert sorted(p.name for p in filled.iterdir()) == ["echo.py", "sourcedir.tar.gz"]

"""The XGBoost container library's whole public surface in sagelaunch's stand-in: every module and
public name that aws/sagemaker-xgboost-container's src/sagemaker_xgboost_container holds at the
recorded commit (data/xgboost_container_surface.json, written from its source by
`python -m sagelaunch.local.xgboost_surface`) imports from the stand-in; what is not emulated
raises when used, naming itself; `checkpointing` is the container's own and resumes a run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sagelaunch.local import checkpoint_sync, container_packages, image_software, xgboost_surface
from tests.local.conftest import run_local
from tests.local.data import rows, write_csv

SURFACE = json.loads(xgboost_surface.DATA_FILE.read_text("utf-8"))
# The modules written by hand; the generator writes the others as placeholders.
HAND_WRITTEN = {"", "checkpointing", "data_utils", "distributed"}

# Imports every module the data file lists, from the stand-in only, and reports what is missing.
IMPORT_ALL = """\
import ast, importlib, json, sys
surface = json.loads(open(sys.argv[1]).read())
report = {"modules": [], "names": [], "values": []}
for module, entry in surface["modules"].items():
    try:
        loaded = importlib.import_module(module)
    except ImportError as error:
        report["modules"].append(f"{module}: {error}")
        continue
    for name, what in entry["names"].items():
        if not hasattr(loaded, name):
            report["names"].append(f"{module}.{name}")
        elif what["kind"] == "constant":
            if getattr(loaded, name) != ast.literal_eval(what["value"]):
                report["values"].append(f"{module}.{name} = {getattr(loaded, name)!r}")
print(json.dumps(report))
"""

# Uses one name of each kind that is not emulated and reports what each use raised.
USE_PLACEHOLDERS = """\
import json
from sagemaker_xgboost_container.algorithm_mode import inference_errors, serve
from sagemaker_xgboost_container.encoder import decode
from sagemaker_xgboost_container.mms_patch import model_server
raised = {}
for name, use in {
    "decode": lambda: decode(b"1,2", "text/csv"),
    "ScoringService": lambda: serve.ScoringService(),
    "REQUIREMENTS_PATH": lambda: str(model_server.REQUIREMENTS_PATH),
}.items():
    try:
        use()
        raised[name] = None
    except NotImplementedError as error:
        raised[name] = str(error)
raised["exception"] = issubclass(inference_errors.BadRequestInferenceError, Exception)
raised["accepts"] = serve.SUPPORTED_ACCEPTS
print(json.dumps(raised))
"""

# Trains 8 rounds three times with the container's checkpointing.train: straight through; stopped
# after 3 rounds (as a spot interruption stops it, the 4th round's checkpoint unsaved); and again
# in the stopped run's checkpoint folder, which resumes from the newest checkpoint.
CHECKPOINTED = """\
import json, os, sys
import numpy as np
import xgboost as xgb
from sagemaker_xgboost_container import checkpointing

class Interrupted(Exception):
    pass

class Interrupt(xgb.callback.TrainingCallback):
    def after_iteration(self, model, epoch, evals_log):
        if model.num_boosted_rounds() == 4:
            raise Interrupted()
        return False

rng = np.random.default_rng(0)
features = rng.random((120, 4))
dtrain = xgb.DMatrix(features, label=features @ np.array([1.0, 2.0, 3.0, 4.0]))
params = {"nthread": 1, "max_depth": 3, "seed": 0, "tree_method": "hist"}

def run(folder, callbacks=()):
    args = dict(params=params, dtrain=dtrain, num_boost_round=8, evals=[(dtrain, "train")])
    args["callbacks"] = list(callbacks)
    booster = checkpointing.train(args, folder)
    return {"rounds": booster.num_boosted_rounds(), "predictions": booster.predict(dtrain).tolist()}

straight, spot = sys.argv[1], sys.argv[2]
report = {"straight": run(straight), "straight_files": sorted(os.listdir(straight))}
try:
    run(spot, [Interrupt()])
except Interrupted:
    report["interrupted_files"] = sorted(os.listdir(spot))
report["resumed"] = run(spot)
report["resumed_files"] = sorted(os.listdir(spot))
report["newest"] = list(checkpointing.load_checkpoint(spot))
print(json.dumps(report))
"""


def stand_in_python(script: str, *args: str) -> dict:
    """Run ``script`` with the stand-ins first on the path (as `sagelaunch local` puts them);
    its last line of output, JSON."""
    env = {**os.environ, "PYTHONPATH": str(container_packages.STAND_INS_DIR)}
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_surface_is_read_at_the_pinned_commit_of_the_containers_repository():
    assert SURFACE["source"] == {
        "repo": "aws/sagemaker-xgboost-container",
        "commit": image_software.XGB_MASTER,
        "path": "src/sagemaker_xgboost_container",
        "container": "3.0-5",
    }
    modules = SURFACE["modules"]
    assert len(modules) == 39
    assert modules["sagemaker_xgboost_container.checkpointing"]["names"]["CHECKPOINT_FILENAME"] == {
        "kind": "constant",
        "value": "'xgboost-checkpoint'",
    }
    assert {"get_dmatrix", "get_content_type"} <= set(
        modules["sagemaker_xgboost_container.data_utils"]["names"]
    )


def test_every_module_and_public_name_of_the_library_imports_from_the_stand_in():
    report = stand_in_python(IMPORT_ALL, str(xgboost_surface.DATA_FILE))
    assert report == {"modules": [], "names": [], "values": []}


def test_the_placeholder_modules_are_what_the_generator_writes_from_the_data_file():
    assert xgboost_surface.stale(xgboost_surface.placeholders(SURFACE)) == []
    written_by_hand = {
        module.removeprefix("sagemaker_xgboost_container").lstrip(".")
        for module, entry in SURFACE["modules"].items()
        if xgboost_surface.hand_written(xgboost_surface.stand_in_file(module, entry["path"]))
    }
    assert written_by_hand == HAND_WRITTEN


@pytest.mark.skipif(
    not os.environ.get("SAGELAUNCH_XGB_GIT"),
    reason="SAGELAUNCH_XGB_GIT names no clone of aws/sagemaker-xgboost-container",
)
def test_the_data_file_is_what_the_generator_reads_from_the_source():
    git = Path(os.environ["SAGELAUNCH_XGB_GIT"])
    assert xgboost_surface.main(["--git", str(git), "--check"]) == 0


def test_the_generator_lists_public_names_and_works_out_constants_from_literals():
    package = "src/sagemaker_xgboost_container"
    sources = {
        f"{package}/__init__.py": "",
        f"{package}/constants/c.py": "A = 'x'\nB = [A, 'y']\nN = 6 * 1024 ** 2\n",
        f"{package}/m.py": (
            "import logging, os\n"
            "from sagemaker_xgboost_container.constants import c\n"
            "from sagemaker_xgboost_container.constants.c import A\n"
            "logger = logging.getLogger(__name__)\n"
            "L = c.B + [A, c.__name__]\n"
            "S = {A, 'b'}\n"
            "E = int(os.getenv('SIZE', '3'))\n"
            "P = os.path.join(os.getcwd(), 'x')\n"
            "_private = 1\n"
            "def f(): pass\n"
            "class K(errors.BaseError): pass\n"
            "if __name__ == '__main__':\n"
            "    main = 1\n"
        ),
    }
    modules = xgboost_surface.data(sources)["modules"]
    assert list(modules) == [
        "sagemaker_xgboost_container",
        "sagemaker_xgboost_container.constants.c",
        "sagemaker_xgboost_container.m",
    ]
    assert modules["sagemaker_xgboost_container.constants.c"]["names"]["N"]["value"] == "6291456"
    names = modules["sagemaker_xgboost_container.m"]["names"]
    listed = "['x', 'y', 'x', 'sagemaker_xgboost_container.constants.c']"
    assert names == {
        "logger": {"kind": "logger", "expression": "logging.getLogger(__name__)"},
        "L": {"kind": "constant", "value": listed},
        "S": {"kind": "constant", "value": "{'b', 'x'}"},
        "E": {
            "kind": "environment", "variable": "SIZE", "default": "3", "cast": "int",
            "expression": "int(os.getenv('SIZE', '3'))",
        },
        "P": {"kind": "value", "expression": "os.path.join(os.getcwd(), 'x')"},
        "f": {"kind": "function"},
        "K": {"kind": "class", "bases": ["errors.BaseError"], "exception": True},
    }  # fmt: skip


def test_what_is_not_emulated_raises_when_used_naming_itself_never_at_import():
    raised = stand_in_python(USE_PLACEHOLDERS)
    elsewhere = "run the job in the container (sagelaunch local --docker) or on SageMaker"
    assert raised["decode"] == (
        "sagemaker_xgboost_container.encoder.decode is not emulated by sagelaunch local: "
        f"inference request decoding (model serving) is not emulated; {elsewhere}"
    )
    assert raised["ScoringService"].startswith(
        "sagemaker_xgboost_container.algorithm_mode.serve.ScoringService is not emulated"
    )
    assert raised["REQUIREMENTS_PATH"].startswith(
        "sagemaker_xgboost_container.mms_patch.model_server.REQUIREMENTS_PATH is not emulated"
    )
    assert raised["exception"] is True  # `except BadRequestInferenceError:` still works
    assert "text/csv" in raised["accepts"]  # the container's constants, with its values


def test_checkpointing_saves_each_round_and_a_rerun_resumes_from_the_newest(tmp_path):
    straight, spot = tmp_path / "straight", tmp_path / "spot"
    report = stand_in_python(CHECKPOINTED, str(straight), str(spot))
    checkpoints = [f"xgboost-checkpoint.{n}" for n in range(8)]
    # The container keeps the 5 newest checkpoints of a run.
    assert report["straight_files"] == checkpoints[3:]
    assert report["interrupted_files"] == checkpoints[:3]
    # The rerun trains the 5 rounds left; the checkpoints it found are left for SageMaker's sync.
    assert report["resumed_files"] == checkpoints
    assert report["newest"] == [str(spot / "xgboost-checkpoint.7"), 8]
    assert report["resumed"]["rounds"] == report["straight"]["rounds"] == 8
    assert report["resumed"]["predictions"] == pytest.approx(
        report["straight"]["predictions"], rel=1e-5
    )


# The managed-spot sample's pattern: checkpointing.train with the checkpoint folder beside
# SM_MODEL_DIR (/opt/ml/checkpoints in the container); the first run is stopped after 3 rounds.
SPOT_SCRIPT = """\
import os, sys
import xgboost as xgb
from sagemaker_xgboost_container import checkpointing
from sagemaker_xgboost_container.data_utils import get_dmatrix

checkpoints = os.path.join(os.path.dirname(os.environ["SM_MODEL_DIR"]), "checkpoints")
found = sorted(os.listdir(checkpoints)) if os.path.isdir(checkpoints) else []
print("found", found, flush=True)


class Spot(xgb.callback.TrainingCallback):
    def after_iteration(self, model, epoch, evals_log):
        if not found and model.num_boosted_rounds() == 4:
            sys.exit("interrupted after 3 rounds")
        return False


dtrain = get_dmatrix(os.environ["SM_CHANNEL_TRAIN"], "libsvm")
params = {"objective": "reg:squarederror", "nthread": 1}
args = dict(params=params, dtrain=dtrain, num_boost_round=8, callbacks=[Spot()])
booster = checkpointing.train(args, checkpoints)
print("rounds", booster.num_boosted_rounds(), flush=True)
booster.save_model(os.path.join(os.environ["SM_MODEL_DIR"], "xgboost-model"))
"""


@pytest.mark.slow
def test_a_spot_script_resumes_from_its_checkpoints_under_sagelaunch_local(write_config, tmp_path):
    data = tmp_path / "data" / "train" / "part-0"
    data.parent.mkdir(parents=True)
    data.write_text(
        "".join(f"{r[0]:.5f} " + " ".join(f"{i}:{v:.5f}" for i, v in enumerate(r[1:], 1)) + "\n"
                for r in rows(40, 4, seed=3))
    )  # fmt: skip
    config = write_config(
        {
            "name": "xgb-spot-checkpoints",
            "framework": "xgboost",
            "entry_point": "train.py",
            "source_dir": "code",
            "framework_version": "3.0-5",
            "compute": {"instance_type": "ml.m5.xlarge", "instance_count": 1},
            "inputs": {"train": "s3://bucket/train/"},
            "checkpoint": {"s3_uri": "s3://bucket/checkpoints/"},
            "local": {"inputs": {"train": "data/train"}},
        },
        code={"train.py": SPOT_SCRIPT},
    )
    workdir = tmp_path / "run"
    first = run_local(config, "--workdir", str(workdir))
    assert first.returncode == 1, (first.stdout + first.stderr)[-3000:]
    assert "interrupted after 3 rounds" in first.stdout + first.stderr
    second = run_local(config, "--workdir", str(workdir))
    log = second.stdout + second.stderr
    assert second.returncode == 0, log[-3000:]
    saved = [f"xgboost-checkpoint.{n}" for n in range(3)]
    assert "checkpoints: 3 file(s) restored" in log
    assert f"found {saved}" in log
    assert "rounds 8" in log
    stored = sorted(p.name for p in checkpoint_sync.store(workdir).iterdir())
    assert stored == [f"xgboost-checkpoint.{n}" for n in range(8)]


def test_data_utils_readers_and_size_beneath_get_dmatrix_as_the_container_has_them(
    monkeypatch, tmp_path, caplog
):
    monkeypatch.syspath_prepend(str(container_packages.STAND_INS_DIR))
    from sagemaker_xgboost_container import data_utils

    train, validation = tmp_path / "train", tmp_path / "validation"
    for folder in (train, validation):
        write_csv(folder / "part.csv", rows(6, 4, seed=1))
    assert data_utils.get_csv_dmatrix(str(train), 0).num_row() == 6
    assert data_utils.get_csv_dmatrix(str(train / "part.csv"), 0).num_col() == 4
    assert data_utils.get_size(str(train)) == (train / "part.csv").stat().st_size
    assert data_utils.get_size(str(tmp_path / "absent")) == 0
    data_utils.check_data_redundancy(str(train), str(validation))
    assert "Suspected identical files found" in caplog.text
    with pytest.raises(NotImplementedError, match="validate_data_file_path is not emulated"):
        data_utils.validate_data_file_path(str(train), "csv")

"""The XGBoost container's own library, `sagemaker_xgboost_container`, which no package index
offers: sagelaunch's stand-in (local/container_libraries/) reads channels as the container's
`data_utils.get_dmatrix` does in File mode, and a script-mode script that imports it runs
unmodified under `sagelaunch local`."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import pytest
from packaging.version import Version

from sagelaunch.local import container_packages
from tests.local.conftest import run_local
from tests.local.data import rows, write_csv

# The script-mode pattern of public XGBoost examples: the channel read through the container's
# data_utils, a booster trained and saved in the model folder.
SCRIPT = """\
import argparse, os
from sagemaker_xgboost_container.data_utils import get_content_type, get_dmatrix
import xgboost as xgb

parser = argparse.ArgumentParser()
parser.add_argument("--model_dir", default=os.environ.get("SM_MODEL_DIR"))
parser.add_argument("--train", default=os.environ.get("SM_CHANNEL_TRAIN"))
parser.add_argument("--validation", default=os.environ.get("SM_CHANNEL_VALIDATION"))
parser.add_argument("--num_round", type=int, default=5)
args, _ = parser.parse_known_args()
train = get_dmatrix(args.train, "libsvm")
validation = get_dmatrix(args.validation, get_content_type("text/csv"))
print("rows", train.num_row(), validation.num_row(), flush=True)
booster = xgb.train({"objective": "reg:squarederror"}, train, args.num_round)
booster.save_model(os.path.join(args.model_dir, "xgboost-model"))
"""


@pytest.fixture
def data_utils(monkeypatch, tmp_path):
    """The stand-in's data_utils, its temporary folders in ``tmp_path/tmp`` (checked empty after:
    it leaves nothing behind, also where a run has no sandbox and writes to the real /tmp)."""
    monkeypatch.syspath_prepend(str(container_packages.STAND_INS_DIR))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    from sagemaker_xgboost_container import data_utils

    yield data_utils
    assert list(scratch.iterdir()) == []


def libsvm(path: Path, table: list[list[float]]) -> Path:
    lines = [
        f"{row[0]:.6f} " + " ".join(f"{i}:{v:.6f}" for i, v in enumerate(row[1:], 1))
        for row in table
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def test_content_types_as_the_container_names_them(data_utils):
    parse = data_utils.get_content_type
    assert [parse(None), parse("text/csv; label_size=1"), parse("text/x-libsvm")] == [
        "libsvm",
        "csv",
        "libsvm",
    ]
    assert parse("application/x-parquet") == "parquet"
    with pytest.raises(ValueError, match="label_size must be 1"):
        parse("text/csv;label_size=2")
    with pytest.raises(ValueError, match="image/png is not an accepted ContentType"):
        parse("image/png")


def test_a_channel_folder_is_read_whole_skipping_hidden_and_too_deep_files(data_utils, tmp_path):
    channel = tmp_path / "train"
    libsvm(channel / "part-0", rows(30, 4, seed=0))
    libsvm(channel / "a" / "b" / "part-1", rows(20, 4, seed=1))  # three folders deep: read
    libsvm(channel / "a" / "b" / "c" / "part-2", rows(7, 4, seed=2))  # four: not
    libsvm(channel / ".hidden", rows(5, 4, seed=3))
    libsvm(channel / "_SUCCESS", rows(3, 4, seed=4))
    dmatrix = data_utils.get_dmatrix(str(channel), "libsvm")
    assert (dmatrix.num_row(), dmatrix.num_col()) == (50, 5)  # libsvm columns count from 0
    assert data_utils.get_dmatrix(str(tmp_path / "absent"), "libsvm") is None


def test_csv_label_first_delimiter_sniffed_and_weights_second(data_utils, tmp_path):
    table = [[row[0], abs(row[1]) + 0.1, *row[2:]] for row in rows(12, 4, seed=5)]
    path = tmp_path / "v.csv"
    path.write_text("".join("\t".join(f"{v:.4f}" for v in row) + "\n" for row in table))
    plain = data_utils.get_dmatrix(str(path), "csv")
    assert (plain.num_row(), plain.num_col()) == (12, 4)
    assert plain.get_label() == pytest.approx([row[0] for row in table], abs=1e-4)
    weighted = data_utils.get_dmatrix(str(path), "csv", csv_weights=1)
    assert weighted.num_col() == 3
    assert weighted.get_weight() == pytest.approx([row[1] for row in table], abs=1e-4)


# Warnings seen while one call reads a LIBSVM file, in a fresh process: XGBoost warns once per
# process, so an earlier read in the same process would hide the warning.
WARNINGS_OF = """
import sys, warnings
sys.path.insert(0, sys.argv[3])
import xgboost as xgb
from sagemaker_xgboost_container.data_utils import get_dmatrix
reader, path = sys.argv[1:3]
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    if reader == "xgboost":
        dmatrix = xgb.DMatrix(path + "?format=libsvm")
    else:
        dmatrix = get_dmatrix(path, "libsvm")
assert dmatrix.num_row() == 10
print("\\n".join(str(w.message) for w in seen))
"""


def test_text_is_read_without_xgboosts_deprecation_warning(tmp_path):
    """XGBoost 3.1+ warns that its text reader is deprecated (the containers' 1.7 and 3.0 do not):
    a warning about the stand-in's way of reading, which the user's script never sees."""
    path = libsvm(tmp_path / "train" / "part-0", rows(10, 4, seed=6))

    def warnings_of(reader: str) -> str:
        args = [reader, str(path), str(container_packages.STAND_INS_DIR)]
        done = subprocess.run(
            [sys.executable, "-c", WARNINGS_OF, *args], capture_output=True, text=True, check=True
        )
        return done.stdout

    import xgboost

    if Version(xgboost.__version__) >= Version("3.1"):  # the installed XGBoost itself does warn
        assert "Text file input has been deprecated" in warnings_of("xgboost")
    assert warnings_of("stand-in") == "\n"


def test_parquet_label_first(data_utils, tmp_path):
    import pandas as pd

    table = rows(9, 4, seed=6)
    pd.DataFrame(table).rename(columns=str).to_parquet(tmp_path / "part.parquet")
    dmatrix = data_utils.get_dmatrix(str(tmp_path), "parquet")
    assert (dmatrix.num_row(), dmatrix.num_col()) == (9, 4)
    assert dmatrix.get_label() == pytest.approx([row[0] for row in table])


def test_what_is_not_emulated_is_refused_by_name(data_utils, tmp_path):
    libsvm(tmp_path / "part", rows(3, 4, seed=7))
    with pytest.raises(NotImplementedError, match="Pipe input mode"):
        data_utils.get_dmatrix(str(tmp_path), "csv", is_pipe=True)
    with pytest.raises(NotImplementedError, match="recordio-protobuf"):
        data_utils.get_dmatrix(str(tmp_path), "recordio-protobuf")
    with pytest.raises(ValueError, match="reads csv, libsvm or parquet, not 'text/csv'"):
        data_utils.get_dmatrix(str(tmp_path), "text/csv")  # get_content_type's answer, not this


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.slow
def test_a_script_importing_the_containers_data_utils_runs_unmodified(write_config, tmp_path):
    libsvm(tmp_path / "data" / "train" / "part-0", rows(40, 5, seed=8))
    libsvm(tmp_path / "data" / "train" / "part-1", rows(40, 5, seed=9))
    write_csv(tmp_path / "data" / "validation" / "part-0.csv", rows(25, 5, seed=10))
    user_files = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    config = write_config(
        {
            "name": "xgb-container-library",
            "framework": "xgboost",
            "entry_point": "train.py",
            "source_dir": "code",
            "framework_version": "1.7-1",
            "compute": {"instance_type": "ml.m5.xlarge", "instance_count": 1},
            "inputs": {"train": "s3://bucket/train/", "validation": "s3://bucket/validation/"},
            "local": {"inputs": {"train": "data/train", "validation": "data/validation"}},
        },
        code={"train.py": SCRIPT},
    )
    before = {path: sha256(path) for path in [*user_files, config, tmp_path / "code" / "train.py"]}
    done = run_local(config, "--workdir", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "[algo-1] rows 80 25" in done.stdout + done.stderr
    assert "sagelaunch's stand-in for sagemaker_xgboost_container" in done.stderr
    with tarfile.open(tmp_path / "run" / "model.tar.gz") as tar:
        assert tar.getnames() == ["xgboost-model"]
    assert {path: sha256(path) for path in before} == before


# The container's distributed script-mode pattern (its own test resource abalone_distributed.py):
# wait for the host names, then rabit_run with every host saying whether it has data; the hosts
# with data train together, the master saves the model. (The container's get_dmatrix fails on an
# empty folder, as the stand-in does, so a host checks for its shard first.)
DISTRIBUTED = """\
import json, os, pickle
import xgboost as xgb
from xgboost import collective
from sagemaker_xgboost_container import distributed
from sagemaker_xgboost_container.data_utils import get_dmatrix

def train(params, dtrain, num_boost_round, model_dir, is_master):
    booster = xgb.train(params, dtrain, num_boost_round)
    print("trained in a group of", collective.get_world_size(), "master", is_master, flush=True)
    if is_master:
        pickle.dump(booster, open(os.path.join(model_dir, "xgboost-model"), "wb"))

hosts = json.loads(os.environ["SM_HOSTS"])
current = os.environ["SM_CURRENT_HOST"]
channel = os.environ["SM_CHANNEL_TRAIN"]
dtrain = get_dmatrix(channel, "libsvm") if os.listdir(channel) else None  # a host without shard
distributed.wait_hostname_resolution(hosts)
distributed.rabit_run(
    exec_fun=train,
    args=dict(params={"max_depth": 3}, dtrain=dtrain, num_boost_round=3,
              model_dir=os.environ["SM_MODEL_DIR"]),
    include_in_training=dtrain is not None,
    hosts=hosts,
    current_host=current,
    update_rabit_args=True,
)
"""


@pytest.mark.slow
def test_the_containers_rabit_run_trains_the_hosts_with_data_together(write_config, tmp_path):
    """3 hosts, 2 shards: algo-3 gets none and leaves; algo-1 and algo-2 train as one group."""
    libsvm(tmp_path / "data" / "train" / "part-0", rows(40, 5, seed=11))
    libsvm(tmp_path / "data" / "train" / "part-1", rows(40, 5, seed=12))
    config = write_config(
        {
            "name": "xgb-rabit-run",
            "framework": "xgboost",
            "entry_point": "train.py",
            "source_dir": "code",
            "framework_version": "1.7-1",
            "compute": {"instance_type": "ml.m5.xlarge", "instance_count": 3},
            "inputs": {"train": {"uri": "s3://bucket/train/", "distribution": "sharded"}},
            "local": {"inputs": {"train": "data/train"}, "hosts": 3},
        },
        code={"train.py": DISTRIBUTED},
    )
    done = run_local(config, "--workdir", str(tmp_path / "run"), "--output", "json")
    assert done.returncode == 0, done.stderr[-3000:]
    assert [host["exit_code"] for host in json.loads(done.stdout)["hosts"]] == [0, 0, 0]
    assert "[algo-1] trained in a group of 2 master True" in done.stderr
    assert "[algo-2] trained in a group of 2 master False" in done.stderr
    assert "Host algo-3 not being used for distributed training." in done.stderr
    with tarfile.open(tmp_path / "run" / "model.tar.gz") as tar:
        assert tar.getnames() == ["xgboost-model"]


# The older script-mode pattern (sagemaker_containers, which the XGBoost container pins): the
# settings from training_env(), the host wait, the serving helpers imported at module level.
CONTAINERS = """\
import json, os
import sagemaker_containers
from sagemaker_containers import entry_point
from sagemaker_containers.beta.framework import content_types, encoders, env, worker

entry_point._wait_hostname_resolution()
settings = sagemaker_containers.training_env()
seen = {
    "hyperparameters": settings.hyperparameters,
    "channels": settings.channel_input_dirs,
    "model_dir": settings.model_dir,
    "hosts": settings.hosts,
    "current_host": settings["current_host"],
    "csv": content_types.CSV,
}
try:
    worker.Response
except NotImplementedError as error:
    seen["serving"] = str(error)
open(os.path.join(settings.model_dir, "seen.json"), "w").write(json.dumps(seen))
"""


@pytest.mark.slow
def test_a_script_using_sagemaker_containers_gets_the_training_env(write_config, tmp_path):
    write_csv(tmp_path / "data" / "train" / "part-0.csv", rows(5, 4, seed=13))
    config = write_config(
        {
            "name": "xgb-sagemaker-containers",
            "framework": "xgboost",
            "entry_point": "train.py",
            "source_dir": "code",
            "framework_version": "1.7-1",
            "compute": {"instance_type": "ml.m5.xlarge", "instance_count": 2},
            "hyperparameters": {"num_round": 3, "objective": "reg:squarederror"},
            "inputs": {"train": "s3://bucket/train/"},
            "local": {"inputs": {"train": "data/train"}, "hosts": 2},
        },
        code={"train.py": CONTAINERS},
    )
    workdir = tmp_path / "run"
    done = run_local(config, "--workdir", str(workdir), "--keep")
    assert done.returncode == 0, done.stderr[-3000:]
    for host in ("algo-1", "algo-2"):
        seen = json.loads((workdir / host / "model" / "seen.json").read_text())
        assert seen["hyperparameters"] == {"num_round": 3, "objective": "reg:squarederror"}
        assert Path(seen["channels"]["train"]).parts[-3:] == ("input", "data", "train")
        assert Path(seen["model_dir"]).name == "model"
        assert seen["hosts"] == ["algo-1", "algo-2"] and seen["current_host"] == host
        assert seen["csv"] == "text/csv"
        assert "does not emulate" in seen["serving"] and "--docker" in seen["serving"]

"""What the SDK puts in the request for the container, made true on this machine: network
isolation's `code` channel and SM_MODULE_DIR (checked against the training toolkit itself), and
the TensorFlow estimator's model_dir (a run folder, as SDK local mode gives it; a user's
local.hyperparameters.model_dir honoured)."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile

import pytest

from sagelaunch.local import code_channel
from sagelaunch.local.tree import HostTree
from tests.local.conftest import clean_env, pytorch_config, read_json, run_local
from tests.local.test_toolkit_oracle import DUMP_ENV, _diff, toolkit_env

# The toolkit's own step: unpack SM_MODULE_DIR (a local tarball under network isolation).
TOOLKIT_UNPACK = """\
import sys
from sagemaker_training import files
files.download_and_extract(sys.argv[1], sys.argv[2])
"""

ECHO_MODEL_DIR = """\
import argparse, json, os
from pathlib import Path

parser = argparse.ArgumentParser()
parser.add_argument("--model_dir")
args, _ = parser.parse_known_args()
Path(args.model_dir).mkdir(parents=True, exist_ok=True)
host = os.environ["SM_CURRENT_HOST"]
(Path(args.model_dir) / f"checkpoint-{host}").write_text("saved")
out = Path(os.environ["SM_OUTPUT_DATA_DIR"]) / "seen.json"
out.write_text(json.dumps({"model_dir": args.model_dir, "hps": json.loads(os.environ["SM_HPS"])}))
"""


@pytest.mark.slow
def test_network_isolation_code_channel_and_module_dir_as_the_toolkit_computes(
    write_config, tmp_path
):
    config = write_config(
        pytorch_config(
            entry_point="dump_env.py",
            source_dir="code",
            distribution={"strategy": "none"},
            network={"isolation": True},
            local={"hosts": 2},
        ),
        code={"dump_env.py": DUMP_ENV},
    )
    done = run_local(config, "--workdir", str(tmp_path / "run"), "--keep")
    assert done.returncode == 0, done.stderr[-3000:]
    for host in ("algo-1", "algo-2"):
        tree = tmp_path / "run" / host
        bundle = tree / "input" / "data" / "code" / "sourcedir.tar.gz"
        with tarfile.open(bundle) as tar:
            assert "dump_env.py" in tar.getnames()
        dumped = read_json(tree / "output" / "data" / "env.json")
        received = dumped["sm"]
        oracle = tmp_path / "run" / f"{host}-oracle.json"
        expected = toolkit_env(tree, "pytorch", oracle, dumped["other"]["TRAINING_JOB_NAME"])
        assert received == expected, _diff(received, expected)
        # The bundle in the code channel, as the host's processes see it (/opt/ml in a sandbox).
        assert received["SM_MODULE_DIR"].endswith("/input/data/code/sourcedir.tar.gz")
        assert json.loads(received["SM_CHANNELS"]) == ["code"]
        unpacked = tmp_path / f"{host}-unpacked"
        subprocess.run(
            [sys.executable, "-c", TOOLKIT_UNPACK, str(bundle), str(unpacked)],
            env=clean_env(SAGEMAKER_BASE_DIR=str(tree)),
            check=True,
            timeout=60,
            capture_output=True,
        )
        assert (unpacked / "dump_env.py").read_text() == DUMP_ENV


def tf_echo(**over: object) -> dict[str, object]:
    return pytorch_config(
        framework="tensorflow",
        framework_version="2.19.0",
        entry_point="echo.py",
        source_dir="code",
        compute={"instance_type": "ml.c5.xlarge", "instance_count": 2},
        distribution={"strategy": "none"},
        **over,
    )


@pytest.mark.slow
def test_tensorflow_model_dir_is_one_run_folder_for_every_host(write_config, tmp_path):
    config = write_config(tf_echo(local={"hosts": 2}), code={"echo.py": ECHO_MODEL_DIR})
    workdir = tmp_path / "run"
    done = run_local(config, "--workdir", str(workdir), "--keep")
    assert done.returncode == 0, done.stderr[-3000:]
    shared = workdir / "shared" / "model"
    for host in ("algo-1", "algo-2"):
        seen = read_json(workdir / host / "output" / "data" / "seen.json")
        assert seen["model_dir"] == str(shared)
        assert (shared / f"checkpoint-{host}").read_text() == "saved"


@pytest.mark.slow
def test_local_hyperparameters_model_dir_wins(write_config, tmp_path):
    mine = tmp_path / "run" / "my-model-dir"  # in the run folder: writable in the sandbox too
    config = write_config(
        tf_echo(local={"hosts": 1, "hyperparameters": {"model_dir": str(mine)}}),
        code={"echo.py": ECHO_MODEL_DIR},
    )
    done = run_local(config, "--workdir", str(tmp_path / "run"), "--keep")
    assert done.returncode == 0, done.stderr[-3000:]
    seen = read_json(tmp_path / "run" / "algo-1" / "output" / "data" / "seen.json")
    assert seen["model_dir"] == str(mine)
    assert seen["hps"]["model_dir"] == str(mine)
    assert (mine / "checkpoint-algo-1").read_text() == "saved"


@pytest.mark.slow
def test_a_model_dir_on_s3_is_passed_as_set_with_a_warning(write_config, tmp_path):
    config = write_config(
        tf_echo(model_dir="s3://bkt/models/", local={"hosts": 1}), code={"echo.py": ECHO_MODEL_DIR}
    )
    done = run_local(config, "--workdir", str(tmp_path / "run"), "--keep")
    assert done.returncode == 0, done.stderr[-3000:]
    seen = read_json(tmp_path / "run" / "algo-1" / "output" / "data" / "seen.json")
    assert seen["model_dir"] == "s3://bkt/models/"
    assert "model_dir s3://bkt/models/ is passed to the script as set" in " ".join(
        done.stderr.split()
    )


@pytest.mark.parametrize(
    ("submit_directory", "on_host"),
    [
        ("/opt/ml/input/data/code/sourcedir.tar.gz", "{root}/input/data/code/sourcedir.tar.gz"),
        ("s3://bkt/job/source/sourcedir.tar.gz", "s3://bkt/job/source/sourcedir.tar.gz"),
        ("/opt/mlx/code", "/opt/mlx/code"),  # not under /opt/ml
    ],
)
def test_only_a_submit_directory_under_opt_ml_moves_to_the_host_tree(
    tmp_path, submit_directory, on_host
):
    host = HostTree("algo-1", tmp_path / "algo-1")
    hyperparameters = {"sagemaker_submit_directory": json.dumps(submit_directory), "lr": "0.1"}
    moved = code_channel.on_host(hyperparameters, host)
    assert json.loads(moved["sagemaker_submit_directory"]) == on_host.format(root=host.root)
    assert moved["lr"] == "0.1"


def test_no_code_channel_without_network_isolation():
    channel = {"ChannelName": "code", "DataSource": {"S3DataSource": {"S3Uri": "s3://b/k.tgz"}}}
    assert code_channel.bundle_name({"InputDataConfig": [channel]}) is None
    isolated = {"InputDataConfig": [channel], "EnableNetworkIsolation": True}
    assert code_channel.bundle_name(isolated) == "k.tgz"

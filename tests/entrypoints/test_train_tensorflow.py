"""The TensorFlow entry point: strategy from the container's environment, hyperparameters that
fail before TensorFlow loads, exact resume from its checkpoints, a SavedModel under model/1.

TensorFlow-heavy checks run in this process (one TensorFlow import for all of them); the
multi-host runs are in tests/local/test_tensorflow_runs.py and test_tensorflow_resume.py."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ENTRYPOINTS

sys.path.insert(0, str(ENTRYPOINTS / "tensorflow"))

import smenv
import tf_cluster

# Every module that loads TensorFlow in-process runs on one xdist worker: one import for all.
pytestmark = pytest.mark.xdist_group("tensorflow")

PS_MASTER = {
    "cluster": {
        "master": ["algo-1:2222"],
        "ps": ["algo-1:2223", "algo-2:2223"],
        "worker": ["algo-2:2222"],
    },
    "environment": "cloud",
    "task": {"index": 0, "type": "master"},
}


def test_sagemakers_master_is_tf2s_chief():
    who = tf_cluster.role({"TF_CONFIG": json.dumps(PS_MASTER)}, {}, gpus=0)
    assert who.kind == tf_cluster.PS_CHIEF and who.is_chief
    assert who.cluster == {
        "chief": ["algo-1:2222"],
        "ps": ["algo-1:2223", "algo-2:2223"],
        "worker": ["algo-2:2222"],
    }
    assert (who.task_type, who.task_index, who.sagemaker_roles) == ("chief", 0, {"master": "chief"})


def test_a_parameter_server_worker_serves_and_is_not_the_chief():
    worker = {**PS_MASTER, "task": {"index": 0, "type": "worker"}}
    who = tf_cluster.role({"TF_CONFIG": json.dumps(worker)}, {}, gpus=0)
    assert who.kind == tf_cluster.PS_WORKER and not who.is_chief
    assert who.chief_address == "algo-1:2222"


def test_the_other_strategies_come_from_the_environment():
    mwms = {"cluster": {"worker": ["a:8890", "b:8890"]}, "task": {"index": 1, "type": "worker"}}
    second = tf_cluster.role({"TF_CONFIG": json.dumps(mwms)}, {}, gpus=0)
    assert (second.kind, second.is_chief) == (tf_cluster.MULTI_WORKER, False)
    assert tf_cluster.role({}, {"sagemaker_mpi_enabled": True}, 8).kind == tf_cluster.HOROVOD
    smddp = {"sagemaker_distributed_dataparallel_enabled": "true"}
    assert tf_cluster.role({}, smddp, 8).kind == tf_cluster.SMDDP
    assert tf_cluster.role({}, {}, gpus=4).kind == tf_cluster.MIRRORED
    assert tf_cluster.role({}, {}, gpus=0).kind == tf_cluster.ONE_DEVICE
    with pytest.raises(smenv.UsageError, match="TF_CONFIG is not valid JSON"):
        tf_cluster.role({"TF_CONFIG": "{"}, {}, gpus=0)


PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
import smenv, train_tensorflow
code = smenv.run(train_tensorflow.main, sys.argv[2:])
print(code, "tensorflow" in sys.modules)
"""


def test_bad_values_fail_before_tensorflow_loads_and_unknown_keys_warn(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "SM_OUTPUT_DIR": str(tmp_path / "output")}
    args = ["--lr", "-1", "--training_steps", "5"]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(ENTRYPOINTS / "tensorflow"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.stdout.split() == ["1", "False"], done.stderr
    assert "ignoring unknown hyperparameters: --training_steps" in done.stderr
    failure = (tmp_path / "output" / "failure").read_text()
    assert failure.startswith("UsageError: --lr must be positive")


def test_the_old_name_strategy_is_read_as_tf_distribute(capsys):
    """--tf_distribute was --strategy (a name that elsewhere means distribution.strategy): the
    old name still gives the same run, saying so in one line; both, disagreeing, are refused."""
    import tf_hparams

    env = smenv.current({})
    renamed = tf_hparams.parse_args(["--tf_distribute", "mirrored"], env)
    assert renamed.tf_distribute == "mirrored" and capsys.readouterr().err == ""
    assert tf_hparams.parse_args(["--strategy", "mirrored"], env) == renamed
    (line,) = capsys.readouterr().err.splitlines()
    assert "--strategy is the old name of --tf_distribute" in line
    quoted = ["--strategy", '"mirrored"', "--tf_distribute", "mirrored"]  # agreeing: fine
    assert tf_hparams.parse_args(quoted, env) == renamed
    assert tf_hparams.parse_args([], env).tf_distribute == "auto"
    both = ["--strategy", "mirrored", "--tf_distribute", "one_device"]
    with pytest.raises(smenv.UsageError, match="--strategy mirrored and --tf_distribute one_dev"):
        tf_hparams.parse_args(both, env)
    with pytest.raises(smenv.UsageError, match="--strategy: invalid choice: 'tpu'"):
        tf_hparams.parse_args(["--strategy", "tpu"], env)


@pytest.fixture
def job(tmp_path, monkeypatch):
    """A fake /opt/ml for in-process runs (SM_* only; no TF_CONFIG: one host, on the CPU)."""
    for key in ("TF_CONFIG", "SM_FRAMEWORK_PARAMS", "SM_HOSTS", "SM_CURRENT_HOST"):
        monkeypatch.delenv(key, raising=False)
    for name in ("model", "output", "checkpoints"):
        (tmp_path / name).mkdir()
    monkeypatch.setenv("SM_MODEL_DIR", str(tmp_path / "model"))
    monkeypatch.setenv("SM_OUTPUT_DIR", str(tmp_path / "output"))
    monkeypatch.setenv("SM_OUTPUT_DATA_DIR", str(tmp_path / "output" / "data"))
    monkeypatch.setenv("SM_NUM_GPUS", "0")
    return tmp_path


def _train(job, *args: str) -> dict:
    import train_tensorflow

    assert smenv.run(train_tensorflow.main, ["--log_every", "1", *args]) == 0
    return json.loads((job / "output" / "data" / "metrics.json").read_text())


def test_resume_continues_exactly_where_the_checkpoint_left_off(job, tmp_path):
    straight = _train(job, "--max_steps", "8", "--checkpoint_dir", str(tmp_path / "a"))
    _train(job, "--max_steps", "4", "--checkpoint_every", "2", "--checkpoint_dir", str(job / "b"))
    resumed = _train(job, "--max_steps", "8", "--checkpoint_dir", str(job / "b"))
    assert straight["strategy"] == "one_device" and resumed["resumed_from_step"] == 4
    assert sorted(resumed["losses"], key=int) == ["5", "6", "7", "8"]
    assert all(resumed["losses"][s] == straight["losses"][s] for s in resumed["losses"])
    assert straight["losses"]["8"] < straight["losses"]["1"]


def test_the_saved_model_serves_predictions(job):
    import numpy as np
    import tensorflow as tf

    metrics = _train(job, "--max_steps", "2", "--features", "3")
    loaded = tf.saved_model.load(str(job / "model" / "1"))
    assert metrics["saved_model"].endswith("model/1")
    out = loaded.signatures["serving_default"](x=tf.constant(np.ones((2, 3), np.float32)))
    assert out["prediction"].shape == (2, 1)


def test_horovod_missing_fails_clearly_with_the_failure_file(job, monkeypatch):
    import train_tensorflow

    monkeypatch.setenv("SM_FRAMEWORK_PARAMS", json.dumps({"sagemaker_mpi_enabled": True}))
    assert smenv.run(train_tensorflow.main, ["--max_steps", "1"]) == 1
    failure = (job / "output" / "failure").read_text()
    assert "needs horovod, which is not installed here" in failure

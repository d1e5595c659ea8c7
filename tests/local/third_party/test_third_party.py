"""Training scripts nobody here wrote, copied unmodified from public AWS repositories (SOURCES.md),
run by `sagelaunch local` with the configs their repositories use (the YAML files beside them).

Each run must exit 0 and produce what the script produces in its own repository's test (a model
file, a log line), and leave the user's files (the scripts, the configs, the channel data)
unchanged. A script that fails here because `local` lacks a piece of the container is an
``xfail(strict=True)`` whose reason names the piece: it turns into a failure (XPASS) the day the
piece is there, so the mark is removed then.

The default run keeps two (DEFAULT says which and why); ``SAGELAUNCH_THIRD_PARTY=all`` runs every
case. No case asks a package index: the two whose code
installs a package (mpi4py for the PyTorch image, omegaconf from requirements.txt) take it from
uv's cache and are skipped when it is not there (`make test` fills it first: the Makefile's
TEST_WHEELS).
"""

from __future__ import annotations

import json
import os
import subprocess
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from sagelaunch.config.loader import load_document
from tests.local.conftest import checksums, clean_env, in_uv_cache, run_local
from tests.local.in_process import local_in_process
from tests.local.third_party import data

HERE = Path(__file__).resolve().parent
ALL = os.environ.get("SAGELAUNCH_THIRD_PARTY") == "all"
OPT_IN = pytest.mark.skipif(not ALL, reason="opt-in: SAGELAUNCH_THIRD_PARTY=all runs it")
TIMEOUT = 600  # a loaded 2-core machine: TensorFlow alone takes 10 s to import per host

pytestmark = pytest.mark.slow


def user_files(folder: Path) -> dict[str, str]:
    """checksums() less the bytecode pytest itself writes for this module."""
    return {path: sha for path, sha in checksums(folder).items() if "__pycache__" not in path}


def members(run: Path) -> list[str]:
    with tarfile.open(run / "model.tar.gz") as tar:
        return sorted(tar.getnames())


def model_file(run: Path, name: str) -> bytes:
    with tarfile.open(run / "model.tar.gz") as tar:
        member = tar.extractfile(name)
        assert member is not None, f"{name} is not a file in model.tar.gz"
        return member.read()


def _getting_started_pytorch(run: Path, said: str) -> None:
    # The notebook's transformers 4.26 image is not stored: the oldest stored stands for it, and
    # says so; the script's Trainer trains, evaluates and saves what from_pretrained reads.
    assert "the huggingface 4.26 image's packages are not stored" in said
    assert "Hugging Face transformers 4.49 GPU image (the oldest stored)" in said
    assert "***** Eval results *****" in said
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= set(members(run))


@dataclass(frozen=True)
class Case:
    config: str  # the launch config, relative to this folder
    check: Callable[[Path, str], None]  # (run folder, what the user saw) -> asserts
    needs: str | None = None  # a package the run installs, from uv's cache
    workdir: bool = True  # False: the default run folder, .sagelaunch/runs/JOB_NAME


def _distributed_operations(run: Path, said: str) -> None:
    # Every host's processes met at algo-1:55555; each host saved "success" in its model dir.
    assert "success" in members(run)
    assert "[algo-2] Saving success result" in said


def _openmpi(run: Path, said: str) -> None:
    # mpi4py's gather over the 2 ranks mpirun started, one per host, written by rank 0.
    assert json.loads(model_file(run, "result.json")) == [
        {"rank": 0, "size": 2},
        {"rank": 1, "size": 2},
    ]


def _abalone(run: Path, said: str) -> None:
    assert members(run) == ["xgboost-model"]
    assert "validation-rmse" in said


def _tf_mnist(run: Path, said: str) -> None:
    assert members(run) == ["my_model.h5"]  # saved by algo-1 only, to /opt/ml/model


def _params(run: Path, said: str) -> None:
    # The script asserts the whole ModelTrainer hyperparameter contract before printing this.
    assert "SM_HPS -> hyperparameters:" in said


def _params_sh(run: Path, said: str) -> None:
    _params(run, said)
    assert "[algo-1] Done!" in said  # train.sh went on after `python train.py "$@"`


def _mnist_pytorch(run: Path, said: str) -> None:
    assert members(run) == ["model.pth"]
    assert "Test set: Average loss" in said


def _tuning_model_dir(run: Path, said: str) -> None:
    assert "accuracy=1" in said


def _heterogeneous(run: Path, said: str) -> None:
    # sagemaker_training's Environment on each host names that host's own instance group.
    assert "[algo-1] env.current_instance_group: data_group" in said
    assert "[algo-2] env.current_instance_group: dnn_group" in said
    assert "[algo-1] env.is_hetero: True" in said


def _xgboost_dist(run: Path, said: str) -> None:
    # rabit_run on 2 hosts: algo-2 joined the collective, algo-1 trained 50 rounds and saved.
    assert members(run) == ["xgboost-model"]
    assert "[algo-2] " in said and "got rank 1" in said
    assert "[49]" in said and "validation-rmse" in said


def _xgboost_isolated(run: Path, said: str) -> None:
    assert members(run) == ["xgboost-model"]
    assert "outbound: none (network.isolation)" in said


def _multi_worker_mnist(run: Path, said: str) -> None:
    assert members(run) == ["my_model.h5"]  # saved by hosts[0] only
    assert "[algo-2] " in said and "accuracy:" in said


def _tf_ps(run: Path, said: str) -> None:
    # What the SDK's test asserts in the estimator's model_dir (the run's shared/model here):
    # TensorFlow's checkpoint index and model.ckpt-N.index; and algo-1's SavedModel.
    model_dir = run / "shared" / "model"
    assert (model_dir / "checkpoint").is_file()
    assert list(model_dir.glob("model.ckpt-*.index"))
    assert "1/saved_model.pb" in members(run)
    assert "[algo-1] Epoch 10 Train Loss:" in said


CASES = {
    # Plain python on 2 hosts meeting by host name, mpirun with a shell
    # entry point, the XGBoost container's libraries on 2 hosts, SDK v3's driver + requirements.
    "distributed_operations": Case(
        "sagemaker-pytorch-training-toolkit/distributed_operations.yaml", _distributed_operations
    ),
    "openmpi": Case("sagemaker-training-toolkit/openmpi.yaml", _openmpi, needs="mpi4py"),
    "abalone_distributed_2hosts": Case(
        "sagemaker-xgboost-container/abalone_distributed_2hosts.yaml", _abalone
    ),
    "params_script_sh": Case(
        "sagemaker-python-sdk/params_script_sh.yaml", _params_sh, needs="omegaconf"
    ),
    # SAGELAUNCH_THIRD_PARTY=all
    "abalone_distributed": Case("sagemaker-xgboost-container/abalone_distributed.yaml", _abalone),
    "mnist": Case("sagemaker-tensorflow-training-toolkit/mnist.yaml", _tf_mnist),
    "params_script": Case("sagemaker-python-sdk/params_script.yaml", _params, needs="omegaconf"),
    "mnist_pytorch": Case("amazon-sagemaker-examples/mnist_pytorch.yaml", _mnist_pytorch),
    "tuning_model_dir": Case(
        "sagemaker-tensorflow-training-toolkit/tuning_model_dir.yaml",
        _tuning_model_dir,
        # The default run folder names the job, as the estimator's model_dir does on AWS
        # (s3://BUCKET/JOB_NAME/model): the script's second check passes once the first does.
        workdir=False,
    ),
    # issue 62 item 6 (SOURCES.md, second table)
    "heterogeneous_clusters": Case(
        "amazon-sagemaker-examples/heterogeneous_clusters.yaml", _heterogeneous
    ),
    "xgboost_abalone_dist": Case(
        "amazon-sagemaker-examples/xgboost_abalone_dist.yaml", _xgboost_dist
    ),
    "xgboost_abalone_isolated": Case(
        "sagemaker-python-sdk/xgboost_abalone_isolated.yaml", _xgboost_isolated
    ),
    "multi_worker_mnist": Case(
        "deep-learning-containers/multi_worker_mnist.yaml", _multi_worker_mnist
    ),
    "getting_started_pytorch": Case(
        "huggingface-notebooks/getting_started_pytorch.yaml",
        _getting_started_pytorch,
        needs="transformers==4.49.0",  # and its datasets: the stored 4.49 image's pins
    ),
    "tensorflow_mnist_ps": Case(
        "sagemaker-python-sdk/tensorflow_mnist_ps.yaml",
        _tf_ps,
        needs="tensorflow-io>=0.33.0,<0.34.0",  # what the TF 2.14 image pins
    ),
}
TF_2_3 = "amazon-sagemaker-examples/mnist_tensorflow.yaml"  # Keras 2's API: runs on tf-keras
# In every suite run: two hosts meeting by host name at a fixed port, and the XGBoost container's
# own libraries on two hosts. The others run with SAGELAUNCH_THIRD_PARTY=all; what they show is
# held in every run elsewhere too (a shell entry point under mpirun and mpi4py: test_mpi_runs,
# test_software; SDK v3's driver: test_sdk_v3), and the suite has a time budget.
DEFAULT = {"distributed_operations", "abalone_distributed_2hosts"}
# Each under 20 s here: instance groups through sagemaker_training's Environment, the XGBoost
# container's rabit_run on 2 hosts from a notebook, network isolation.
DEFAULT |= {"heterogeneous_clusters", "xgboost_abalone_dist", "xgboost_abalone_isolated"}
# A Hugging Face notebook's Trainer script (issue 59), about 15 s.
DEFAULT |= {"getting_started_pytorch"}
# case -> the gap in local it shows (none open: openmpi and mpi_demo segfaulted in Open MPI's
# shared-memory BTL once every rank had a PID namespace of its own, until mpirun's btl became
# "self,tcp", local/mpi.py).
XFAIL: dict[str, str] = {}


def _param(name: str) -> Any:
    marks = [] if name in DEFAULT else [OPT_IN]
    if name in XFAIL:
        marks.append(pytest.mark.xfail(strict=True, reason=XFAIL[name]))
    return pytest.param(name, marks=marks, id=name)


def job_config(relative: str, tmp_path: Path) -> tuple[Path, Path, dict[str, Path]]:
    """The repository's config (its `extends:` merged) with source_dir made absolute and the
    channels' local.inputs pointing at fresh synthetic data in tmp_path; written to tmp_path.
    Returns (config, source_dir, channels)."""
    path = HERE / relative
    config = load_document(path).data
    source = (path.parent / config["source_dir"]).resolve()
    channels = data.CHANNELS[path.stem](tmp_path / "data")
    config["source_dir"] = str(source)
    local = config.setdefault("local", {})
    local["inputs"] = {channel: str(folder) for channel, folder in channels.items()}
    written = tmp_path / "job.yaml"
    written.write_text(yaml.safe_dump(config, sort_keys=False))
    return written, source, channels


def said(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout + done.stderr


@pytest.mark.parametrize("name", [_param(name) for name in CASES])
def test_a_third_party_script_runs_unmodified(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    if case.needs and not in_uv_cache(case.needs, tmp_path):
        pytest.skip(f"{case.needs} is not in uv's cache (a run by hand installs it from the index)")
    config, source, channels = job_config(case.config, tmp_path)
    folders = [HERE, source, *channels.values()]  # HERE: the scripts and configs, all cases
    before = [user_files(folder) for folder in folders]
    run = tmp_path / "run"
    args = ["--workdir", str(run)] if case.workdir else []
    done = run_local(config, *args, timeout=TIMEOUT, env=clean_env(UV_OFFLINE="1"))
    assert done.returncode == 0, said(done)[-4000:]
    case.check(run, said(done))
    assert [user_files(folder) for folder in folders] == before


@OPT_IN
def test_a_script_for_tensorflow_2_3_runs_on_keras_2_after_the_version_warning(
    tmp_path: Path,
) -> None:
    """amazon-sagemaker-examples' TF 2.3.1 script calls Metric.reset_states(), which Keras 3 (TF
    2.16 on) renamed reset_state(): it failed there. Its image had Keras 2, and the job now gets
    tf-keras (TF_USE_LEGACY_KERAS=1): it trains and saves its SavedModel, after the warning that
    this machine's TensorFlow runs."""
    config, _, _ = job_config(TF_2_3, tmp_path)
    done = run_local(config, "--workdir", str(tmp_path / "run"), timeout=TIMEOUT)
    text = " ".join(said(done).split())
    assert done.returncode == 0, text[-4000:]
    assert "framework_version 2.3.1, but this run uses this machine's tensorflow" in text
    assert "with TF_USE_LEGACY_KERAS=1" in text
    assert "Assets written to: /opt/ml/model/00000000/assets" in text


@OPT_IN
def test_matching_tensorflow_2_3_is_refused_before_training(tmp_path: Path) -> None:
    """With local.framework: match the same job stops before any host starts: TensorFlow 2.3 has
    no wheel for this Python. uv answers from its cache (UV_OFFLINE); without the index's page
    for tensorflow there, the test is skipped."""
    config, _, _ = job_config(TF_2_3, tmp_path)
    run = tmp_path / "run"
    args = ["--workdir", str(run), "--set", "local.framework=match"]
    done = run_local(config, *args, timeout=TIMEOUT, env=clean_env(UV_OFFLINE="1"))
    text = " ".join(said(done).split())
    if "cannot reach" in text or "network" in text.lower():
        pytest.skip("uv's cache has no page of tensorflow's versions (the index is not asked)")
    assert done.returncode == 2, text[-4000:]
    assert "local.framework: match cannot install tensorflow 2.3" in text
    assert "[algo-1]" not in text and not (run / "logs" / "algo-1.log").exists()  # not started


@dataclass(frozen=True)
class Stop:
    """A run that ends before its script trains, or in it, for a reason this test names."""

    config: str
    returncode: int
    says: tuple[str, ...]  # lines (whitespace-normalized) the user sees
    started: bool = False  # whether any host started before it stopped


TORCHVISION = (
    "the script imports torchvision, which the PyTorch container ships, but this venv lacks it"
)
HOROVOD = "imports horovod, which is not installed here"
# Refused before any host starts, naming what is missing (issue 62 item 6). Quick: each run
# stops in its preflight, in the normal suite.
REFUSED = {
    # TensorFlow mpi + Horovod: the SDK's own Horovod test and the Horovod notebook.
    "hvd_basic": Stop("sagemaker-python-sdk/hvd_basic.yaml", 2, (f"hvd_basic.py {HOROVOD}",)),
    "mnist_hvd": Stop("amazon-sagemaker-examples/mnist_hvd.yaml", 2, (f"mnist_hvd.py {HOROVOD}",)),
    # torchvision has no build for this venv's torch on the index (a local torch build): the
    # three PyTorch MNIST scripts that read torchvision's MNIST folder.
    "pytorch_horovod_mnist": Stop(
        "amazon-sagemaker-examples/pytorch_horovod_mnist.yaml", 2, (TORCHVISION,)
    ),
    "hpo_pytorch_mnist": Stop(
        "amazon-sagemaker-examples/hpo_pytorch_mnist.yaml", 2, (TORCHVISION,)
    ),
    "smdataparallel_mnist": Stop(
        "amazon-sagemaker-examples/smdataparallel_mnist.yaml", 2, (TORCHVISION,)
    ),
    # requirements.txt pins torch==2.0.1+cpu from download.pytorch.org's find-links page: offline
    # (UV_OFFLINE, as here) uv cannot read that page and finds no such torch; online on this
    # machine the page does not resolve, and local says so.
    "model_trainer_basic": Stop(
        "amazon-sagemaker-examples/model_trainer_basic.yaml",
        2,
        ("installing -r requirements.txt", "torch==2.0.1+cpu"),
    ),
}
# Scripts for images with Keras 2 that failed on Keras 3 (this machine's TensorFlow) until the
# job got tf-keras with TF_USE_LEGACY_KERAS=1; they run now (opt-in: TensorFlow runs).
KERAS_2 = {
    # Keras 3 (TF 2.16 on) renamed Metric.reset_states(): the TF 2.3.1 HPO notebook's script.
    "tensorflow2_mnist": Stop(
        "amazon-sagemaker-examples/tensorflow2_mnist.yaml",
        0,
        ("with TF_USE_LEGACY_KERAS=1", "Epoch 4, Loss:"),
        started=True,
    ),
    # multi_worker_mnist.py under the container's MWMS TF_CONFIG: both workers join the
    # coordination service and train (Keras 3's fit() on numpy arrays could not feed the
    # 2-worker strategy: "ValueError: Attempt to convert a value (PerReplica:").
    "multi_worker_mnist_mwms": Stop(
        "deep-learning-containers/multi_worker_mnist_mwms.yaml",
        0,
        (
            "with TF_USE_LEGACY_KERAS=1",
            "/job:worker/replica:0/task:1 has connected to coordination service",
        ),
        started=True,
    ),
}


def _stop_param(name: str) -> Any:
    return pytest.param(name, marks=[] if name in REFUSED else [OPT_IN], id=name)


@pytest.mark.parametrize("name", [_stop_param(name) for name in {**REFUSED, **KERAS_2}])
def test_a_third_party_script_ends_as_it_says(
    name: str, tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Refused before training, naming what is missing; or (KERAS_2) run to its end."""
    stop = {**REFUSED, **KERAS_2}[name]
    config, source, channels = job_config(stop.config, tmp_path)
    before = [user_files(folder) for folder in (HERE, source, *channels.values())]
    run = tmp_path / "run"
    if stop.started:
        done = run_local(
            config, "--workdir", str(run), timeout=TIMEOUT, env=clean_env(UV_OFFLINE="1")
        )
        returncode, text = done.returncode, " ".join(said(done).split())
    else:
        # Refused in its preflight: the same `local` command in this process (its exit code and
        # all it says), not a new interpreter importing sagelaunch (local_in_process).
        result = local_in_process(cli, monkeypatch, config, "--workdir", run, UV_OFFLINE="1")
        returncode, text = result.exit_code, " ".join(result.output.split())
    assert returncode == stop.returncode, text[-4000:]
    for line in stop.says:
        assert line in text, text[-4000:]
    started = "[algo-1]" in text or (run / "logs" / "algo-1.log").exists()
    assert started == stop.started, text[-4000:]
    assert [user_files(folder) for folder in (HERE, source, *channels.values())] == before


@OPT_IN
def test_mpi_demo_sends_point_to_point(tmp_path: Path) -> None:
    """amazon-sagemaker-examples' mpi_demo.py (TensorFlow, mpi, 3 hosts × 2 processes, mpi4py):
    rank 0 sends [0 1 2] to rank 1, which prints it. Rank 0 segfaults in that send inside the
    sandboxes until mpirun's btl became "self,tcp". The send, the broadcast and the gather go
    through; the script then fails on np.float (this machine's numpy removed it; the TF 2.3
    image has numpy 1.18: not a gap of local). Needs mpi4py from uv's cache, as the openmpi
    case."""
    if not in_uv_cache("mpi4py", tmp_path):
        pytest.skip("mpi4py is not in uv's cache (a run by hand installs it from the index)")
    config, _, _ = job_config("amazon-sagemaker-examples/mpi_demo.yaml", tmp_path)
    done = run_local(
        config, "--workdir", str(tmp_path / "run"), timeout=TIMEOUT, env=clean_env(UV_OFFLINE="1")
    )
    text = said(done)
    assert "Number of MPI processes that will talk to each other: 6" in text, text[-4000:]
    assert "I received some data: [0 1 2]" in text, text[-4000:]
    assert done.returncode == 1 and "has no attribute 'float'" in text, text[-4000:]

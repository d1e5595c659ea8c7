"""Whole local runs: torchrun across hosts, sharded XGBoost, failures, trees, --docker."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import tarfile
import time
import uuid
from pathlib import Path

import pytest
import yaml

from sagelaunch.local import sandbox
from sagelaunch.local.artifacts import members
from tests.conftest import ENTRYPOINTS
from tests.local.conftest import (
    TWO_HOST_TORCHRUN,
    clean_env,
    local_command,
    pytorch_config,
    read_json,
    run_local,
    survivors,
)
from tests.local.data import write_dataset

ISOLATED = sandbox.choose("auto").isolated  # each host's processes see their tree at /opt/ml

HOSTS = ("algo-1", "algo-2")


@pytest.mark.slow
@pytest.mark.xdist_group(TWO_HOST_TORCHRUN)  # its run is test_hetero.py's reference too
def test_torchrun_across_two_hosts_leaves_model_tar_gz(two_host_torchrun):
    """The shared 2-host run (conftest.py): a tiny GPT for 4 steps, its data from a channel
    (what test_hetero.py compares against); what a run leaves is any such run's."""
    root, done = two_host_torchrun
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert [h["host"] for h in result["hosts"]] == ["algo-1", "algo-2"]
    assert all(h["exit_code"] == 0 and h["failure"] is None for h in result["hosts"])
    assert members(Path(result["model_artifact"])) == ["model.pt"]
    assert "[algo-1] step=4 train_loss=" in done.stderr
    assert "world size 2" in done.stderr and "gloo" in done.stderr
    workdir = Path(result["workdir"])
    assert workdir.parent == root / ".sagelaunch" / "runs"
    assert not (workdir / "algo-1").exists()  # trees go after a successful run without --keep
    # torchrun's agents keep their files in the run's logs, not in the machine's /tmp.
    agents = sorted(p.name for p in (workdir / "logs").glob("torchelastic-*") if any(p.iterdir()))
    assert agents == ["torchelastic-algo-1", "torchelastic-algo-2"]


def xgboost_config(**local: object) -> dict[str, object]:
    """Sharded XGBoost on two hosts; no tracker_port: every run must pick its own."""
    return {
        "name": "xgb",
        "framework": "xgboost",
        "entry_point": "train_xgboost.py",
        "source_dir": str(ENTRYPOINTS / "xgboost"),
        "framework_version": "1.7-1",
        "compute": {"instance_type": "ml.m5.xlarge", "instance_count": 2},
        "hyperparameters": {"objective": "reg:squarederror", "num_round": 5, "max_depth": 3},
        "inputs": {
            "train": {"uri": "s3://bucket/train/", "distribution": "sharded"},
            "validation": "s3://bucket/validation/",
        },
        "local": {
            "inputs": {"train": "data/train", "validation": "data/validation"},
            "hyperparameters": {"nthread": 1},
            **local,
        },
    }


@pytest.fixture(scope="module")
def xgboost_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four runs of one sharded XGBoost config, made once for the two tests below (each run
    starts 2 hosts' XGBoost: seconds of imports): run-1 (kept) and run-2 back to back, then run-3
    and run-4 at once. run-1 is the sharded-CSV test's run; all four are the reruns test's."""
    root = tmp_path_factory.mktemp("xgboost-runs")
    write_dataset(root / "data", train_files=4, rows_per_file=50)
    config = root / "job.yaml"
    config.write_text(yaml.safe_dump(xgboost_config(), sort_keys=False))
    first = run_local(config, "--workdir", str(root / "run-1"), "--keep")
    again = run_local(config, "--workdir", str(root / "run-2"))
    assert first.returncode == 0, first.stderr[-3000:]
    assert again.returncode == 0, again.stderr[-3000:]
    together = [
        subprocess.Popen(
            [sys.executable, "-m", "sagelaunch", "local", str(config), "--workdir", str(run)],
            cwd=root,
            env=clean_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for run in (root / "run-3", root / "run-4")
    ]
    for proc in together:
        _, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err[-3000:]
    return root


@pytest.mark.slow
@pytest.mark.xdist_group("local-xgboost-runs")  # one worker makes the shared runs
def test_xgboost_on_sharded_csv(xgboost_runs):
    run = xgboost_runs / "run-1"
    shards = [sorted(p.name for p in (run / h / "input/data/train").iterdir()) for h in HOSTS]
    assert shards == [["part-000.csv", "part-002.csv"], ["part-001.csv", "part-003.csv"]]
    assert members(run / "model.tar.gz") == ["xgboost-model"]
    config_json = read_json(run / "algo-2/input/config/inputdataconfig.json")
    assert config_json["train"]["S3DistributionType"] == "ShardedByS3Key"
    assert config_json["validation"]["S3DistributionType"] == "FullyReplicated"


@pytest.mark.slow
@pytest.mark.xdist_group("local-xgboost-runs")
def test_xgboost_reruns_back_to_back_and_at_once_never_collide(xgboost_runs):
    """A fixed tracker port stays in TIME_WAIT after a run and is wanted by concurrent runs:
    every run of the fixture succeeded (it asserts each exit) and left its model."""
    for run in ("run-1", "run-2", "run-3", "run-4"):
        assert members(xgboost_runs / run / "model.tar.gz") == ["xgboost-model"]


FAILING = """\
import os, sys, time
from pathlib import Path

pid_dir = Path(os.environ["SM_OUTPUT_DATA_DIR"])  # in the run folder: writable in a sandbox
host = os.environ["SM_CURRENT_HOST"]
(pid_dir / f"{host}-{os.getpid()}-{os.getppid()}").write_text("")
if host == "algo-2":
    time.sleep(1)
    Path(os.environ["SM_OUTPUT_DIR"], "failure").write_text("ValueError: boom on algo-2")
    print("about to fail", flush=True)
    raise ValueError("boom on algo-2")
time.sleep(120)
"""


@pytest.mark.slow
def test_one_host_failing_stops_the_others(write_config, tmp_path):
    config = write_config(
        pytorch_config(entry_point="fail.py", source_dir="code"),
        code={"fail.py": FAILING},
    )
    # algo-1 sleeps 120 s: the run ending within the 90 s timeout means it was cut short.
    token = uuid.uuid4().hex
    done = run_local(
        config, "--workdir", str(tmp_path / "run"), timeout=90, env=clean_env(RUN_TOKEN=token)
    )
    assert done.returncode == 1, done.stderr[-3000:]
    assert "ValueError: boom on algo-2" in done.stderr
    assert "algo-2 failed" in done.stderr and "about to fail" in done.stderr
    pids = list((tmp_path / "run").glob("algo-*/output/data/algo-*"))
    recorded = [int(p) for f in pids for p in f.name.split("-")[2:]]
    assert len(recorded) == 4  # two workers and their torchrun agents
    assert survivors(token) == []
    assert (tmp_path / "run" / "algo-1").is_dir()  # kept for a look after a failure


CUSTOM = """\
import argparse, json, os
from pathlib import Path

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int)
parser.add_argument("--note")
args = parser.parse_args()
model = Path(os.environ["SM_MODEL_DIR"])
weights = {"host": os.environ["SM_CURRENT_HOST"], "epochs": args.epochs}
(model / "weights.json").write_text(json.dumps(weights))
print(f"{os.environ['SM_CURRENT_HOST']} cwd={os.getcwd()} note={args.note}")
"""


@pytest.mark.slow
def test_someone_elses_config_with_workdir_and_keep(write_config, tmp_path):
    config = write_config(
        {
            "name": "their-job",
            "framework": "pytorch",
            "entry_point": "train.py",
            "source_dir": "code",
            "framework_version": "2.1.0",
            "role": "arn:aws:iam::111122223333:role/Theirs",
            "compute": {"instance_type": "ml.m5.xlarge", "instance_count": 3},
            "hyperparameters": {"epochs": 2, "note": "hello world"},
            "local": {"hyperparameters": {"epochs": 1}},
        },
        code={"train.py": CUSTOM, "helpers/util.py": "X = 1\n"},
    )
    run = tmp_path / "mine"
    done = run_local(config, "--workdir", str(run), "--keep")
    assert done.returncode == 0, done.stderr[-3000:]
    for index in (1, 2):
        host = run / f"algo-{index}"
        resources = read_json(host / "input/config/resourceconfig.json")
        assert resources["current_host"] == f"algo-{index}"
        assert resources["hosts"] == ["algo-1", "algo-2"]
        assert resources["current_instance_type"] == "ml.m5.xlarge"
        hps = read_json(host / "input/config/hyperparameters.json")
        assert hps["epochs"] == "1" and hps["note"] == '"hello world"'
        assert hps["sagemaker_program"] == '"train.py"'
        assert (host / "code" / "helpers" / "util.py").is_file()
        assert read_json(host / "model/weights.json") == {"host": f"algo-{index}", "epochs": 1}
        for folder in ("output/data", "output/intermediate", "checkpoints", "input/data"):
            assert (host / folder).is_dir()
        cwd = "/opt/ml/code" if ISOLATED else host / "code"  # as the script sees it (sandbox.py)
        assert f"[algo-{index}] algo-{index} cwd={cwd} note=hello world" in done.stderr
    with tarfile.open(run / "model.tar.gz") as tar:
        assert json.load(tar.extractfile("weights.json"))["host"] == "algo-1"


def test_docker_without_docker_is_a_clear_usage_error(cli, make_config, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    result = cli("local", make_config(), "--docker")
    assert result.exit_code == 2
    assert "--docker needs Docker" in result.output and "not installed" in result.output
    assert "drop --docker" in result.output


def _pid_files(tmp_path: Path) -> list[Path]:
    """What SLEEPER wrote in the run folder (the default one: .sagelaunch/runs/JOB)."""
    return list(tmp_path.glob(".sagelaunch/runs/*/algo-*/output/data/algo-*"))


SLEEPER = """\
import os, sys, time
from pathlib import Path

pid_dir = Path(os.environ["SM_OUTPUT_DATA_DIR"])  # in the run folder: writable in a sandbox
(pid_dir / f"{os.environ['SM_CURRENT_HOST']}-{os.getpid()}").write_text("")
time.sleep(120)
"""


@pytest.mark.slow
def test_ctrl_c_stops_every_host(write_config, tmp_path):
    config = write_config(
        pytorch_config(
            entry_point="sleep.py", source_dir="code", distribution={"strategy": "none"}
        ),
        code={"sleep.py": SLEEPER},
    )
    token = uuid.uuid4().hex
    proc = subprocess.Popen(
        local_command(config),
        cwd=tmp_path,
        env=clean_env(RUN_TOKEN=token),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while len(_pid_files(tmp_path)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(_pid_files(tmp_path)) == 2, "the hosts did not start"
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 4, stderr[-2000:]
    assert "interrupted" in stderr
    assert survivors(token) == []

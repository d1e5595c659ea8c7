"""The SM_* environment of a local run equals what the SageMaker training toolkit computes.

For every host of a 2-host run, an entry point dumps the SM_* variables it received; the toolkit's
own ``Environment().to_env_vars()`` then runs in a fresh subprocess that sees that host's tree
where the host's processes saw it: in the host's sandbox at /opt/ml, the toolkit's own default
(sandbox.py), else at its real path through SAGEMAKER_BASE_DIR (the toolkit reads it at import).
The oracle sees the same machine (same CPUs, GPUs, Neuron tools, PATH) and the same container
variables a framework image sets (SAGEMAKER_TRAINING_MODULE), and the job's TRAINING_JOB_NAME.
No other normalisation.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sagelaunch.local import sandbox
from sagelaunch.local.environment import TRAINING_MODULES, user_args
from sagelaunch.local.supervisor import HostProcess
from sagelaunch.local.tree import HostTree
from tests.local.conftest import OWN_NETWORKS, clean_env, read_json, run_local

# The PyTorch toolkit's master: the first host by name where each host has a network of its own.
MASTER_ADDR = "algo-1" if OWN_NETWORKS else "127.0.0.1"

DUMP_ENV = """\
import json, os, sys
from pathlib import Path

seen = {k: v for k, v in os.environ.items() if k.startswith("SM_")}
extra = {k: os.environ.get(k) for k in ("TRAINING_JOB_NAME", "MASTER_ADDR", "CURRENT_HOST")}
out = Path(os.environ["SM_OUTPUT_DATA_DIR"]) / "env.json"
out.write_text(json.dumps({"sm": seen, "other": extra, "argv": sys.argv[1:]}))
"""

ORACLE = """\
import json, sys
from sagemaker_training import environment
json.dump(environment.Environment().to_env_vars(), open(sys.argv[1], "w"))
"""


def toolkit_env(tree: Path, framework: str, out: Path, job_name: str) -> dict[str, str]:
    """The toolkit's SM_* variables for ``tree``; ``out`` must be in the tree's run folder."""
    isolation = sandbox.choose("auto")
    base = {} if isolation.isolated else {"SAGEMAKER_BASE_DIR": str(tree)}
    env = clean_env(
        SAGEMAKER_TRAINING_MODULE=TRAINING_MODULES[framework], TRAINING_JOB_NAME=job_name, **base
    )
    oracle = HostProcess(tree.name, [sys.executable, "-c", ORACLE, str(out)], tree, env, out)
    oracle = sandbox.confine(oracle, HostTree(tree.name, tree), tree.parent, isolation)
    subprocess.run(
        oracle.argv,
        env=oracle.env,
        check=True,
        timeout=60,
        capture_output=True,
    )
    return read_json(out)


@pytest.mark.slow
def test_every_host_gets_the_toolkits_environment(write_config, tmp_path):
    data = tmp_path / "data"
    for index in range(3):
        (data / "train" / f"part-{index}.csv").parent.mkdir(parents=True, exist_ok=True)
        (data / "train" / f"part-{index}.csv").write_text(f"{index},1,2\n")
    (data / "validation.csv").write_text("0,1,2\n")
    config = write_config(
        {
            "name": "oracle",
            "framework": "pytorch",
            "entry_point": "dump_env.py",
            "source_dir": "code",
            "framework_version": "2.2.0",
            "compute": {"instance_type": "ml.g5.12xlarge", "instance_count": 4},
            "distribution": {"strategy": "torchrun"},
            "hyperparameters": {"lr": 0.001, "epochs": 3, "optimizer": "adam", "a": 1},
            "inputs": {
                "train": {"uri": "s3://bucket/train/", "distribution": "sharded"},
                "validation": {"uri": f"file://{data / 'validation.csv'}"},
            },
            "environment": {"NCCL_DEBUG": "WARN"},
            "local": {
                "hosts": 2,
                "inputs": {"train": "data/train"},
                "hyperparameters": {"flag": True, "mix": {"b": 2, "a": "x"}, "epochs": 1},
            },
        },
        code={"dump_env.py": DUMP_ENV},
    )
    done = run_local(config, "--workdir", str(tmp_path / "run"), "--keep")
    assert done.returncode == 0, done.stderr[-3000:]
    for host in ("algo-1", "algo-2"):
        tree = tmp_path / "run" / host
        received = read_json(tree / "output" / "data" / "env.json")
        job_name = received["other"]["TRAINING_JOB_NAME"]  # as SageMaker sets it
        assert job_name.startswith("oracle-")
        oracle = tmp_path / "run" / f"{host}-oracle.json"
        expected = toolkit_env(tree, "pytorch", oracle, job_name)
        assert received["sm"] == expected, _diff(received["sm"], expected)
        assert received["other"] == {
            "TRAINING_JOB_NAME": job_name,
            "MASTER_ADDR": MASTER_ADDR,
            "CURRENT_HOST": host,
        }
        assert received["argv"] == json.loads(expected["SM_USER_ARGS"])
    assert json.loads(expected["SM_HPS"]) == {
        "a": 1,
        "epochs": 1,
        "flag": True,
        "lr": 0.001,
        "mix": {"a": "x", "b": 2},
        "optimizer": "adam",
    }


def _diff(got: dict[str, str], want: dict[str, str]) -> str:
    keys = sorted(set(got) | set(want))
    lines = [
        f"{k}:\n  local:   {got.get(k)}\n  toolkit: {want.get(k)}"
        for k in keys
        if got.get(k) != want.get(k)
    ]
    return "\n".join(lines)


@pytest.mark.parametrize(
    "hyperparameters",
    [
        {},
        {"lr": 0.001, "epochs": 3, "name": "adam", "a": 1},
        {"flag": True, "none": None, "nested": {"z": 1, "a": [1, 2]}, "items": [1, "x"]},
        {"empty": "", "float": 1e-7, "big": 10**20, "s": "two words"},
    ],
)
def test_user_args_match_the_toolkit(hyperparameters):
    from sagemaker_training import mapping

    assert user_args(hyperparameters) == mapping.to_cmd_args(hyperparameters)

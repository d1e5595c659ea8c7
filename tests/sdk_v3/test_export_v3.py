"""`export --sdk v3` scripts, built into requests by ModelTrainer itself (SDK v3, its own venv).

For every example v3 can run, the exported script is loaded in .venv-v3 and ModelTrainer's request
builder makes the CreateTrainingJob request offline (capture_v3.py). Each request is checked
against the table below (what v3 sends differently: the runner, hyperparameter encoding, the
channels it adds) and against the v2 plan for what must not change (image, cluster, limits,
output, checkpoint, VPC, environment, tags, metric definitions). Run by `make test-sdk-v3`.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from sagelaunch.plan_model import Plan
from sagelaunch.services.exporting import script
from tests.conftest import EXAMPLES
from tests.golden.regenerate import golden_plan

V3_PYTHON = os.environ.get("SAGELAUNCH_SDK_V3_PYTHON", "")
CAPTURE = Path(__file__).with_name("capture_v3.py")
ENTRY = ["/bin/bash"]
TRAIN_SH = "/opt/ml/input/data/sm_drivers/sm_train.sh"
ARGS = ["-c", f"chmod +x {TRAIN_SH} && {TRAIN_SH}"]
CHECKPOINTS = "/opt/ml/checkpoints"  # CheckpointConfig.LocalPath's default (API reference)

# config -> what v3 must send: hyperparameters (v3 encoding: strings bare, the rest JSON; no
# sagemaker_* keys), the runner ModelTrainer writes into sm_drivers/distributed.json, channels.
EXPECTED: dict[str, dict[str, Any]] = {
    "smp-v2-p4d": {
        "hyperparameters": {
            "model": "gpt",
            "parallel": "fsdp",
            "activation_checkpointing": "true",
            "mp_parameters": '{"hybrid_shard_degree": 8, "sm_activation_offloading": false}',
        },
        "distributed": {"process_count_per_node": None, "smp": {"hybrid_shard_degree": 8}},
        "channels": ["code", "sm_drivers"],
    },
    "smp-v2-p5": {
        "hyperparameters": {
            "model": "gpt",
            "parallel": "fsdp",
            "precision": "bf16",
            "mp_parameters": '{"hybrid_shard_degree": 16, "tensor_parallel_degree": 2}',
        },
        "distributed": {"smp": {"hybrid_shard_degree": 16, "tensor_parallel_degree": 2}},
        "channels": ["code", "sm_drivers"],
    },
    "trn1-torchrun": {
        "hyperparameters": {"model": "gpt", "max_steps": "2000"},
        "distributed": {"process_count_per_node": None, "smp": None},
        "channels": ["code", "sm_drivers"],
    },
    "fsdp-g5": {
        "hyperparameters": {
            "model": "gpt",
            "parallel": "fsdp",
            "sharding": "full",
            "batch_size": "8",
            "max_steps": "3000",
        },
        "distributed": {"process_count_per_node": None, "smp": None},
        "channels": ["code", "sm_drivers"],
    },
    "mpi-g5": {
        "hyperparameters": {"model": "gpt"},
        "distributed": {
            "process_count_per_node": 8,
            "mpi_additional_options": ["-x", "NCCL_DEBUG=INFO"],
        },
        "channels": ["code", "sm_drivers"],
    },
    "fsx-vpc": {
        "hyperparameters": {"model": "gpt", "data": "channel"},
        "distributed": {"process_count_per_node": None, "smp": None},
        "channels": ["train", "code", "sm_drivers"],
        "train_source": "FileSystemDataSource",
    },
    "spot-checkpoint": {
        "hyperparameters": {"model": "gpt", "max_steps": "20000", "checkpoint_every": "500"},
        "spot": True,
        "distributed": {},  # strategy none: one process, no runner
        "channels": ["code", "sm_drivers"],
    },
    "xgboost-sharded": {
        "hyperparameters": {
            "objective": "reg:squarederror",
            "tree_method": "hist",
            "num_round": "100",
            "max_depth": "6",
            "eta": "0.2",
        },
        "distributed": {},  # script mode, no runner: the driver runs `python train_xgboost.py`
        "channels": ["train", "validation", "code", "sm_drivers"],
        "train_distribution": "ShardedByS3Key",
    },
    "xgboost-builtin": {
        "hyperparameters": {
            "objective": "binary:logistic",
            "num_round": "200",
            "max_depth": "5",
            "eta": "0.2",
            "eval_metric": "auc",
        },
        "builtin": True,  # no source code: no drivers, the algorithm image's own entry point
        "channels": ["train", "validation"],
    },
}


def captured(config: str | Path, tmp_path: Path) -> tuple[Plan, dict[str, Any]]:
    """The plan of an example (by name) or of a config file, and v3's request for its export."""
    source = config if isinstance(config, Path) else EXAMPLES / f"{config}.yaml"
    plan = Plan.model_validate(golden_plan(source))
    path = tmp_path / f"{source.stem}.py"
    path.write_text(script(plan, "v3", source=str(source), name=path.name))
    proc = subprocess.run(
        [V3_PYTHON, str(CAPTURE), str(path)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return plan, json.loads(proc.stdout)


@pytest.mark.parametrize("config", sorted(EXPECTED))
def test_v3_request_has_the_expected_fields(config, tmp_path):
    plan, result = captured(config, tmp_path)
    request, v2, expected = result["request"], plan.request, EXPECTED[config]
    assert result["network"] == []
    spec = request["AlgorithmSpecification"]
    # What must not change between the SDKs.
    assert spec["TrainingImage"] == v2["AlgorithmSpecification"]["TrainingImage"]
    assert spec["TrainingInputMode"] == v2["AlgorithmSpecification"]["TrainingInputMode"]
    assert spec.get("MetricDefinitions") == v2["AlgorithmSpecification"].get("MetricDefinitions")
    for key in ("ResourceConfig", "StoppingCondition", "RoleArn", "Tags", "VpcConfig"):
        assert request.get(key) == v2.get(key), key
    assert request.get("Environment") == v2.get("Environment")
    if "CheckpointConfig" in v2:  # v3 writes the local path v2 leaves to the container's default
        assert request["CheckpointConfig"] == {"LocalPath": CHECKPOINTS, **v2["CheckpointConfig"]}
    else:
        assert "CheckpointConfig" not in request
    assert request["OutputDataConfig"]["S3OutputPath"] == v2["OutputDataConfig"]["S3OutputPath"]
    assert request.get("EnableManagedSpotTraining") == expected.get(
        "spot", v2.get("EnableManagedSpotTraining")
    )
    # What v3 does its own way.
    hyperparameters = request.get("HyperParameters", {})
    assert not any(k.startswith("sagemaker_") for k in hyperparameters)
    assert hyperparameters == expected["hyperparameters"]
    assert "DebugHookConfig" not in request and "ProfilerConfig" not in request
    assert "EnableSageMakerMetricsTimeSeries" not in spec
    compression = v2["OutputDataConfig"].get("CompressionType", "GZIP")  # v2 omits the default
    assert request["OutputDataConfig"]["CompressionType"] == compression
    channels = {c["ChannelName"]: c for c in request.get("InputDataConfig", [])}
    v2_channels = [c["ChannelName"] for c in v2.get("InputDataConfig", [])]
    assert [c for c in channels if c not in ("code", "sm_drivers")] == v2_channels
    assert list(channels) == expected["channels"]
    if expected.get("builtin"):
        assert "ContainerEntrypoint" not in spec and result["uploads"] == {}
        return
    assert (spec["ContainerEntrypoint"], spec["ContainerArguments"]) == (ENTRY, ARGS)
    code = channels["code"]["DataSource"]["S3DataSource"]["S3Uri"]
    assert code == plan.upload.s3_uri  # the bundle sagelaunch uploads, not a new upload
    drivers = result["uploads"]["sm_drivers"]
    assert drivers["sourcecode.json"]["entry_script"] == plan.estimator.kwargs["entry_point"]
    distributed = drivers["distributed.json"]
    if expected["distributed"] == {}:
        assert distributed == {}
    if "mpi_additional_options" in expected["distributed"]:
        assert "smp" not in distributed  # MPI, not Torchrun
    elif expected["distributed"]:
        assert "smp" in distributed  # Torchrun (SMP or not)
    for key, value in expected["distributed"].items():
        got = distributed[key]  # the runner's own field: present, so the runner is this one
        if isinstance(value, dict):
            assert {k: got[k] for k in value} == value, key
        else:
            assert got == value, key
    train = channels.get("train", {}).get("DataSource", {})
    if expected.get("train_source") == "FileSystemDataSource":
        assert train["FileSystemDataSource"] == {
            "FileSystemId": "fs-0123456789abcdef0",
            "FileSystemType": "FSxLustre",
            "DirectoryPath": "/fsx/tokens",
            "FileSystemAccessMode": "ro",
        }
    if "train_distribution" in expected:
        assert train["S3DataSource"]["S3DataDistributionType"] == expected["train_distribution"]


def test_instance_preferences_and_the_pending_limit_reach_v3(preferred_config, tmp_path):
    """What SDK v2 cannot build and the plan lays over its request, v3's Compute and
    StoppingCondition send as the plan does (its own validation runs: the preferences are
    exclusive of instance_type there too)."""
    plan, result = captured(preferred_config, tmp_path)
    request = result["request"]
    assert request["ResourceConfig"] == plan.request["ResourceConfig"]
    assert request["ResourceConfig"]["InstancePreferences"][0]["TrainingPlanArns"]
    assert request["StoppingCondition"] == plan.request["StoppingCondition"]
    assert request["StoppingCondition"]["MaxPendingTimeInSeconds"] == 7200

"""A config that sets every key the request-field table claims (and import must map back),
planned once per session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES
from tests.golden.regenerate import GOLDEN, golden_plan

EVERYTHING: dict[str, Any] = {
    "extends": str(EXAMPLES / "bases" / "team.yaml"),
    "name": "everything",
    "framework": "pytorch",
    "entry_point": "train_pytorch.py",
    "source_dir": str(GOLDEN / "source"),
    "framework_version": "2.2.0",
    "compute": {
        "groups": [
            {"name": "data_group", "instance_type": "ml.c5.2xlarge", "instance_count": 1},
            # A type UltraServers are made of (the placement below is for UltraServers only).
            {"name": "dnn_group", "instance_type": "ml.p5.48xlarge", "instance_count": 2},
        ],
        "keep_alive": 600,
        "retries": 2,
        "training_plan": "arn:aws:sagemaker:us-east-1:111122223333:training-plan/everything-plan",
        "placement": {
            "EnableMultipleJobs": True,
            "PlacementSpecifications": [{"UltraServerId": "ultraserver-1", "InstanceCount": 2}],
        },
    },
    "distribution": {"strategy": "torchrun", "groups": ["dnn_group"]},
    "inputs": {
        "train": {
            "uri": "s3://b/train/",
            "groups": ["data_group"],
            "content_type": "application/x-recordio",
            "input_mode": "Pipe",
            "compression": "Gzip",
            "record_wrapping": "RecordIO",
            "shuffle_seed": 7,
        },
    },
    # No checkpoint: the SDK fails on groups + checkpoint + the debugger hook (a rule says so).
    "kms": {"volume_key_id": "vol-key", "output_key_id": "out-key"},
    "output_compression": False,
    "debugger": {
        "rules": [{"name": "loss_not_decreasing", "parameters": {"patience": 3}}],
        "hook": {
            "s3_output_path": "s3://b/debug/",
            "collections": {"losses": {"save_interval": 5}},
        },
    },
    "profiler": {"rules": ["ProfilerReport"], "interval_ms": 1000},
    "tensorboard": {"s3_uri": "s3://b/tb/"},
    "experiment": {
        "name": "exp",
        "trial": "trial-1",
        "trial_component_display_name": "shown",
        "run_name": "run-1",
    },
    "network": {"isolation": True},
    "remote_debug": True,
    "infra_check": True,
    "session_tag_chaining": True,
}


# What the API makes exclusive of instance groups, placement and spot: instance preferences
# (each with its own count and training plans), with the pending limit.
PREFERRED: dict[str, Any] = {
    "extends": str(EXAMPLES / "bases" / "team.yaml"),
    "name": "preferred",
    "framework": "pytorch",
    "entry_point": "train_pytorch.py",
    "source_dir": str(GOLDEN / "source"),
    "framework_version": "2.2.0",
    "compute": {
        "instance_preferences": [
            {
                "instance_type": "ml.p5.48xlarge",
                "instance_count": 2,
                "training_plans": [
                    "arn:aws:sagemaker:us-east-1:111122223333:training-plan/p5-plan"
                ],
            },
            {"instance_type": "ml.p4d.24xlarge", "instance_count": 4},
        ],
        "max_pending": "2h",
    },
    "distribution": {"strategy": "torchrun"},
}


def _written(tmp_path_factory: pytest.TempPathFactory, name: str, data: dict) -> Path:
    path = tmp_path_factory.mktemp(name) / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.fixture(scope="session")
def preferred_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _written(tmp_path_factory, "preferred", PREFERRED)


@pytest.fixture(scope="session")
def preferred_plan(preferred_config: Path) -> dict[str, Any]:
    return golden_plan(preferred_config)


@pytest.fixture(scope="session")
def everything_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _written(tmp_path_factory, "everything", EVERYTHING)


@pytest.fixture(scope="session")
def everything_plan(everything_config: Path) -> dict[str, Any]:
    return golden_plan(everything_config)

"""Shared fixtures: the repo layout, a valid base config to mutate, and the CLI runner."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from sagelaunch.app import app

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "launch_configs"
ENTRYPOINTS = REPO / "entrypoints"

BASE: dict[str, Any] = {
    "name": "unit",
    "framework": "pytorch",
    "entry_point": "train.py",
    "source_dir": "code",
    "framework_version": "2.2.0",
    "role": "arn:aws:iam::111122223333:role/SageMakerRole",
    "region": "us-east-1",
    "compute": {"instance_type": "ml.g5.2xlarge", "instance_count": 1},
    "output_path": "s3://bucket/output/",
}


def deep_merge(base: dict, over: dict) -> dict:
    merged = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        elif value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged


@pytest.fixture
def make_config(tmp_path: Path):
    """Write BASE deep-merged with overrides (None deletes a key) next to a code/ dir."""
    (tmp_path / "code").mkdir(exist_ok=True)
    (tmp_path / "code" / "train.py").write_text("print('hi')\n")

    def make(overrides: dict | None = None, name: str = "job.yaml") -> Path:
        path = tmp_path / name
        path.write_text(yaml.safe_dump(deep_merge(BASE, overrides or {}), sort_keys=False))
        return path

    return make


@pytest.fixture
def cli():
    runner = CliRunner()

    def invoke(*args: str, **kwargs: Any):
        return runner.invoke(app, [str(a) for a in args], catch_exceptions=False, **kwargs)

    return invoke

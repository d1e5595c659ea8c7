"""Shared fixtures: the repo layout, a valid base config to mutate, and the CLI runner."""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from sagelaunch.app import app
from sagelaunch.caches import CACHE_DIR_ENV
from tests.paths import REPO

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


@pytest.fixture(scope="session", autouse=True)
def one_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every sagelaunch of the session, in this process and in the runs it starts, shares one
    cache folder (SAGELAUNCH_CACHE_DIR), as a CI cache step or a second checkout would: the SDK
    plans a config once, not once per test folder. Fresh for each session (and shared by its
    xdist workers), so no entry outlives the code that made it. A test of a cache itself takes a
    folder of its own: ``own_caches``."""
    root = tmp_path_factory.getbasetemp()
    root = root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root
    before = os.environ.get(CACHE_DIR_ENV)
    os.environ[CACHE_DIR_ENV] = str(root / "sagelaunch-cache")
    yield root / "sagelaunch-cache"
    if before is None:
        os.environ.pop(CACHE_DIR_ENV, None)
    else:
        os.environ[CACHE_DIR_ENV] = before


@pytest.fixture
def own_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    """The caches under the working folder (`.sagelaunch/cache/`), as a user without
    SAGELAUNCH_CACHE_DIR has them: for the tests of the caches themselves."""
    monkeypatch.delenv(CACHE_DIR_ENV, raising=False)


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

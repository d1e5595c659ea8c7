"""Harness for the XGBoost entry-point tests: synthetic data, and hosts as processes on loopback.

Each host gets its own fake /opt/ml under tmp_path and an environment built from scratch (SM_* set
by hand, launcher variables removed), so nothing leaks in from the developer's shell or another
test. Scripts run from entrypoints/, as they do from /opt/ml/code. Imported explicitly by the
XGBoost tests (tests/entrypoints/conftest.py belongs to the PyTorch tests).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import REPO

ENTRYPOINTS = REPO / "entrypoints" / "xgboost"

EVAL_LINE = re.compile(r"^\[(\d+)\]((?:\t[\w@.-]+:[-+0-9.eE]+(?:nan|inf)?)+)$")

# Variables a launcher or a real job would set; a test sets the ones it wants explicitly.
_LAUNCHER_VARS = re.compile(
    r"^(SM_.*|TRAINING_JOB_NAME|RANK|LOCAL_RANK|WORLD_SIZE|MASTER_ADDR|MASTER_PORT|"
    r"DMLC_.*|OMPI_.*|PYTEST_XDIST_.*)$"
)

# Deterministic, small and quick: one thread per host, since tests share two cores.
FAST = (
    "--max_depth",
    "4",
    "--eta",
    "0.3",
    "--nthread",
    "1",
    "--seed",
    "0",
    "--tree_method",
    "hist",
)


# --- data -----------------------------------------------------------------------------------


def regression(rows: int, features: int = 6, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Features and a label that depends on them non-linearly, plus a little noise."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, size=(rows, features)).astype(np.float32)
    y = 2 * x[:, 0] + np.sin(3 * x[:, 1]) + x[:, 2] * x[:, 3] + 0.1 * rng.standard_normal(rows)
    return x, y.astype(np.float32)


def write_csv(path: Path, x: np.ndarray, y: np.ndarray) -> Path:
    """SageMaker's CSV: label first, no header; %.9g round-trips float32 exactly."""
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savetxt(path, np.column_stack([y, x]), delimiter=",", fmt="%.9g")
    return path


def write_libsvm(path: Path, x: np.ndarray, y: np.ndarray) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = (
        " ".join([f"{label:.9g}", *(f"{j}:{value:.9g}" for j, value in enumerate(row))])
        for label, row in zip(y, x, strict=True)
    )
    path.write_text("\n".join(lines) + "\n")
    return path


def write_csv_shards(folder: Path, x: np.ndarray, y: np.ndarray, files: int) -> list[Path]:
    """The rows split into ``files`` CSV files, as an S3 prefix holding several objects."""
    chunks = zip(np.array_split(x, files), np.array_split(y, files), strict=True)
    return [write_csv(folder / f"part-{i:02d}.csv", cx, cy) for i, (cx, cy) in enumerate(chunks)]


def rmse(booster: Any, x: np.ndarray, y: np.ndarray) -> float:
    import xgboost as xgb

    predictions = booster.predict(xgb.DMatrix(x))
    return float(np.sqrt(np.mean((predictions - y) ** 2)))


def load_booster(path: Path) -> Any:
    """Load ``xgboost-model`` by its bare name, as the SageMaker container's inference does."""
    import xgboost as xgb

    with warnings.catch_warnings():
        # XGBoost 3 says it guesses JSON for a name without extension: the guess is the point.
        warnings.simplefilter("ignore", UserWarning)
        return xgb.Booster(model_file=str(path))


# --- hosts ----------------------------------------------------------------------------------


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str

    def eval_lines(self) -> dict[int, dict[str, float]]:
        """round -> metrics from XGBoost's eval lines on stdout."""
        rounds = {}
        for line in self.stdout.splitlines():
            match = EVAL_LINE.match(line)
            if match:
                items = (item.rsplit(":", 1) for item in match.group(2).strip("\t").split("\t"))
                rounds[int(match.group(1))] = {name: float(value) for name, value in items}
        return rounds

    def describe(self) -> str:
        return (
            f"exit {self.returncode}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr[-4000:]}"
        )


@dataclass
class Host:
    """One host's fake container: channels in, model/output/checkpoint dirs under ``root``."""

    root: Path
    train: Path | None
    validation: Path | None = None
    name: str = "algo-1"
    hosts: Sequence[str] = ("algo-1",)
    extra_env: dict[str, str] = field(default_factory=dict)

    @property
    def model_path(self) -> Path:
        return self.root / "model" / "xgboost-model"

    @property
    def output_dir(self) -> Path:
        return self.root / "output"

    @property
    def checkpoint_dir(self) -> Path:
        # smenv's rule: the dir beside the model dir when it exists, else output/checkpoints.
        return self.output_dir / "checkpoints"

    def sm_env(self) -> dict[str, str]:
        env = {
            "SM_HOSTS": json.dumps(list(self.hosts)),
            "SM_CURRENT_HOST": self.name,
            "SM_MODEL_DIR": str(self.root / "model"),
            "SM_OUTPUT_DIR": str(self.output_dir),
            "SM_OUTPUT_DATA_DIR": str(self.output_dir / "data"),
            "MASTER_ADDR": "127.0.0.1",
        }
        if self.train is not None:
            env["SM_CHANNEL_TRAIN"] = str(self.train)
        if self.validation is not None:
            env["SM_CHANNEL_VALIDATION"] = str(self.validation)
        return {**env, **self.extra_env}

    def process_env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not _LAUNCHER_VARS.match(k)}
        return {**env, **self.sm_env(), "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}

    def start(self, args: Sequence[str]) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "train_xgboost.py", *args],
            cwd=ENTRYPOINTS,
            env=self.process_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def run(self, *args: str, timeout: float = 45) -> Result:
        return run_hosts([self], list(args), timeout=timeout)[0]

    def model(self) -> bytes:
        return self.model_path.read_bytes()

    def metrics(self) -> dict[str, Any]:
        return json.loads((self.output_dir / "data" / "metrics.json").read_text())

    def failure(self) -> str:
        return (self.output_dir / "failure").read_text()


def cluster(
    root: Path, channels: Sequence[Path | None], validation: Path | None = None
) -> list[Host]:
    """One Host per train channel (None: the host got no channel folder at all)."""
    names = [f"algo-{i + 1}" for i in range(len(channels))]
    return [
        Host(root / name, train, validation, name=name, hosts=names)
        for name, train in zip(names, channels, strict=True)
    ]


def run_hosts(hosts: Sequence[Host], args: list[str], *, timeout: float = 45) -> list[Result]:
    """Run every host's process, all at once as SageMaker starts them (a worker waits for the
    tracker on loopback itself); a hung tracker fails the test after ``timeout`` seconds."""
    procs = [host.start(args) for host in hosts]
    try:
        deadline = time.monotonic() + timeout
        return [_finish(proc, deadline) for proc in procs]
    except (subprocess.TimeoutExpired, AssertionError) as exc:
        for proc in procs:
            proc.kill()
        outputs = [proc.communicate() for proc in procs]
        logs = "\n".join(f"--- host {i}\n{o}\n{e[-3000:]}" for i, (o, e) in enumerate(outputs))
        pytest.fail(f"{exc}\n{logs}")


def _finish(proc: subprocess.Popen[str], deadline: float) -> Result:
    try:
        out, err = proc.communicate(timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        raise AssertionError("hosts still running at the timeout (hung tracker?)") from None
    return Result(proc.returncode, out, err)


def assert_ok(results: Sequence[Result]) -> None:
    for i, result in enumerate(results):
        assert result.returncode == 0, f"host {i}: {result.describe()}"

"""The fast path stays fast: in a fresh interpreter, --help / validate / init / schema import none
of the heavy SDKs (other tests' imports cannot hide a regression here)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import EXAMPLES

HEAVY = {"sagemaker", "boto3", "botocore", "torch", "xgboost", "moto", "numpy", "pandas"}


def imported_modules(*args: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "sagelaunch", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode in (0, 2), proc.stderr[-2000:]
    lines = [line for line in proc.stderr.splitlines() if line.startswith("import time:")]
    assert lines, "importtime produced no data"
    return {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in lines}


@pytest.mark.parametrize(
    "args",
    [("--help",), ("validate", str(EXAMPLES)), ("init",), ("schema",), ("validate", "--help")],
)
def test_fast_path_imports_no_heavy_sdk(args):
    modules = imported_modules(*args)
    assert "sagelaunch" in modules
    assert not (modules & HEAVY), f"{' '.join(args)} imported {sorted(modules & HEAVY)}"

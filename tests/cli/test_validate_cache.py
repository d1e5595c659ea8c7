"""`validate`'s cache: a repeat run answers what a fresh run would, without loading anything, and
any change to what the answer depends on (a config, a base it extends, an entry point, --set)
is seen."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sagelaunch import caches
from sagelaunch.services import validate_cache
from tests.conftest import EXAMPLES

pytestmark = pytest.mark.usefixtures("own_caches")  # under the working folder, as checked

JOB = """\
name: cached-job
extends: base.yaml
framework: pytorch
entry_point: train.py
source_dir: ../code
framework_version: "2.2.0"
compute: {instance_type: ml.g5.xlarge, instance_count: 2}
distribution: {strategy: torchrun}
"""
BASE = """\
role: arn:aws:iam::111122223333:role/SageMakerRole
region: us-east-1
output_path: s3://sagelaunch-examples/output/
"""


def run_validate(cwd: Path, *args: str, importtime: bool = False) -> subprocess.CompletedProcess:
    flags = ["-X", "importtime"] if importtime else []
    return subprocess.run(
        [sys.executable, *flags, "-m", "sagelaunch", "validate", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def imported(proc: subprocess.CompletedProcess) -> set[str]:
    lines = [line for line in proc.stderr.splitlines() if line.startswith("import time:")]
    return {line.rsplit("|", 1)[-1].strip() for line in lines}


def test_a_repeat_answers_the_same_without_loading_anything(tmp_path):
    first = run_validate(tmp_path, str(EXAMPLES), importtime=True)
    again = run_validate(tmp_path, str(EXAMPLES), importtime=True)
    assert first.returncode == again.returncode == 0
    assert again.stdout == first.stdout and "valid, 0 invalid" in again.stdout
    warnings = [line for line in first.stderr.splitlines() if line.startswith("warning:")]
    assert warnings and warnings == [
        line for line in again.stderr.splitlines() if line.startswith("warning:")
    ]
    assert {"pydantic", "ruamel.yaml", "rich.console"} <= imported(first)
    heavy = {m for m in imported(again) if m.split(".")[0] in ("pydantic", "rich", "ruamel")}
    assert heavy <= {"ruamel"}, sorted(heavy)  # the namespace package, found to stat the install
    assert list((tmp_path / caches.folder(validate_cache.VALIDATE)).glob("*.json"))


@pytest.fixture
def job(tmp_path, monkeypatch) -> Path:
    (tmp_path / "configs").mkdir()
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "train.py").write_text("print('train')\n")
    (tmp_path / "configs" / "base.yaml").write_text(BASE)
    (tmp_path / "configs" / "job.yaml").write_text(JOB)
    monkeypatch.chdir(tmp_path)
    return Path("configs") / "job.yaml"


def test_every_input_of_the_answer_invalidates_it(cli, job):
    def answer(*args: str) -> tuple[int, str]:
        result = cli("validate", job, *args, "-o", "json")
        return result.exit_code, result.stdout

    def fresh(*args: str) -> tuple[int, str]:
        for entry in caches.folder(validate_cache.VALIDATE).glob("*.json"):
            entry.unlink()
        return answer(*args)

    ok = answer()
    assert ok[0] == 0 and answer() == ok  # the second from the cache
    base = job.parent / "base.yaml"
    base.write_text(BASE.replace("arn:aws:iam::111122223333:role/SageMakerRole", "not-an-arn"))
    changed = answer()
    assert changed[0] == 2 and "role" in changed[1] and changed == fresh()
    base.write_text(BASE)
    assert answer() == ok
    entry_point = Path("code") / "train.py"
    entry_point.unlink()
    missing = answer()
    assert missing[0] == 2 and "train.py" in missing[1] and missing == fresh()
    entry_point.write_text("print('train')\n")
    assert answer() == ok
    overridden = answer("--set", "compute.instance_count=0")
    assert overridden[0] == 2 and overridden == fresh("--set", "compute.instance_count=0")
    job.write_text(JOB.replace('"2.2.0"', '"0.1"'))
    unknown = answer()
    assert unknown[0] == 2 and "framework_version" in unknown[1] and unknown == fresh()

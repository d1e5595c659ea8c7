"""`sagelaunch local` with a requirements.txt already installed vs the same job without one.

Two copies of one short script, one with a requirements.txt (a local wheel, so no index is
needed) and one without. The first run with requirements installs them into the overlay
(`.sagelaunch/envs/<hash>`, reported apart); later runs find the overlay by content hash and
install nothing, so their start must stay within 10% of the run without requirements.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import yaml

from tests.bench.timing import alternating_medians, wall
from tests.local.software_data import write_wheel

TARGET_RATIO = 1.10
SCRIPT = "print('started')\n"
REQUIREMENTS = "--no-index\n--find-links ./wheels\ntinypkg==0.1\n"


def _job(work: Path, name: str, requirements: bool) -> Path:
    code = work / name
    code.mkdir()
    (code / "train.py").write_text(SCRIPT + ("import tinypkg\n" if requirements else ""))
    if requirements:
        write_wheel(code / "wheels")
        (code / "requirements.txt").write_text(REQUIREMENTS)
    config = {
        "name": name,
        "framework": "pytorch",
        "framework_version": "2.8.0",
        "entry_point": "train.py",
        "source_dir": name,
        "compute": {"instance_type": "ml.c5.xlarge", "instance_count": 1},
        "distribution": {"strategy": "none"},
    }
    path = work / f"{name}.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def _command(config: Path) -> list[str]:
    return [sys.executable, "-m", "sagelaunch", "local", str(config)]


def run() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SM_")}
    with tempfile.TemporaryDirectory(prefix="bench-requirements-") as tmp:
        work = Path(tmp)
        with_file, without = _job(work, "with-req", True), _job(work, "without-req", False)
        installing = wall(_command(with_file), cwd=work, env=env)  # builds the overlay
        medians = alternating_medians(
            {"cached": _command(with_file), "none": _command(without)}, repeats=5, cwd=work, env=env
        )
    return {
        "first_run_installing_s": round(installing, 2),
        "cached_requirements_s": round(medians["cached"], 2),
        "no_requirements_s": round(medians["none"], 2),
        "ratio": round(medians["cached"] / medians["none"], 3),
        "target_ratio": TARGET_RATIO,
    }


if __name__ == "__main__":
    print(run())

"""What a pipe gets (a CI log, `| tee`, a file): tables whole, warnings on stderr only.

Each command runs in a process of its own (tests/cli/runner.py) whose stdout and stderr are
files, as a CI log's are: never a terminal (no FORCE_COLOR / TTY_COMPATIBLE), with COLUMNS=80 as a
shell may export it.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import yaml

from tests.cli.runner import sagelaunch
from tests.conftest import BASE, EXAMPLES, REPO

NO_AWS = {
    "AWS_CONFIG_FILE": "/nonexistent/aws-config",
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/aws-credentials",
    "AWS_EC2_METADATA_DISABLED": "true",
}


def run(*args: str | Path, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("AWS_") and key not in {"FORCE_COLOR", "TTY_COMPATIBLE"}
    }
    env.update(COLUMNS="80", NO_COLOR="1", **NO_AWS)
    return sagelaunch(cwd, *args, env=env)


def test_a_table_on_a_pipe_keeps_every_cell_whole(tmp_path: Path) -> None:
    """Two configs whose paths differ only past their 80th character: at 80 columns Rich would
    print two rows of one `…/deepspeed-zero3-…` and cut the `result` heading."""
    names = [f"deepspeed-zero3-offload-{'x' * 40}-{kind}.yaml" for kind in ("mpi", "torchrun")]
    for name in names:
        config = {**BASE, "entry_point": "train_pytorch.py"}
        del config["source_dir"]  # the shipped entry points
        (tmp_path / name).write_text(yaml.safe_dump(config))
    result = run("validate", tmp_path)
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if "deepspeed-zero3" in line]
    assert len(rows) == 2
    for name, row in zip(names, rows, strict=True):
        cells = row.split()
        assert cells[0] == str(tmp_path / name)  # whole, on its own line
        assert cells[1] == "ok"
        assert row.split(cells[0], 1)[1].split()[1:] == ["pytorch/none", "1×ml.g5.2xlarge"]
    assert result.stdout.split()[:3] == ["config", "result", "job"]
    assert max(len(row) for row in rows) > 80  # wider than COLUMNS: not cut to it
    assert "…" not in result.stdout


def test_plan_prints_its_warnings_on_stderr_only() -> None:
    """A config with a warning (its image's Python is past its end of life): the plan's view on
    stdout, the warning on stderr; JSON keeps it in `warnings`."""
    config = EXAMPLES / "smp-v1-p4d.yaml"
    table = run("plan", config, "--no-check-quota")
    assert table.returncode == 0, table.stderr
    assert "job " in table.stdout and "class " in table.stdout  # the view itself
    assert "warning" not in table.stdout.lower()
    assert "end of life" not in table.stdout
    (warning,) = [line for line in table.stderr.splitlines() if line.startswith("warning:")]
    assert "past its end of life" in warning

    as_json = run("plan", config, "--no-check-quota", "-o", "json")
    assert as_json.returncode == 0, as_json.stderr
    listed = json.loads(as_json.stdout)["warnings"]
    assert any("past its end of life" in str(item) for item in listed)

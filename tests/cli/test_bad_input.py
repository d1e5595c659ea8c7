"""Bad input through the real command, in a fresh process: the exit code and which stream
carries what are the contract (errors on stderr; stdout keeps the table or the JSON)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.config.test_yaml_safety import alias_bomb
from tests.conftest import EXAMPLES


def sagelaunch(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sagelaunch", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def only_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    (line,) = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    return line


def test_validate_puts_errors_on_stderr_and_the_table_on_stdout_twice(make_config, tmp_path):
    bad = make_config({"environment": {"MY-VAR": "1"}})
    for _ in range(2):  # the second answer is replayed from the cache: same streams
        proc = sagelaunch(tmp_path, "validate", bad)
        line = only_error(proc)
        assert line.startswith(f"error: {bad}:") and "environment.MY-VAR" in line
        assert line.endswith("pattern [a-zA-Z_][a-zA-Z0-9_]*")  # printed as written, not markup
        assert "0 valid, 1 invalid" in proc.stdout and "error:" not in proc.stdout


def test_validate_json_keeps_stdout_pure_json(make_config, tmp_path):
    proc = sagelaunch(
        tmp_path, "validate", make_config({"compute": {"instance_count": 0}}), "-o", "json"
    )
    assert proc.returncode == 2
    (report,) = json.loads(proc.stdout)
    assert report["errors"][0]["path"] == "compute.instance_count"


def test_deep_nesting_is_exit_2_not_a_crash(tmp_path):
    path = tmp_path / "deep.yaml"
    path.write_text("name: x\nhyperparameters: " + "[" * 300 + "]" * 300 + "\n")
    line = only_error(sagelaunch(tmp_path, "validate", path))
    assert line == f"error: {path}:2:117: nested more than 100 levels deep"


def test_an_alias_bomb_is_exit_2_with_its_line(tmp_path):
    path = tmp_path / "laughs.yaml"
    path.write_text(alias_bomb(levels=9))
    line = only_error(sagelaunch(tmp_path, "plan", path))
    assert line.startswith(f"error: {path}:6:10: aliases expand this document past 100,000")


def test_a_latin1_byte_is_exit_2_with_its_line_and_column(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"name: caf\xe9\n")
    line = only_error(sagelaunch(tmp_path, "validate", path))
    assert line.startswith(f"error: {path}:1:10: not UTF-8: byte 0xe9 at byte 9")


def test_plan_of_a_folder_says_it_takes_one_file(tmp_path):
    proc = sagelaunch(tmp_path, "plan", EXAMPLES)
    line = only_error(proc)
    assert "plan takes one config file, not a folder" in line
    assert f"sagelaunch plan {EXAMPLES}/" in proc.stderr  # the fix: one of the files in it

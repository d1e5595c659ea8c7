"""Bounded, located errors through the real command (issue 41): a file with thousands of
mistakes gets a few dozen located lines and one count, never megabytes; a path of the wrong
kind, or in a folder that is not there, is one exit-2 line naming it and the fix."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from sagelaunch.errors import MAX_PROBLEMS
from tests.cli import runner
from tests.cli.runner import error_lines, only_error
from tests.conftest import REPO

GOLDEN = REPO / "tests" / "golden"


def sagelaunch(cwd: Path, *args: object) -> subprocess.CompletedProcess:
    """The real command in a process of its own (tests/cli/runner.py)."""
    # A wide terminal: the validate table's cells must not wrap, whatever tmp_path's length.
    return runner.sagelaunch(cwd, *args, env={**os.environ, "COLUMNS": "400"})


def test_thousands_of_unknown_keys_are_a_few_dozen_lines_each_with_one_suggestion(
    make_config, tmp_path
):
    keys = 5_000  # the file had 55,000; the bound is the same, the test stays quick
    path = make_config({"compute": {"instance_typ": "ml.g5.2xlarge", "instance_type": None}})
    generated = "".join(f"generated_option_{i:05d}: {i}\n" for i in range(keys))
    path.write_text(path.read_text() + generated)
    for command in ("plan", "validate"):
        proc = sagelaunch(tmp_path, command, path)
        lines = error_lines(proc)
        assert len(proc.stderr.splitlines()) <= 50
        assert len(lines) == MAX_PROBLEMS + 1
        assert lines[0].endswith("compute.instance_type: missing required key 'instance_type'")
        assert lines[1].endswith(
            "compute.instance_typ: unknown key 'instance_typ'; did you mean 'instance_type'?"
        )
        listing = [line for line in lines if "valid keys here: checkpoint, " in line]
        assert len(listing) == 1  # the valid keys are listed once, not on every line
        assert all(len(line) < 400 for line in lines if line not in listing)
        # the two problems of compute come first, then the generated keys in file order
        first_left_out = len(path.read_text().splitlines()) - keys + MAX_PROBLEMS - 1
        more = keys + 2 - MAX_PROBLEMS
        assert lines[-1] == (
            f"error: {path}:{first_left_out}:1: and {more:,} more problems from here on, "
            "not listed: fix these first"
        )
    assert f"{keys + 2:,} err" in proc.stdout  # validate's table counts them all


def test_set_reads_its_value_as_the_file_reads_the_same_value(make_config, tmp_path):
    base = make_config()
    written = base.read_text()
    assert "framework_version: 2.2.0\n" in written
    in_file = tmp_path / "in-file.yaml"
    in_file.write_text(written.replace("framework_version: 2.2.0\n", "framework_version: 2.3\n"))

    def plan(config: Path, *args: str) -> dict:
        proc = sagelaunch(tmp_path, "plan", config, "--job-name", "same", "-o", "json", *args)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    expected = plan(in_file)
    assert expected["estimator"]["kwargs"]["framework_version"] == "2.3"
    for value in ("2.3", '"2.3"'):  # plain, and quoted as a string
        assert plan(base, "--set", f"framework_version={value}") == expected


def test_a_folder_of_yml_configs_is_validated_and_named_like_yaml_ones(make_config, tmp_path):
    configs = tmp_path / "configs"
    configs.mkdir()
    for name in ("a.yml", "b.yaml", "c.YML"):
        (configs / name).write_text(make_config().read_text().replace("code", "../code"))
    (configs / "notes.txt").write_text("not a config\n")
    proc = sagelaunch(tmp_path, "validate", configs)
    assert proc.returncode == 0, proc.stderr
    assert "3 valid, 0 invalid" in proc.stdout
    (configs / "b.yaml").unlink()
    (configs / "c.YML").unlink()
    proc = sagelaunch(tmp_path, "plan", configs)
    assert only_error(proc) == f"error: plan takes one config file, not a folder: {configs}"
    assert f"sagelaunch plan {configs / 'a.yml'}" in proc.stderr  # the .yml it found, named


def test_a_damaged_plan_file_is_one_line_at_its_first_problem_and_the_fix(tmp_path):
    saved = tmp_path / "plan.json"
    plan = json.loads((GOLDEN / "cpu-local.json").read_text())  # a plan as `plan --out` saves it
    plan["cost"]["hourly_usd"] = "cheap"
    plan["topology"]["world_size"] = "many"
    del plan["region"]
    text = json.dumps(plan, indent=2)
    saved.write_text(text)
    line = next(n for n, row in enumerate(text.splitlines(), 1) if '"cheap"' in row)
    proc = sagelaunch(tmp_path, "submit", saved)
    assert only_error(proc) == (
        f"error: {saved}:1:1: region: missing required key 'region' (and 2 more problems): "
        "not a valid sagelaunch plan"
    )
    hint = (
        "hint: make the plan again (sagelaunch writes it): sagelaunch plan CONFIG --out plan.json"
    )
    assert hint in proc.stderr
    assert "pydantic" not in proc.stderr and len(proc.stderr.splitlines()) == 2
    plan["region"] = "us-east-1"
    saved.write_text(json.dumps(plan, indent=2))
    assert only_error(sagelaunch(tmp_path, "submit", saved)).startswith(
        f"error: {saved}:{line}:5: cost.hourly_usd: must be a valid number"
    )
    saved.write_text(text.replace('"cheap",', '"cheap"'))  # a lost comma: not JSON any more
    assert only_error(sagelaunch(tmp_path, "submit", saved)) == (
        f"error: {saved}:{line + 1}:5: not valid JSON: Expecting ',' delimiter"
    )


def test_local_workdir_naming_a_file_is_one_line_naming_it_and_the_fix(make_config, tmp_path):
    taken = tmp_path / "notes.txt"
    taken.write_text("mine\n")
    proc = sagelaunch(tmp_path, "local", make_config(), "--workdir", taken)
    assert only_error(proc) == f"error: --workdir {taken} is a file, not a folder"
    assert "hint: --workdir takes a folder (created when missing)" in proc.stderr
    assert taken.read_text() == "mine\n" and sorted(tmp_path.iterdir()) == sorted(
        [taken, tmp_path / "code", tmp_path / "job.yaml"]
    )


def folder_options(config: Path) -> list[list[str]]:
    """Every option that takes a folder, with the command around it."""
    sweep = [str(config), "--local"]
    return [
        ["local", str(config), "--workdir"],
        ["sweep", *sweep, "--workdir"],
        ["import", str(GOLDEN / "cpu-local.json"), "--source-dir"],
    ]


def file_options(config: Path) -> list[list[str]]:
    """Every option that names a file to write, with the command around it."""
    return [
        ["plan", str(config), "--out"],
        ["export", str(config), "--out"],
        ["import", str(GOLDEN / "cpu-local.json"), "--out"],
        ["init", "single", "--out"],
        ["recommend", "--params", "7B", "--emit-config"],
        ["recommend", "--params", "7B", "--zero-stage", "3", "--emit-deepspeed-config"],
        ["sweep", str(config), "--local", "--results"],
        ["metrics", str(config), "--png"],
    ]


def test_every_folder_option_refuses_a_file_where_a_folder_is_expected(cli, make_config, tmp_path):
    taken = tmp_path / "taken"
    taken.write_text("")
    for command in folder_options(make_config()):
        for value, named in ((taken, taken), (taken / "below", taken)):
            result = cli(*command, value)
            assert result.exit_code == 2, (command, result.output)
            where = f"{command[-1]} {value}" + (f": {named}" if named != value else "")
            assert f"error: {where} is a file, not a folder" in result.output, result.output
    assert [p.name for p in tmp_path.iterdir() if p.is_dir()] == ["code"]


def test_an_output_in_a_missing_folder_is_refused_and_nothing_is_written(
    cli, make_config, tmp_path
):
    config = make_config()
    before = sorted(tmp_path.rglob("*"))
    taken = tmp_path / "taken"
    for command in file_options(config):
        missing = tmp_path / "no" / "such" / "folder"
        result = cli(*command, missing / "out.file")
        assert result.exit_code == 2, (command, result.output)
        assert (
            f"error: {command[-1]} {missing / 'out.file'}: the folder {missing} does not exist; "
            "nothing written"
        ) in result.output
        assert f"hint: create it first (mkdir -p {missing})" in result.output
        assert cli(*command, tmp_path).exit_code == 2  # a folder where the file should be
        taken.write_text("")
        result = cli(*command, taken / "out.file")
        assert result.exit_code == 2 and f"{taken} is a file, not a folder" in result.output
        taken.unlink()
    assert sorted(tmp_path.rglob("*")) == before

"""Bad input through the real command, in a fresh process (tests/cli/runner.py: a forked one,
and `python -m sagelaunch` itself for the first test): the exit code and which stream carries
what are the contract (errors on stderr; stdout keeps the table or the JSON)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.runner import only_error, sagelaunch
from tests.config.test_yaml_safety import alias_bomb
from tests.conftest import EXAMPLES


def test_validate_puts_errors_on_stderr_and_the_table_on_stdout_twice(make_config, tmp_path):
    bad = make_config({"environment": {"MY-VAR": "1"}})
    for _ in range(2):  # the second answer is replayed from the cache: same streams
        proc = sagelaunch(tmp_path, "validate", bad, fresh=True)  # as a shell starts it
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


def with_lines(make_config, text: str) -> tuple[Path, int]:
    """A valid config with ``text`` appended, and the line ``text`` starts on."""
    path = make_config()
    before = path.read_text()
    path.write_text(before + text)
    return path, len(before.splitlines()) + 1


def test_a_python_object_tag_is_exit_2_at_the_tag_for_validate_and_plan(make_config, tmp_path):
    path, line = with_lines(
        make_config, 'hyperparameters: !!python/object/apply:os.system ["touch owned"]\n'
    )
    for command in ("validate", "plan"):
        error = only_error(sagelaunch(tmp_path, command, path))
        assert error.startswith(f"error: {path}:{line}:18: YAML tag !!python/object/apply:")
        assert "never constructs Python objects; remove the tag" in error
    assert not (tmp_path / "owned").exists()


def test_a_local_tag_and_an_omap_are_exit_2_with_the_yaml_to_write(make_config, tmp_path):
    path, line = with_lines(make_config, "hyperparameters: {a: !x [1, 2]}\n")
    error = only_error(sagelaunch(tmp_path, "plan", path))
    assert error.startswith(
        f"error: {path}:{line}:22: unknown YAML tag !x"
    ) and "remove the tag" in (error)
    path, line = with_lines(make_config, "tags: !!omap [{a: b}]\n")
    error = only_error(sagelaunch(tmp_path, "validate", path))
    assert error.startswith(f"error: {path}:{line}:7: YAML tag !!omap is not supported")
    assert "write a plain mapping" in error


def test_an_unquoted_date_hyperparameter_validates_and_plans_as_its_text(make_config, tmp_path):
    path, _ = with_lines(make_config, "hyperparameters: {start: 2024-01-01, label: !!str x}\n")
    assert sagelaunch(tmp_path, "validate", path).returncode == 0
    proc = sagelaunch(tmp_path, "plan", path, "-o", "json")
    assert proc.returncode == 0, proc.stderr
    sent = json.loads(proc.stdout)["request"]["HyperParameters"]
    assert (sent["start"], sent["label"]) == ('"2024-01-01"', '"x"')


def test_a_runaway_extends_chain_is_exit_2_at_the_extends_line(tmp_path):
    for level in range(200):
        (tmp_path / f"c{level}.yaml").write_text(f"extends: c{level + 1}.yaml\n")
    (tmp_path / "c200.yaml").write_text("name: end\n")
    error = only_error(sagelaunch(tmp_path, "validate", tmp_path / "c0.yaml"))
    assert error.startswith(
        f"error: {tmp_path}/c32.yaml:1:1: extends: extends chain longer than 32"
    )
    assert "merge some of the bases into one" in error


def test_a_region_typo_on_the_command_line_is_blamed_on_the_flag(make_config, tmp_path):
    path = make_config({"region": None})
    error = only_error(sagelaunch(tmp_path, "plan", path, "--region", "us-eest-1"))
    assert error.startswith("error: --region us-eest-1:1:1: region: the SDK has no image registry")
    assert error.endswith("did you mean 'us-east-1' or 'us-west-1'?")


def test_an_unset_reference_in_a_hyperparameter_is_exit_2_at_its_line(make_config, tmp_path):
    path, line = with_lines(
        make_config, "hyperparameters:\n  token: ${env:SAGELAUNCH_TEST_UNSET}\n"
    )
    error = only_error(sagelaunch(tmp_path, "plan", path))
    assert error == (
        f"error: {path}:{line + 1}:3: hyperparameters.token: ${{env:SAGELAUNCH_TEST_UNSET}}: "
        "$SAGELAUNCH_TEST_UNSET is not set; export it before plan/submit/local"
    )

"""validate / init / schema through the real Typer app, exit codes included."""

from __future__ import annotations

import json
import re

import pytest

from sagelaunch.commands.init import templates
from sagelaunch.commands.schema import schema_text
from tests.conftest import EXAMPLES


def test_validate_examples_all_pass(cli):
    result = cli("validate", EXAMPLES)
    assert result.exit_code == 0, result.output
    examples = len(list(EXAMPLES.glob("*.yaml")))
    assert examples >= 12 and f"{examples} valid, 0 invalid" in result.output


def test_validate_json_reports_errors_with_locations(cli, make_config):
    bad = make_config({"compute": {"max_run": "2h", "spot": {"max_wait": "1h"}}})
    good = make_config({}, name="good.yaml")
    result = cli("validate", good, bad, "--output", "json")
    assert result.exit_code == 2
    reports = {r["file"]: r for r in json.loads(result.stdout)}
    assert reports[str(good)] == {
        "file": str(good),
        "ok": True,
        "errors": [],
        "warnings": [],
        "sweep": None,  # no sweep block: no size
    }
    (error,) = reports[str(bad)]["errors"]
    assert error["path"] == "compute.spot.max_wait" and error["line"] > 1
    assert "must be >= max_run" in error["message"]


def test_validate_reports_warnings_but_passes(cli, make_config):
    result = cli("validate", make_config({"compute": {"spot": {"max_wait": "2d"}}}))
    assert result.exit_code == 0
    assert "warning:" in result.output and "spot without checkpoint" in result.output


def test_validate_set_override(cli, make_config):
    path = make_config()
    result = cli("validate", path, "--set", "compute.instance_count=0")
    assert result.exit_code == 2
    assert "--set compute.instance_count=0:1:1: compute.instance_count" in result.output


def test_validate_of_an_empty_folder_is_a_usage_error(cli, tmp_path):
    result = cli("validate", tmp_path)
    assert result.exit_code == 2 and "no *.yaml or *.yml configs" in result.output


def test_init_lists_templates(cli):
    result = cli("init")
    assert result.exit_code == 0
    for name in (
        "smddp",
        "smp-v1",
        "smp-v2",
        "torchrun",
        "mpi",
        "xgboost-script",
        "xgboost-builtin",
        "local-cpu",
        "trainium",
        "single",
    ):
        assert name in result.output


@pytest.mark.parametrize("template", sorted(templates()))
def test_every_template_writes_a_config_that_validates(cli, tmp_path, template):
    out = tmp_path / f"{template}.yaml"
    assert cli("init", template, "--out", out).exit_code == 0
    result = cli("validate", out)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("template", sorted(templates()))
def test_every_placeholder_location_of_a_template_is_pointed_at(cli, tmp_path, template):
    """A newcomer learns at `validate` which lines still name the bucket they must replace."""
    out = tmp_path / f"{template}.yaml"
    assert cli("init", template, "--out", out).exit_code == 0
    lines = out.read_text().splitlines()
    expected = [n for n, line in enumerate(lines, 1) if "s3://" in line.split("#")[0]]
    warned = re.findall(
        rf"{re.escape(out.name)}:(\d+):\d+: .* is the starter config's placeholder",
        cli("validate", out).output,
    )
    assert expected and [int(n) for n in warned] == expected


def test_init_refuses_to_overwrite_and_unknown_template(cli, tmp_path):
    out = tmp_path / "x.yaml"
    out.write_text("keep me")
    result = cli("init", "smddp", "--out", out)
    assert result.exit_code == 2 and "--force" in result.output
    assert out.read_text() == "keep me"
    assert cli("init", "nope").exit_code == 2


def test_checked_in_schema_is_current():
    committed = (EXAMPLES / "schema.json").read_text()
    assert committed == schema_text(), "launch_configs/schema.json is stale: run `make schema`"


def test_schema_documents_every_field(cli):
    schema = json.loads(cli("schema").stdout)
    assert schema["properties"]["compute"]["description"]
    for name, definition in schema["$defs"].items():
        for field, spec in definition.get("properties", {}).items():
            assert spec.get("description"), f"{name}.{field} has no description"


def test_version(cli):
    result = cli("--version")
    assert result.exit_code == 0 and result.output.startswith("sagelaunch ")

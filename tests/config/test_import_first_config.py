"""A first config plans on the first try, and an imported one keeps its secrets out of the file:
where region, role and output path come from; entry points beside the config; saved plans'
bundles; `${env:NAME}` references."""

from __future__ import annotations

import json

import pytest

from sagelaunch.commands.init import templates
from tests.conftest import EXAMPLES

ROLE = "arn:aws:iam::111122223333:role/SageMakerRole"


@pytest.fixture
def bare_environment(monkeypatch, tmp_path):
    """No region, role or AWS config file from the machine running the tests."""
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "SAGELAUNCH_ROLE", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_init_then_plan_names_region_and_role_in_one_run(cli, bare_environment):
    assert cli("init", "local-cpu").exit_code == 0
    validated = cli("validate", "local-cpu.yaml")
    assert validated.exit_code == 0
    assert "region: no region" in validated.stderr and "role: no role" in validated.stderr
    planned = cli("plan", "local-cpu.yaml")
    assert planned.exit_code == 2
    assert "region: no region" in planned.output and "role: no role" in planned.output


def test_init_fills_region_from_the_aws_config_and_role_from_the_variable(
    cli, bare_environment, monkeypatch
):
    config = bare_environment / "aws-config"
    config.write_text("[default]\nregion = eu-west-1\n[profile team]\nregion = us-west-2\n")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_PROFILE", "team")
    monkeypatch.setenv("SAGELAUNCH_ROLE", ROLE)
    assert cli("init", "local-cpu").exit_code == 0
    text = (bare_environment / "local-cpu.yaml").read_text()
    assert "\nregion: us-west-2 " in text and f"\nrole: {ROLE} " in text
    # The written config alone plans (the SDK's botocore session is shared within a process,
    # and may hold another test's AWS config file).
    for name in ("SAGELAUNCH_ROLE", "AWS_PROFILE", "AWS_CONFIG_FILE"):
        monkeypatch.delenv(name)
    planned = cli("plan", "local-cpu.yaml", "--job-name", "first-1", "-o", "json")
    assert planned.exit_code == 0, planned.output
    assert json.loads(planned.stdout)["request"]["RoleArn"] == ROLE


def test_an_entry_point_beside_the_config_is_the_code(cli, bare_environment):
    (bare_environment / "mytrain.py").write_text("print('mine')\n")
    config = bare_environment / "job.yaml"
    config.write_text(
        "name: mine\nframework: pytorch\nentry_point: mytrain.py\nframework_version: '2.2.0'\n"
        f"role: {ROLE}\nregion: us-east-1\noutput_path: s3://bkt/out/\n"
        "compute: {instance_type: ml.g5.2xlarge}\n"
    )
    planned = cli("plan", config, "--job-name", "mine-1", "-o", "json")
    assert planned.exit_code == 0, planned.output
    assert "mytrain.py" in json.loads(planned.stdout)["upload"]["files"]


def test_import_of_a_saved_plan_unpacks_its_bundle_and_plans_at_once(cli, bare_environment):
    saved = bare_environment / "plan.json"
    config = EXAMPLES / "smddp-p4d.yaml"
    assert cli("plan", config, "--out", saved, "--job-name", "j-1", "-o", "json").exit_code == 0
    for _ in range(2):  # twice in a row: the second run keeps the unpacked folder
        assert cli("import", saved, "--out", "back.yaml").exit_code == 0
    assert (bare_environment / "j-1-code" / "train_pytorch.py").is_file()
    replanned = json.loads(cli("plan", "back.yaml", "--job-name", "j-1", "-o", "json").stdout)
    assert replanned["request"] == json.loads(saved.read_text())["request"]


def test_secrets_are_imported_as_references_and_resolved_when_planning(
    cli, bare_environment, monkeypatch
):
    saved = bare_environment / "plan.json"
    config = EXAMPLES / "smddp-p4d.yaml"
    assert cli("plan", config, "--out", saved, "--job-name", "j-1", "-o", "json").exit_code == 0
    request = json.loads(saved.read_text())["request"]
    request["Environment"] = {**request["Environment"], "HF_TOKEN": "hf_secret_value"}
    (bare_environment / "req.json").write_text(json.dumps(request))
    cli("plan", config, "--out", "p2.json", "--job-name", "j-1", "-o", "json")
    assert cli("import", "req.json", "--out", "sec.yaml", "--source-dir", "code").exit_code == 0
    assert cli("import", "plan.json", "--source-dir", "code").exit_code == 0  # unpacks the code
    text = (bare_environment / "sec.yaml").read_text()
    assert "hf_secret_value" not in text and "HF_TOKEN: ${env:HF_TOKEN}" in text
    unset = cli("plan", "sec.yaml", "--job-name", "j-1")
    assert unset.exit_code == 2 and "$HF_TOKEN is not set" in unset.output
    monkeypatch.setenv("HF_TOKEN", "hf_secret_value")
    assert cli("plan", "sec.yaml", "--job-name", "j-1", "--out", "back.json").exit_code == 0
    assert json.loads((bare_environment / "back.json").read_text())["request"] == request


@pytest.mark.parametrize("template", sorted(templates()))
def test_every_template_plans_with_region_and_role_from_the_environment(
    cli, bare_environment, monkeypatch, template
):
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("SAGELAUNCH_ROLE", ROLE)
    assert cli("init", template, "--out", "first.yaml").exit_code == 0
    planned = cli("plan", "first.yaml", "--job-name", "first-1", "-o", "json")
    assert planned.exit_code == 0, planned.output

"""A region the SDK has no images in is blamed on where it came from (the config's region line,
--region, $AWS_DEFAULT_REGION), with the region meant; never on `framework:` at line 2."""

from __future__ import annotations

import pytest

from sagelaunch.checks.validation import validate_file
from sagelaunch.errors import ConfigError
from sagelaunch.services.planning import make_plan


@pytest.fixture(autouse=True)
def no_shell_region(monkeypatch):
    for variable in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(variable, raising=False)


def plan_problem(config, tmp_path, region=None):
    with pytest.raises(ConfigError) as caught:
        make_plan(config, [], region, "region-job", cache_dir=tmp_path / "plans")
    (problem,) = caught.value.problems
    return problem


def test_a_region_typo_in_the_config_is_at_its_own_line_with_the_region_meant(make_config):
    config = make_config({"region": "us-eest-1"})
    (problem,) = validate_file(config).errors
    region_line = config.read_text().splitlines().index("region: us-eest-1") + 1
    assert (problem.line, problem.col, problem.path) == (region_line, 1, "region")
    assert problem.message.endswith("did you mean 'us-east-1' or 'us-west-1'?")


def test_a_region_typo_given_as_a_flag_is_blamed_on_the_flag(make_config, tmp_path):
    problem = plan_problem(make_config({"region": None}), tmp_path, region="eu-west-1x")
    assert (problem.file, problem.path) == ("--region eu-west-1x", "region")
    assert "no image registry for region 'eu-west-1x'" in problem.message
    assert problem.message.endswith("did you mean 'eu-west-1'?")
    # The flag wins over the config's (valid) region, and is checked the same.
    problem = plan_problem(make_config(), tmp_path, region="US-EAST-1")
    assert problem.file == "--region US-EAST-1"
    assert problem.message.endswith("did you mean 'us-east-1'?")


def test_a_region_typo_from_the_shell_is_blamed_on_its_variable(make_config, tmp_path, monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "moon-1")
    problem = plan_problem(make_config({"region": None}), tmp_path)
    assert (problem.file, problem.path) == ("$AWS_DEFAULT_REGION", "region")
    assert problem.message.endswith(": use an AWS region name (us-east-1)")

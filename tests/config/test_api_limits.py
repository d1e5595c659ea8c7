"""CreateTrainingJob's limits on hyperparameters and environment, checked where the config
writes them: by `validate` on the config, by `plan` on the request the SDK builds (its own
sagemaker_* hyperparameters counted). The oracles: botocore's loaded service model and the SDK."""

from __future__ import annotations

import json

import pytest

from sagelaunch.config.api_limits import map_limits
from sagelaunch.config.loader import load
from sagelaunch.config.rules import RULES


def model_shape(member: str):
    import botocore.session

    model = botocore.session.get_session().get_service_model("sagemaker")
    return model.operation_model("CreateTrainingJob").input_shape.members[member]


@pytest.mark.parametrize("member", ["HyperParameters", "Environment"])
def test_the_limits_are_botocores(member):
    shape, limits = model_shape(member), map_limits(member)
    assert limits.entries == shape.metadata["max"]
    assert limits.key_length == shape.key.metadata["max"]
    assert limits.key_pattern == shape.key.metadata.get("pattern", "")
    assert limits.value_length == shape.value.metadata["max"]
    assert limits.value_pattern == shape.value.metadata.get("pattern", "")


@pytest.fixture
def make(make_config):
    """make_config that remembers the last file written (to find a key's line in it)."""

    def write(overrides: dict):
        write.last = make_config(overrides)
        return write.last

    return write


def problems(make, overrides: dict) -> list[str]:
    return [str(p) for p in RULES["api_map_limits"](load(make(overrides)))]


def test_quiet_within_the_limits(make):
    hps = {f"hp{i}": i for i in range(map_limits("HyperParameters").entries)}
    env = {"MY_VAR": "x" * map_limits("Environment").value_length}
    assert problems(make, {"hyperparameters": hps, "environment": env}) == []


def test_more_hyperparameters_than_the_api_takes_is_an_error_at_the_key(make):
    count = map_limits("HyperParameters").entries + 1
    (problem,) = problems(make, {"hyperparameters": {f"hp{i}": i for i in range(count)}})
    line = _line(make.last, "hyperparameters:")
    assert problem.startswith(f"{make.last}:{line}:1: hyperparameters: {count} HyperParameters")
    assert "at most 100" in problem and "the SDK adds its own sagemaker_* ones" in problem


def test_environment_key_pattern_and_lengths_are_errors_at_each_key(make):
    env = {"MY-VAR": "1", "OK_VAR": "v" * 513, "K" * 513: "1", "GOOD": "1"}
    found = problems(make, {"environment": env})
    assert len(found) == 3
    dash, long_value, long_key = found  # in file order
    assert f":{_line(make.last, 'MY-VAR')}:3: environment.MY-VAR: " in dash
    assert "must match the API's pattern [a-zA-Z_][a-zA-Z0-9_]*" in dash
    assert "environment.OK_VAR: a value of 513 characters" in long_value and "at most 512" in (
        long_value
    )
    assert "a key of 513 characters: Environment keys take at most 512" in long_key


def test_a_hyperparameter_value_counts_as_sent(make):
    limit = map_limits("HyperParameters").value_length
    (problem,) = problems(make, {"hyperparameters": {"ids": list(range(limit // 3))}})
    sent = len(json.dumps(list(range(limit // 3))))
    assert f"hyperparameters.ids: a value of {sent} characters" in problem


def _line(path, text: str) -> int:
    lines = path.read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if line.lstrip().startswith(text))


def test_plan_counts_the_sdks_own_hyperparameters(make, cli, tmp_path, monkeypatch):
    """The config's 100 hyperparameters pass validate; the request the SDK builds has more."""
    monkeypatch.chdir(tmp_path)  # the plan cache is the run's own folder
    limit = map_limits("HyperParameters").entries
    path = make({"hyperparameters": {f"hp{i}": i for i in range(limit)}})
    assert cli("validate", path).exit_code == 0
    result = cli("plan", path, "-o", "json")
    assert result.exit_code == 2
    (error,) = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert f":{_line(path, 'hyperparameters:')}:1: hyperparameters: " in error
    sdk_keys = error.split("the SDK adds (")[1].rstrip(")").split(", ")
    assert f"{limit} from the config, {len(sdk_keys)} the SDK adds" in error
    assert "sagemaker_program" in sdk_keys and all(k.startswith("sagemaker_") for k in sdk_keys)


def test_plan_within_the_limit_passes(make, cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("plan", make({"hyperparameters": {"lr": 0.1}}), "-o", "json")
    assert result.exit_code == 0, result.output
    sent = json.loads(result.stdout)["request"]["HyperParameters"]
    assert len(sent) > 1 and any(key.startswith("sagemaker_") for key in sent)

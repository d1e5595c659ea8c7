"""The API's limits as data (data/api_limits.json): the file is what the installed botocore's
model says, every limit of the two requests is accounted for (checks.request_limits), and the
few numbers and patterns still written in code equal the model's. Then CreateTrainingJob's
limits on hyperparameters and environment, checked where the config writes them: by `validate`
on the config, by `plan` on the request the SDK builds (its own sagemaker_* hyperparameters
counted). The oracles: botocore's loaded service model and the SDK."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sagelaunch.catalog import api_limits
from sagelaunch.catalog.api_limits import limit, limits, map_limits, python_pattern
from sagelaunch.checks import request_limits
from sagelaunch.checks.rules import RULES
from sagelaunch.config.loader import load


def botocore_limits() -> dict[str, dict[str, Any]]:
    """Every string, list, map and number limit of the two requests, walked in botocore's own loaded
    model (its Shape objects): an oracle independent of the generator's reading of the JSON."""
    import botocore.session

    model = botocore.session.get_session().get_service_model("sagemaker")
    found: dict[str, dict[str, Any]] = {}

    def walk(shape, path: str, within: tuple[str, ...]) -> None:
        meta = shape.metadata
        limited = ("string", "list", "map", "integer", "long", "float", "double")
        if shape.type_name in limited and ({"min", "max", "pattern"} & set(meta)):
            entry = {"shape": shape.name, "type": shape.type_name, "min": meta.get("min", 0)}
            entry.update({k: meta[k] for k in ("max", "pattern") if k in meta})
            found[path] = entry
        if shape.name in within:
            return
        inside = (*within, shape.name)
        if shape.type_name == "structure":
            for name, member in shape.members.items():
                walk(member, f"{path}.{name}", inside)
        elif shape.type_name == "list":
            walk(shape.member, f"{path}[]", inside)
        elif shape.type_name == "map":
            walk(shape.key, path + "{key}", inside)
            walk(shape.value, path + "{value}", inside)

    for operation in api_limits.OPERATIONS:
        walk(model.operation_model(operation).input_shape, operation, ())
    return found


def test_the_data_file_is_the_installed_botocores_model():
    """Regenerate with `python -m sagelaunch.catalog.api_limits` when botocore changes them."""
    written = json.loads(api_limits.LIMITS_FILE.read_text(encoding="utf-8"))
    assert written["limits"] == api_limits.generate(api_limits.service_shapes())
    assert written["limits"] == botocore_limits()
    assert written["source"].startswith("botocore ") and "service-2.json" in written["source"]


def test_the_queue_limits_are_the_installed_botocores_batch_model():
    """compute.queue's bounds: SubmitServiceJob's metadata and its documented ranges, read from
    botocore's loaded Batch model (its Shape objects and documentation) independently."""
    import re

    import botocore.session

    written = json.loads(api_limits.LIMITS_FILE.read_text(encoding="utf-8"))["queue"]
    assert written["limits"] == api_limits.generate_queue(api_limits.botocore_shapes("batch"))
    request = botocore.session.get_session().get_service_model("batch")
    members = request.operation_model("SubmitServiceJob").input_shape.members
    priority = re.search(r"between (\d+) and (\d+)", members["schedulingPriority"].documentation)
    attempts = members["retryStrategy"].members["attempts"].documentation
    assert priority and api_limits.queue_range("schedulingPriority") == tuple(
        int(n) for n in priority.groups()
    )
    assert str(api_limits.queue_range("retryStrategy.attempts")[1]) in attempts
    assert written["limits"]["SubmitServiceJob.tags"]["max"] == members["tags"].metadata["max"]


def test_a_bounded_float_stops_the_generator():
    """The two requests bound no float today; one botocore adds is not dropped unseen."""
    shapes = {
        "CreateTrainingJobRequest": {"type": "structure", "members": {"F": {"shape": "Frac"}}},
        "Frac": {"type": "float", "min": 0, "max": 1},
        "CreateHyperParameterTuningJobRequest": {"type": "structure", "members": {}},
    }
    with pytest.raises(ValueError, match=r"CreateTrainingJob\.F: botocore now bounds a float"):
        api_limits.generate(shapes)


def test_validate_reads_the_data_file_not_botocore():
    """The model is 4 MB of JSON (a fifth of a second to parse): validate reads the data."""
    api_limits.service_shapes.cache_clear()
    api_limits.limits.cache_clear()
    assert limit("CreateTrainingJob.Tags").max == 50
    assert api_limits.service_shapes.cache_info().currsize == 0


def test_every_limit_of_the_two_requests_is_accounted_for():
    """Checked by request_limits.CHECKS, by a rule of its own, as the twin of a
    CreateTrainingJob field, or out of a config's reach, with the reason."""
    kinds = {path: request_limits.classify(path) for path in limits()}
    assert [path for path, (kind, _) in kinds.items() if kind == "unaccounted"] == []
    for path, (kind, detail) in kinds.items():
        if kind == "twin":  # the same config key, so the same limit must hold
            twin = limit(detail)
            assert (twin.min, twin.max, twin.pattern) == (
                limit(path).min,
                limit(path).max,
                limit(path).pattern,
            ), path
            assert request_limits.classify(detail)[0] != "twin"
        elif kind == "elsewhere" and not detail.startswith("model:"):
            assert detail in RULES, (path, detail)
    checked = [check.path for check in request_limits.CHECKS]
    assert len(checked) == len(set(checked)) and set(checked) <= set(limits())
    assert set(request_limits.ELSEWHERE) <= set(limits())


def test_the_checked_patterns_are_told_in_python():
    for check in request_limits.CHECKS:
        found = limit(check.path)
        if check.pattern and found.pattern:
            assert python_pattern(found.pattern) is not None, (check.path, found.pattern)


def test_the_numbers_and_patterns_still_in_code_are_the_models():
    """Rules that predate the data file keep their constants (the config model's schema needs
    them at import): each equals the model's."""
    from sagelaunch import naming
    from sagelaunch.checks.rules import resources
    from sagelaunch.config.sweep import Tuning, WarmStart

    name = limit("CreateTrainingJob.TrainingJobName")
    assert (name.max, f"^{name.pattern}$") == (naming.MAX_JOB_NAME, naming.JOB_NAME_PATTERN)
    tuning = limit("CreateHyperParameterTuningJob.HyperParameterTuningJobName")
    assert tuning.max == naming.MAX_TUNING_JOB_NAME
    exact = Tuning.model_fields["job_name"].metadata
    assert any(getattr(m, "pattern", None) == f"^{tuning.pattern}$" for m in exact)
    assert any(getattr(m, "max_length", None) == tuning.max for m in exact)
    assert f"^{tuning.pattern}$" == naming.TUNING_JOB_NAME_PATTERN
    # A base of any length is cut to what fits before the tuner's "-yymmdd-HHMM".
    base = naming.TUNING_BASE_PATTERN
    assert base == f"^{tuning.pattern}$".replace("{0,31}", "*")
    assert tuning.max == naming.TUNING_BASE_KEPT + 1 + naming.SHORT_TIMESTAMP_LEN
    parents = WarmStart.model_fields["parents"].metadata
    most = limit("CreateHyperParameterTuningJob.WarmStartConfig.ParentHyperParameterTuningJobs")
    assert any(getattr(m, "max_length", None) == most.max for m in parents)
    assert resources.ROLE_ARN.pattern == f"^{limit('CreateTrainingJob.RoleArn').pattern}$"
    s3 = limit("CreateTrainingJob.OutputDataConfig.S3OutputPath")
    assert resources.S3_URI.pattern == f"^{s3.pattern}$"
    channel = limit("CreateTrainingJob.InputDataConfig[].ChannelName")
    assert channel.pattern.endswith("]+") and (channel.min, channel.max) == (1, 64)
    assert resources.CHANNEL_NAME.pattern == f"^{channel.pattern[:-1]}{{1,64}}$"
    # The config model's numeric bounds (read from the data file at import, for its schema):
    # the model's numbers. tests/config/test_rule_bounds.py holds validate's behaviour to them.
    from sagelaunch.config.model import Compute

    runtime = limit(
        "CreateHyperParameterTuningJob.HyperParameterTuningJobConfig.ResourceLimits."
        "MaxRuntimeInSeconds"
    )
    assert _bounds(Tuning, "max_runtime") == (runtime.min, runtime.max)
    retries = limit("CreateTrainingJob.RetryStrategy.MaximumRetryAttempts")
    assert _bounds(Compute, "retries")[1] == retries.max  # 0: no RetryStrategy sent
    volume = limit("CreateTrainingJob.ResourceConfig.VolumeSizeInGB")
    assert _bounds(Compute, "volume_size_gb") == (volume.min, volume.max)


def _bounds(model, field: str) -> tuple[int | None, int | None]:
    metadata = model.model_fields[field].metadata
    low = next((m.ge for m in metadata if getattr(m, "ge", None) is not None), None)
    high = next((m.le for m in metadata if getattr(m, "le", None) is not None), None)
    return low, high


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

"""The service's limits on what a config writes into CreateTrainingJob and
CreateHyperParameterTuningJob (tags, metrics, channels, VPC, KMS keys, Debugger, TensorBoard,
experiments, tuning ranges), through the CLI: `validate --strict` on a YAML file is quiet exactly
at each limit and names FILE:LINE of the key one past it. The numbers are the model's
(catalog.api_limits): the data file is checked against botocore in test_api_limits.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sagelaunch.catalog.api_limits import limit

T = "CreateTrainingJob."
H = "CreateHyperParameterTuningJob."
RANGES = H + "HyperParameterTuningJobConfig.ParameterRanges."
ARN_ROLE = "arn:aws:iam::111122223333:role/"
PLAN_ARN = "arn:aws:sagemaker:us-east-1:111122223333:training-plan/"
SHORT_PLAN_ARN = "arn:aws:sagemaker::111122223333:training-plan/"  # the pattern's shortest
VPC = {"subnets": ["subnet-0a1b2c3d"], "security_group_ids": ["sg-0a1b2c3d"]}
TUNING = {"objective": {"metric": "train:loss", "type": "Minimize"}, "ranges": {}}
TUNED = {"tuning": {**TUNING, "ranges": {"lr": {"min": 0.001, "max": 0.1}}}}


def text(size: int, prefix: str = "", fill: str = "a") -> str:
    """``prefix`` padded with ``fill`` to ``size`` characters."""
    assert len(prefix) <= size, (prefix, size)
    return prefix + fill * (size - len(prefix))


@dataclass(frozen=True)
class Case:
    """A config writing ``size`` of what `path` limits (``build(size)`` -> overrides); the
    error is on the line of the YAML whose stripped text starts with ``marker(size)``."""

    path: str
    build: Callable[[int], dict[str, Any]]
    marker: Callable[[int], str]
    bound: str = "max"  # or "min": quiet at the minimum, an error one below

    @property
    def member(self) -> str:
        operation, member = self.path.split(".", 1)
        return f"({operation} {member}:"


def tags(size: int) -> dict[str, Any]:
    return {"tags": {f"t{i}": "v" for i in range(size)}}


def metric(name: str = "loss", regex: str = "loss=([0-9.]+)") -> dict[str, Any]:
    return {"metrics": [{"name": name, "regex": regex}]}


def channel(**fields: Any) -> dict[str, Any]:
    return {"inputs": {"train": {"uri": "s3://bucket/train/", **fields}}}


def fsx(**fields: Any) -> dict[str, Any]:
    system = {"type": "FSxLustre", "id": "fs-0123456789abcdef0", "path": "/fsx/data", **fields}
    return {"network": VPC, "inputs": {"fsx": {"file_system": system}}}


def placement(count: int, server: str = "ultraserver-1") -> dict[str, Any]:
    specs = [{"UltraServerId": server, "InstanceCount": 1} for _ in range(count)]
    # A type UltraServers are made of, with an instance for each specification.
    ultra = {"instance_type": "ml.p5.48xlarge", "instance_count": max(count, 1)}
    return {"compute": {**ultra, "placement": {"PlacementSpecifications": specs}}}


def hook(**fields: Any) -> dict[str, Any]:
    return {"debugger": {"hook": fields}}


def debug_rule(parameters: dict[str, Any]) -> dict[str, Any]:
    return {"debugger": {"rules": [{"name": "loss_not_decreasing", "parameters": parameters}]}}


def profiler_rule(parameters: dict[str, Any]) -> dict[str, Any]:
    return {"profiler": {"rules": [{"name": "ProfilerReport", "parameters": parameters}]}}


def tuning(ranges: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"tuning": {**TUNING, "ranges": ranges, **more}}


def integers(count: int) -> dict[str, Any]:
    return {f"p{i}": {"min": 1, "max": 2, "type": "integer"} for i in range(count)}


CASES: dict[str, Case] = {
    "tags": Case(T + "Tags", tags, lambda n: "tags:"),
    "tag key": Case(T + "Tags[].Key", lambda n: {"tags": {text(n, "k"): "v"}}, lambda n: "kaaa"),
    "empty tag key": Case(
        T + "Tags[].Key", lambda n: {"tags": {text(n, fill="k"): "v"}}, lambda n: "''", "min"
    ),
    "tag value": Case(T + "Tags[].Value", lambda n: {"tags": {"team": text(n)}}, lambda n: "team:"),
    "image URI": Case(
        T + "AlgorithmSpecification.TrainingImage",
        lambda n: {"image_uri": text(n, "123456789012.dkr.ecr.us-east-1.amazonaws.com/r:")},
        lambda n: "image_uri:",
    ),
    "metrics": Case(
        T + "AlgorithmSpecification.MetricDefinitions",
        lambda n: {"metrics": [{"name": f"m{i}", "regex": "m=([0-9]+)"} for i in range(n)]},
        lambda n: "metrics:",
    ),
    "metric name": Case(
        T + "AlgorithmSpecification.MetricDefinitions[].Name",
        lambda n: metric(name=text(n, "m:")),
        lambda n: "- name:",
    ),
    "metric regex": Case(
        T + "AlgorithmSpecification.MetricDefinitions[].Regex",
        lambda n: metric(regex=text(n, "loss=([0-9.]+)", ".")),
        lambda n: "regex:",
    ),
    "role ARN": Case(T + "RoleArn", lambda n: {"role": text(n, ARN_ROLE, "r")}, lambda n: "role:"),
    "input channels": Case(
        T + "InputDataConfig",
        lambda n: {"inputs": {f"c{i}": f"s3://bucket/c{i}/" for i in range(n)}},
        lambda n: "inputs:",
    ),
    "channel S3 URI": Case(
        T + "InputDataConfig[].DataSource.S3DataSource.S3Uri",
        lambda n: {"inputs": {"train": text(n, "s3://bucket/", "k")}},
        lambda n: "train:",
    ),
    "content type": Case(
        T + "InputDataConfig[].ContentType",
        lambda n: channel(content_type=text(n, "text/")),
        lambda n: "content_type:",
    ),
    "file system id": Case(
        T + "InputDataConfig[].DataSource.FileSystemDataSource.FileSystemId",
        lambda n: fsx(id=text(n, "fs-", "0")),
        lambda n: "id:",
    ),
    "short file system id": Case(
        T + "InputDataConfig[].DataSource.FileSystemDataSource.FileSystemId",
        lambda n: fsx(id=text(n, "fs-", "0")),
        lambda n: "id:",
        "min",
    ),
    "file system path": Case(
        T + "InputDataConfig[].DataSource.FileSystemDataSource.DirectoryPath",
        lambda n: fsx(path=text(n, "/fsx/", "p")),
        lambda n: "path:",
    ),
    "output KMS key": Case(
        T + "OutputDataConfig.KmsKeyId",
        lambda n: {"kms": {"output_key_id": text(n, "alias/", "k")}},
        lambda n: "output_key_id:",
    ),
    "output path": Case(
        T + "OutputDataConfig.S3OutputPath",
        lambda n: {"output_path": text(n, "s3://bucket/", "o")},
        lambda n: "output_path:",
    ),
    "volume KMS key": Case(
        T + "ResourceConfig.VolumeKmsKeyId",
        lambda n: {"kms": {"volume_key_id": text(n, "alias/", "k")}},
        lambda n: "volume_key_id:",
    ),
    "training plan": Case(
        T + "ResourceConfig.TrainingPlanArn",
        lambda n: {"compute": {"training_plan": text(n, PLAN_ARN, "p")}},
        lambda n: "training_plan:",
    ),
    "short training plan": Case(
        T + "ResourceConfig.TrainingPlanArn",
        lambda n: {"compute": {"training_plan": text(n, SHORT_PLAN_ARN, "p")}},
        lambda n: "training_plan:",
        "min",
    ),
    "placement specifications": Case(
        T + "ResourceConfig.InstancePlacementConfig.PlacementSpecifications",
        placement,
        lambda n: "PlacementSpecifications:",
    ),
    "UltraServer id": Case(
        T + "ResourceConfig.InstancePlacementConfig.PlacementSpecifications[].UltraServerId",
        lambda n: placement(1, text(n, "ultraserver-", "u")),
        lambda n: "- UltraServerId:",
    ),
    "subnets": Case(
        T + "VpcConfig.Subnets",
        lambda n: {"network": {**VPC, "subnets": [f"subnet-{i:08x}" for i in range(n)]}},
        lambda n: "subnets:",
    ),
    "subnet id": Case(
        T + "VpcConfig.Subnets[]",
        lambda n: {"network": {**VPC, "subnets": [text(n, "subnet-", "0")]}},
        lambda n: "- subnet-",
    ),
    "security groups": Case(
        T + "VpcConfig.SecurityGroupIds",
        lambda n: {"network": {**VPC, "security_group_ids": [f"sg-{i:08x}" for i in range(n)]}},
        lambda n: "security_group_ids:",
    ),
    "security group id": Case(
        T + "VpcConfig.SecurityGroupIds[]",
        lambda n: {"network": {**VPC, "security_group_ids": [text(n, "sg-", "0")]}},
        lambda n: "- sg-",
    ),
    "checkpoint S3 URI": Case(
        T + "CheckpointConfig.S3Uri",
        lambda n: {"checkpoint": {"s3_uri": text(n, "s3://bucket/", "c")}},
        lambda n: "s3_uri:",
    ),
    "checkpoint local path": Case(
        T + "CheckpointConfig.LocalPath",
        lambda n: {"checkpoint": {"s3_uri": "s3://bucket/c/", "local_path": text(n, "/opt/")}},
        lambda n: "local_path:",
    ),
    "debugger hook S3 URI": Case(
        T + "DebugHookConfig.S3OutputPath",
        lambda n: hook(s3_output_path=text(n, "s3://bucket/", "d")),
        lambda n: "s3_output_path:",
    ),
    "collections": Case(
        T + "DebugHookConfig.CollectionConfigurations",
        lambda n: hook(collections={f"c{i}": {"save_interval": 1} for i in range(n)}),
        lambda n: "collections:",
    ),
    "collection name": Case(
        T + "DebugHookConfig.CollectionConfigurations[].CollectionName",
        lambda n: hook(collections={text(n, "c"): {"save_interval": 1}}),
        lambda n: "caaa",
    ),
    "collection parameters": Case(
        T + "DebugHookConfig.CollectionConfigurations[].CollectionParameters",
        lambda n: hook(collections={"losses": {f"p{i}": 1 for i in range(n)}}),
        lambda n: "losses:",
    ),
    "collection parameter name": Case(
        T + "DebugHookConfig.CollectionConfigurations[].CollectionParameters{key}",
        lambda n: hook(collections={"losses": {text(n, "p"): 1}}),
        lambda n: "paaa",
    ),
    "collection parameter value": Case(
        T + "DebugHookConfig.CollectionConfigurations[].CollectionParameters{value}",
        lambda n: hook(collections={"losses": {"include_regex": text(n, "x")}}),
        lambda n: "include_regex:",
    ),
    "debugger rule parameters": Case(
        T + "DebugRuleConfigurations[].RuleParameters",
        lambda n: debug_rule({f"p{i}": 1 for i in range(n)}),
        lambda n: "parameters:",
    ),
    "debugger rule parameter name": Case(
        T + "DebugRuleConfigurations[].RuleParameters{key}",
        lambda n: debug_rule({text(n, "p"): 1}),
        lambda n: "paaa",
    ),
    "debugger rule parameter value": Case(
        T + "DebugRuleConfigurations[].RuleParameters{value}",
        lambda n: debug_rule({"patience": text(n, "1", "0")}),
        lambda n: "patience:",
    ),
    "profiler rule parameters": Case(
        T + "ProfilerRuleConfigurations[].RuleParameters",
        lambda n: profiler_rule({f"p{i}": 1 for i in range(n)}),
        lambda n: "parameters:",
    ),
    "profiler rule parameter name": Case(
        T + "ProfilerRuleConfigurations[].RuleParameters{key}",
        lambda n: profiler_rule({text(n, "p"): 1}),
        lambda n: "paaa",
    ),
    "profiler rule parameter value": Case(
        T + "ProfilerRuleConfigurations[].RuleParameters{value}",
        lambda n: profiler_rule({"CPUBottleneck_threshold": 10 ** (n - 1)}),
        lambda n: "CPUBottleneck_threshold:",
    ),
    "profiler S3 URI": Case(
        T + "ProfilerConfig.S3OutputPath",
        lambda n: {"profiler": {"s3_output_path": text(n, "s3://bucket/", "p")}},
        lambda n: "s3_output_path:",
    ),
    "TensorBoard S3 URI": Case(
        T + "TensorBoardOutputConfig.S3OutputPath",
        lambda n: {"tensorboard": {"s3_uri": text(n, "s3://bucket/", "t")}},
        lambda n: "s3_uri:",
    ),
    "TensorBoard local path": Case(
        T + "TensorBoardOutputConfig.LocalPath",
        lambda n: {"tensorboard": {"s3_uri": "s3://bucket/t/", "local_path": text(n, "/opt/")}},
        lambda n: "local_path:",
    ),
    **{
        f"experiment {key}": Case(
            T + f"ExperimentConfig.{member}",
            lambda n, key=key: {"experiment": {key: text(n, "e")}},  # type: ignore[misc]
            lambda n, key=key: f"{key}: e",  # type: ignore[misc]
        )
        for key, member in {
            "name": "ExperimentName",
            "trial": "TrialName",
            "trial_component_display_name": "TrialComponentDisplayName",
            "run_name": "RunName",
        }.items()
    },
    "empty experiment name": Case(
        T + "ExperimentConfig.ExperimentName",
        lambda n: {"experiment": {"name": text(n, fill="e")}},
        lambda n: "name: ''",
        "min",
    ),
    "tuning objective": Case(
        H + "HyperParameterTuningJobConfig.HyperParameterTuningJobObjective.MetricName",
        lambda n: {
            **metric(name=text(n, "m:")),
            **tuning({"lr": {"min": 0.001, "max": 0.1}}, objective={"metric": text(n, "m:")}),
        },
        lambda n: "metric: m:",
    ),
    "integer ranges": Case(
        RANGES + "IntegerParameterRanges", lambda n: tuning(integers(n)), lambda n: "ranges:"
    ),
    "continuous ranges": Case(
        RANGES + "ContinuousParameterRanges",
        lambda n: tuning({f"p{i}": {"min": 0.1, "max": 0.2} for i in range(n)}),
        lambda n: "ranges:",
    ),
    "categorical ranges": Case(
        RANGES + "CategoricalParameterRanges",
        lambda n: tuning({f"p{i}": {"values": ["a", "b"]} for i in range(n)}),
        lambda n: "ranges:",
    ),
    "range name": Case(
        RANGES + "ContinuousParameterRanges[].Name",
        lambda n: tuning({text(n, "p"): {"min": 0.1, "max": 0.2}}),
        lambda n: "paaa",
    ),
    "integer range bound": Case(
        RANGES + "IntegerParameterRanges[].MaxValue",
        lambda n: tuning({"steps": {"min": 1, "max": 10 ** (n - 1), "type": "integer"}}),
        lambda n: "max:",
    ),
    "continuous range bound": Case(
        RANGES + "ContinuousParameterRanges[].MinValue",
        lambda n: tuning({"lr": {"min": 10 ** (n - 1), "max": 10 ** (n - 1) + 1}}),
        lambda n: "min:",
    ),
    "categorical values": Case(
        RANGES + "CategoricalParameterRanges[].Values",
        lambda n: tuning({"opt": {"values": [f"v{i}" for i in range(n)]}}),
        lambda n: "values:",
    ),
    # SDK v2's tuner sends a script's categorical values JSON-encoded: 2 quotes more.
    "categorical value": Case(
        RANGES + "CategoricalParameterRanges[].Values[]",
        lambda n: tuning({"opt": {"values": [text(n - 2, "v")]}}),
        lambda n: "- vaaa",
    ),
    "tuning environment": Case(
        H + "TrainingJobDefinition.Environment",
        lambda n: {"environment": {f"V{i}": "1" for i in range(n)}, **TUNED},
        lambda n: "environment:",
    ),
    "warm start parent": Case(
        H + "WarmStartConfig.ParentHyperParameterTuningJobs[].HyperParameterTuningJobName",
        lambda n: {
            "tuning": {
                **TUNED["tuning"],
                "warm_start": {"type": "TransferLearning", "parents": [text(n, "p")]},
            }
        },
        lambda n: "- paaa",
    ),
}


def line_of(path: Path, marker: str) -> int:
    """The first line that starts with ``marker`` (a long key's too: "? KEY", as YAML writes a
    key of over 128 characters)."""
    lines = [line.lstrip().removeprefix("? ") for line in path.read_text().splitlines()]
    return next(n for n, line in enumerate(lines, 1) if line.startswith(marker))


@pytest.fixture
def validate(cli, make_config, tmp_path, monkeypatch):
    """`validate --strict` on a config of the overrides: (the file, the result)."""
    monkeypatch.chdir(tmp_path)  # validate's cache is the run's own folder

    def run(overrides: dict[str, Any]):
        path = make_config(overrides)
        return path, cli("validate", "--strict", path)

    return run


@pytest.mark.parametrize("name", sorted(CASES))
def test_quiet_at_the_limit_and_an_error_one_past_it(validate, name):
    case = CASES[name]
    found = limit(case.path)
    bound = found.min if case.bound == "min" else found.max
    assert bound is not None
    past = bound - 1 if case.bound == "min" else bound + 1

    path, quiet = validate(case.build(bound))
    assert quiet.exit_code == 0, quiet.output

    path, result = validate(case.build(past))
    assert result.exit_code == 2
    (error,) = [line for line in result.stderr.splitlines() if case.member in line]
    where = f"error: {path}:{line_of(path, case.marker(past))}:"
    assert error.startswith(where), (where, error)
    said = f"at least {bound}" if case.bound == "min" else f"at most {bound}"
    assert said in error and "the service refuses the" in error


def test_the_tag_limits_are_the_services():
    """The numbers the service documents for tags (API_Tag; CreateTrainingJob's TagList)."""
    assert limit(T + "Tags").max == 50
    assert (limit(T + "Tags[].Key").min, limit(T + "Tags[].Key").max) == (1, 128)
    assert limit(T + "Tags[].Value").max == 256


def test_fifty_one_tags_a_reserved_and_long_keys_and_a_long_value_are_each_an_error(validate):
    """The issue's config: every one used to pass `validate --strict` and `plan --strict`."""
    written = {f"t{i}": "v" for i in range(47)}
    written.update({"aws:team": "vision", "k" * 200: "v", "note": "x" * 300, "AWS:Cost": "1"})
    path, result = validate({"tags": written})
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 5, errors
    count, reserved, long_key, long_value, reserved_upper = errors  # in file order
    assert count.startswith(f"error: {path}:{line_of(path, 'tags:')}:")
    assert "51 tags: at most 50 (CreateTrainingJob Tags:" in count
    assert reserved.startswith(f"error: {path}:{line_of(path, 'aws:team:')}:3: tags.aws:team: ")
    assert "AWS reserves the aws: prefix" in reserved
    assert "a tag key of 200 characters: at most 128" in long_key
    assert long_value.startswith(f"error: {path}:{line_of(path, 'note:')}:")
    assert "a tag value of 300 characters: at most 256" in long_value
    assert "tags.AWS:Cost: a tag key beginning with 'AWS:'" in reserved_upper


@pytest.mark.parametrize("key", ["team", "aws-team", "my:aws:team", "aws"])
def test_keys_outside_the_aws_namespace_pass(validate, key):
    assert validate({"tags": {key: "aws:value"}})[1].exit_code == 0


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"tags": {"team#1": "v"}}, "a tag key must match the API's pattern"),
        ({"network": {**VPC, "subnets": ["subnet_0a1b"]}}, "a subnet id must match"),
        ({"kms": {"output_key_id": "my key"}}, "a KMS key id must match"),
        ({"experiment": {"name": "my_experiment"}}, "a name must match"),
        (fsx(id="fs-XYZ45678"), "a file system id must match"),
        ({"compute": {"training_plan": "x" * 60}}, "a training plan ARN must match"),
    ],
)
def test_patterns_the_api_refuses_are_errors(validate, overrides, fragment):
    result = validate(overrides)[1]
    assert result.exit_code == 2
    assert fragment in result.stderr, result.stderr


@pytest.mark.parametrize(
    "overrides",
    [
        {"compute": {"training_plan": "p5-week"}},
        {
            "compute": {
                "instance_type": None,
                "instance_count": None,
                "instance_preferences": [
                    {
                        "instance_type": "ml.p5.48xlarge",
                        "instance_count": 2,
                        "training_plans": ["p5-week"],
                    }
                ],
            }
        },
    ],
)
def test_a_plans_name_where_its_arn_belongs_says_how_to_find_the_arn(validate, overrides):
    result = validate(overrides)[1]
    assert result.exit_code == 2
    assert "a training plan ARN of 7 characters: at least" in result.stderr, result.stderr
    assert "`sagelaunch capacity describe NAME` prints it" in result.stderr


def test_unicode_letters_digits_and_spaces_are_tag_characters(validate):
    """The tag pattern's \\p{L}\\p{Z}\\p{N}: letters, separators and numbers of any script."""
    assert validate({"tags": {"équipe 名前 ٣": "valeur ü 2"}})[1].exit_code == 0


def test_the_tuning_environment_limit_applies_to_tuned_configs_only(validate):
    """CreateHyperParameterTuningJob takes 48 environment variables, CreateTrainingJob 100."""
    most = limit(H + "TrainingJobDefinition.Environment").max
    assert most is not None and most < limit(T + "Environment").max  # type: ignore[operator]
    env = {"environment": {f"V{i}": "1" for i in range(most + 1)}}
    assert validate(env)[1].exit_code == 0
    result = validate({**env, **TUNED})[1]
    assert result.exit_code == 2 and "the service refuses the tuning job" in result.stderr


def test_plan_strict_refuses_what_validate_refuses(validate, cli):
    """`plan` checks the config with the same rules before it runs the SDK."""
    path, _ = validate(tags(51))
    result = cli("plan", path, "--strict", "--no-check-quota", "-o", "json")
    assert result.exit_code == 2
    assert f"{path}:{line_of(path, 'tags:')}:" in result.stderr
    assert "51 tags: at most 50" in result.stderr

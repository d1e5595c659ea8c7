"""Every numeric bound `validate` checks is the service model's, with botocore's own loaded model
as the oracle: the shipped data/api_limits.json states the same min and max, the value at the
bound validates, one past it is refused at the key's file:line with a message that names the
model's number. Where the model's shape states no max, the config sets none either (instance
counts), or keeps the service's documented one (max_run's 28 days, held to the sentence in the
model's own documentation)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from sagelaunch.catalog.api_limits import limit
from sagelaunch.checks.rules import resources
from sagelaunch.checks.validation import validate_file
from tests.config.test_rules import TUNE

TRAINING = "CreateTrainingJob."
TUNING = "CreateHyperParameterTuningJob.HyperParameterTuningJobConfig."
LIMITS = TUNING + "ResourceLimits."
HYPERBAND = TUNING + "StrategyConfig.HyperbandStrategyConfig."


@cache
def _sagemaker_model():
    import botocore.session

    return botocore.session.get_session().get_service_model("sagemaker")


def model_shape(path: str):
    """The shape of ``Operation.Member.Member[].Member`` in botocore's loaded SageMaker model."""
    operation, *members = path.split(".")
    shape = _sagemaker_model().operation_model(operation).input_shape
    for member in members:
        shape = shape.members[member.removesuffix("[]")]
        if member.endswith("[]"):
            shape = shape.member
    return shape


def model_bounds(path: str) -> tuple[int | None, int | None]:
    """(min, max) as botocore's loaded model states them (a number's range, a list's length)."""
    meta = model_shape(path).metadata
    return meta.get("min"), meta.get("max")


Where = Callable[[Any], tuple[dict, str]]  # value -> (config overrides, the key's dotted path)


def compute(key: str) -> Where:
    return lambda value: ({"compute": {key: value}}, f"compute.{key}")


def tuning(key: str, **more: Any) -> Where:
    return lambda value: ({"tuning": {**TUNE, **more, key: value}}, f"tuning.{key}")


def max_wait(value: int) -> tuple[dict, str]:
    """On demand: MaxWaitTimeInSeconds, with a max_run it does not fall below."""
    return {"compute": {"max_wait": value, "max_run": 1}}, "compute.max_wait"


def hyperband(key: str) -> Where:
    def where(value: int) -> tuple[dict, str]:
        block = {"strategy": "Hyperband", "hyperband": {key: value}}
        return {"tuning": {**TUNE, **block}}, f"tuning.hyperband.{key}"

    return where


def groups(count: int) -> tuple[dict, str]:
    written = [
        {"name": f"g{i}", "instance_type": "ml.c5.xlarge", "instance_count": 1}
        for i in range(count)
    ]
    return {"compute": {"instance_type": None, "instance_count": None, "groups": written}}, (
        "compute.groups"
    )


def preferences(count: int) -> tuple[dict, str]:
    written = [{"instance_type": "ml.g5.2xlarge", "instance_count": 1} for _ in range(count)]
    return {
        "compute": {"instance_type": None, "instance_count": None, "instance_preferences": written}
    }, "compute.instance_preferences"


def parents(count: int) -> tuple[dict, str]:
    warm = {"type": "TransferLearning", "parents": [f"parent-{i}" for i in range(count)]}
    return {"tuning": {**TUNE, "warm_start": warm}}, "tuning.warm_start.parents"


# (botocore member, which end, where the config writes it); a list's end is its length.
BOUNDS: list[tuple[str, str, Where]] = [
    (TRAINING + "ResourceConfig.KeepAlivePeriodInSeconds", "max", compute("keep_alive")),
    (TRAINING + "ResourceConfig.KeepAlivePeriodInSeconds", "min", compute("keep_alive")),
    (TRAINING + "RetryStrategy.MaximumRetryAttempts", "max", compute("retries")),
    (TRAINING + "StoppingCondition.MaxRuntimeInSeconds", "min", compute("max_run")),
    (TRAINING + "StoppingCondition.MaxWaitTimeInSeconds", "min", max_wait),
    (TRAINING + "ResourceConfig.VolumeSizeInGB", "min", compute("volume_size_gb")),
    (TRAINING + "ResourceConfig.InstanceGroups", "max", groups),
    (TRAINING + "ResourceConfig.InstancePreferences", "max", preferences),
    (TRAINING + "StoppingCondition.MaxPendingTimeInSeconds", "min", compute("max_pending")),
    (TRAINING + "StoppingCondition.MaxPendingTimeInSeconds", "max", compute("max_pending")),
    (LIMITS + "MaxRuntimeInSeconds", "max", tuning("max_runtime")),
    (LIMITS + "MaxRuntimeInSeconds", "min", tuning("max_runtime")),
    (LIMITS + "MaxParallelTrainingJobs", "min", tuning("max_parallel_jobs")),
    (LIMITS + "MaxNumberOfTrainingJobs", "min", tuning("max_jobs")),
    (TUNING + "RandomSeed", "min", tuning("random_seed")),
    (HYPERBAND + "MinResource", "min", hyperband("min_resource")),
    (HYPERBAND + "MaxResource", "min", hyperband("max_resource")),
    (
        "CreateHyperParameterTuningJob.WarmStartConfig.ParentHyperParameterTuningJobs",
        "max",
        parents,
    ),
]


def errors(make_config, overrides: dict):
    """validate's errors: the config model's (a pydantic bound) or the rules'."""
    return validate_file(make_config(overrides)).errors


def key_line(path: Path, key: str, value: Any) -> int:
    """The line that writes ``key`` (the last part of a dotted path) with ``value``."""
    leaf = key.rsplit(".", 1)[-1]
    for number, line in enumerate(path.read_text().splitlines(), 1):
        text = line.strip().removeprefix("- ")
        if text == f"{leaf}:" or text == f"{leaf}: {value}":
            return number
    raise AssertionError(f"{leaf}: {value} not written in {path}")


@pytest.mark.parametrize(
    ("member", "end", "where"), BOUNDS, ids=[f"{m.rsplit('.', 1)[-1]}-{e}" for m, e, _ in BOUNDS]
)
def test_the_bound_is_the_models(make_config, member, end, where):
    low, high = model_bounds(member)
    bound = high if end == "max" else low
    assert bound is not None, f"botocore states no {end} for {member}"
    shipped = limit(member)
    assert (shipped.min, shipped.max) == (low or 0, high), member  # the data file is the model's
    at_bound, key = where(bound)
    assert errors(make_config, at_bound) == [], (member, bound)
    past_value = bound + 1 if end == "max" else bound - 1
    past, _ = where(past_value)
    path = make_config(past)
    found = validate_file(path).errors
    assert found, (member, end, bound)
    assert {p.path for p in found} == {key}
    line = key_line(path, key, past_value)
    assert {(str(p.file), p.line) for p in found} == {(str(path), line)}, [str(p) for p in found]
    assert any(re.search(rf"\b{bound}\b", p.message) for p in found), [p.message for p in found]


def test_keep_alive_takes_the_apis_six_hours(make_config):
    assert errors(make_config, {"compute": {"keep_alive": 21600}}) == []
    (refused,) = errors(make_config, {"compute": {"keep_alive": 21601}})
    assert "at most 21600 s" in refused.message and "KeepAlivePeriodInSeconds" in refused.message


def test_no_retries_is_zero_and_one_retry_is_the_models_least(make_config):
    """retries: 0 sends no RetryStrategy; the model's least MaximumRetryAttempts (1) is
    accepted, and a count below none is refused."""
    least, _ = model_bounds(TRAINING + "RetryStrategy.MaximumRetryAttempts")
    assert least == 1
    assert errors(make_config, {"compute": {"retries": least}}) == []
    assert errors(make_config, {"compute": {"retries": 0}}) == []
    (refused,) = errors(make_config, {"compute": {"retries": -1}})
    assert refused.path == "compute.retries"


def test_max_run_keeps_the_28_days_the_models_documentation_states(make_config):
    """The shape states no max (data/api_limits.json would then carry it, and the rule must read
    it); its documentation says 28 days, the rule's number."""
    member = model_shape(TRAINING + "StoppingCondition")
    assert "max" not in member.members["MaxRuntimeInSeconds"].metadata
    assert limit(TRAINING + "StoppingCondition.MaxRuntimeInSeconds").max is None
    documented = re.sub(r"<[^>]+>", "", member.members["MaxRuntimeInSeconds"].documentation)
    days = re.search(r"The maximum value is (\d+) days", documented)
    assert days is not None and int(days.group(1)) == resources.MAX_RUN_DAYS
    most = resources.MAX_RUN_DAYS * 86400
    assert most == resources.MAX_RUN_SECONDS
    assert errors(make_config, {"compute": {"max_run": most}}) == []
    path = make_config({"compute": {"max_run": most + 1}})
    (refused,) = validate_file(path).errors
    assert (refused.path, refused.line) == ("compute.max_run", key_line(path, "max_run", most + 1))
    assert f"over 28 days ({most} s)" in refused.message


@pytest.mark.parametrize(
    ("member", "where"),
    [
        (TRAINING + "ResourceConfig.InstanceCount", compute("instance_count")),
        (
            TRAINING + "ResourceConfig.InstanceGroups[].InstanceCount",
            lambda n: (
                {
                    "compute": {
                        "instance_type": None,
                        "instance_count": None,
                        "groups": [
                            {"name": "a", "instance_type": "ml.c5.xlarge", "instance_count": n}
                        ],
                    }
                },
                "compute.groups[0].instance_count",
            ),
        ),
    ],
    ids=["instance_count", "group_instance_count"],
)
def test_instance_counts_have_no_most_where_the_model_states_none(make_config, member, where):
    """The model states no most instances (an account's are its adjustable quotas'): 1,000
    validates. At least 1 (the model's minimum, 0, is no job to run) is refused below."""
    least, most = model_bounds(member)
    assert most is None and limit(member).max is None and least == 0
    assert errors(make_config, where(1000)[0]) == []
    overrides, key = where(0)
    found = errors(make_config, overrides)
    assert key in {p.path for p in found}  # (a group's count is also compute's, derived)
    assert all("greater than or equal to 1" in p.message for p in found)

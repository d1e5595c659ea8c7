"""Every numeric bound `validate` checks is the service model's (botocore's own loaded model, the
oracle): the value at the model's bound validates, one past it is refused at the key's line."""

from __future__ import annotations

import pytest

from sagelaunch.config.validation import validate_file
from tests.config.test_rules import TUNE


def model_bounds(path: str) -> tuple[int | None, int | None]:
    """(min, max) of ``Operation.Member.Member`` in botocore's loaded SageMaker model."""
    import botocore.session

    model = botocore.session.get_session().get_service_model("sagemaker")
    operation, *members = path.split(".")
    shape = model.operation_model(operation).input_shape
    for member in members:
        shape = shape.members[member]
    return shape.metadata.get("min"), shape.metadata.get("max")


def compute(key: str):
    return lambda value: ({"compute": {key: value}}, f"compute.{key}")


def tuning(key: str):
    return lambda value: ({"tuning": {**TUNE, key: value}}, f"tuning.{key}")


# (botocore member, which end, where the config writes it)
BOUNDS = [
    ("CreateTrainingJob.ResourceConfig.KeepAlivePeriodInSeconds", "max", compute("keep_alive")),
    ("CreateTrainingJob.ResourceConfig.KeepAlivePeriodInSeconds", "min", compute("keep_alive")),
    ("CreateTrainingJob.RetryStrategy.MaximumRetryAttempts", "max", compute("retries")),
    ("CreateTrainingJob.StoppingCondition.MaxRuntimeInSeconds", "min", compute("max_run")),
    ("CreateTrainingJob.ResourceConfig.VolumeSizeInGB", "min", compute("volume_size_gb")),
    (
        "CreateHyperParameterTuningJob.HyperParameterTuningJobConfig.ResourceLimits."
        "MaxRuntimeInSeconds",
        "max",
        tuning("max_runtime"),
    ),
    (
        "CreateHyperParameterTuningJob.HyperParameterTuningJobConfig.ResourceLimits."
        "MaxRuntimeInSeconds",
        "min",
        tuning("max_runtime"),
    ),
    (
        "CreateHyperParameterTuningJob.HyperParameterTuningJobConfig.ResourceLimits."
        "MaxParallelTrainingJobs",
        "min",
        tuning("max_parallel_jobs"),
    ),
    (
        "CreateHyperParameterTuningJob.HyperParameterTuningJobConfig.RandomSeed",
        "min",
        tuning("random_seed"),
    ),
]


def errors(make_config, overrides):
    """validate's errors: the config model's (a pydantic bound) or the rules'."""
    return validate_file(make_config(overrides)).errors


@pytest.mark.parametrize(
    ("member", "end", "where"), BOUNDS, ids=[f"{m.rsplit('.', 1)[-1]}-{e}" for m, e, _ in BOUNDS]
)
def test_the_bound_is_the_models(make_config, member, end, where):
    low, high = model_bounds(member)
    bound = high if end == "max" else low
    assert bound is not None, f"botocore states no {end} for {member}"
    at_bound, key = where(bound)
    assert errors(make_config, at_bound) == [], (member, bound)
    past, _ = where(bound + 1 if end == "max" else bound - 1)
    found = errors(make_config, past)
    assert found, (member, end, bound)
    assert {p.path for p in found} == {key}
    assert all(p.line > 0 for p in found)


def test_keep_alive_takes_the_apis_six_hours(make_config):
    assert errors(make_config, {"compute": {"keep_alive": 21600}}) == []
    (refused,) = errors(make_config, {"compute": {"keep_alive": 21601}})
    assert "at most 21600 s" in refused.message and "KeepAlivePeriodInSeconds" in refused.message

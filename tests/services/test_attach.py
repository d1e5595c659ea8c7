"""Safe attach's comparison on its own, without moto (tests/aws/test_attach_compare.py drives it
through `submit`): which differences between a plan's request and an existing job's description
refuse the attach, and how each is named. Written from `make mutate`'s survivors: each test here
fails on a change to services/attach.py that would attach to the wrong job or name the wrong
field."""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

import botocore.session
import pytest

from sagelaunch.services.attach import (
    COMPARED,
    TUNING_COMPARED,
    Difference,
    differences,
    tuning_differences,
)

REQUEST = {
    "TrainingJobName": "unit-1",
    "RoleArn": "arn:aws:iam::111122223333:role/SageMakerRole",
    "AlgorithmSpecification": {
        "TrainingImage": "image:1",
        "TrainingInputMode": "File",
        "MetricDefinitions": [{"Name": "loss", "Regex": "loss=(\\S+)"}],
    },
    "HyperParameters": {"epochs": "3", "lr": "0.1"},
    "InputDataConfig": [
        {"ChannelName": "train", "DataSource": {"S3DataSource": {"S3Uri": "s3://b/train"}}},
        {"ChannelName": "test", "DataSource": {"S3DataSource": {"S3Uri": "s3://b/test"}}},
    ],
    "OutputDataConfig": {"S3OutputPath": "s3://b/out"},
    "ResourceConfig": {"InstanceType": "ml.g5.2xlarge", "InstanceCount": 2},
    "StoppingCondition": {"MaxRuntimeInSeconds": 3600},
    "Tags": [{"Key": "team", "Value": "ml"}],
}


@cache
def members(operation: str, side: str) -> set[str]:
    """The top-level fields of ``operation``'s request ("input") or answer ("output") in
    botocore's SageMaker model: the oracle for which fields attach can compare."""
    model = botocore.session.get_session().get_service_model("sagemaker").operation_model(operation)
    return set(getattr(model, f"{side}_shape").members)


def described(**changes: object) -> dict[str, Any]:
    """The existing job's description: the request as AWS describes it (no Tags, defaults
    filled in), with ``changes`` on top (None deletes a field)."""
    job = copy.deepcopy({k: v for k, v in REQUEST.items() if k != "Tags"})
    job["OutputDataConfig"]["KmsKeyId"] = ""
    job["TrainingJobStatus"] = "InProgress"
    for key, value in changes.items():
        if value is None:
            job.pop(key)
        else:
            job[key] = value
    return job


def test_the_same_request_as_described_is_the_same_job():
    assert differences(REQUEST, described()) == []


def test_a_changed_value_is_named_by_its_dotted_path_with_both_values():
    resources = {"InstanceType": "ml.g5.2xlarge", "InstanceCount": 4}
    found = differences(REQUEST, described(ResourceConfig=resources))
    assert found == [Difference("ResourceConfig.InstanceCount", "2", "4")]
    assert str(found[0]) == "ResourceConfig.InstanceCount: planned 2, existing job has 4"


def test_a_key_only_the_plan_has_is_a_difference_one_only_the_job_has_is_a_default():
    output = {"S3OutputPath": "s3://b/out", "CompressionType": "GZIP"}  # filled in by AWS
    assert differences(REQUEST, described(OutputDataConfig=output)) == []
    planned = copy.deepcopy(REQUEST)
    planned["OutputDataConfig"]["KmsKeyId"] = "alias/mine"
    assert differences(planned, described(OutputDataConfig={"S3OutputPath": "s3://b/out"})) == [
        Difference("OutputDataConfig.KmsKeyId", '"alias/mine"', "(absent)")
    ]


def test_lists_compare_element_by_element_and_a_length_change_as_the_whole_list():
    channels = copy.deepcopy(REQUEST["InputDataConfig"])
    channels[1]["DataSource"]["S3DataSource"]["S3Uri"] = "s3://b/other"
    assert differences(REQUEST, described(InputDataConfig=channels)) == [
        Difference(
            "InputDataConfig[1].DataSource.S3DataSource.S3Uri", '"s3://b/test"', '"s3://b/other"'
        )
    ]
    [whole] = differences(REQUEST, described(InputDataConfig=channels[:1]))
    assert whole.path == "InputDataConfig" and whole.existing.startswith('[{"ChannelName": "train"')


def test_every_hyperparameter_counts_whichever_side_has_it():
    extra = {"epochs": "3", "lr": "0.1", "warmup": "10", "beta": "0.9"}
    assert differences(REQUEST, described(HyperParameters=extra)) == [
        Difference("HyperParameters.beta", "(absent)", '"0.9"'),
        Difference("HyperParameters.warmup", "(absent)", '"10"'),
    ]
    assert differences(REQUEST, described(HyperParameters=None)) == [
        Difference("HyperParameters.epochs", '"3"', "(absent)"),
        Difference("HyperParameters.lr", '"0.1"', "(absent)"),
    ]
    bare = {k: v for k, v in REQUEST.items() if k != "HyperParameters"}
    assert differences(bare, described(HyperParameters=None)) == []
    assert differences(bare, described(HyperParameters={"epochs": "3"})) == [
        Difference("HyperParameters.epochs", "(absent)", '"3"')
    ]


def test_a_field_whose_shape_changed_is_one_difference_shown_with_sorted_keys():
    planned = {"Environment": {"B": "1", "A": "2"}}
    assert differences(planned, {"Environment": "A"}) == [
        Difference("Environment", '{"A": "2", "B": "1"}', '"A"')
    ]


def test_a_field_the_description_lacks_or_that_is_not_compared_is_left_alone():
    assert differences(REQUEST, described(StoppingCondition=None)) == []
    assert differences(REQUEST, described(Tags=[{"Key": "team", "Value": "other"}])) == []
    metrics = dict(REQUEST["AlgorithmSpecification"], MetricDefinitions=[])
    assert differences(REQUEST, described(AlgorithmSpecification=metrics)) == []
    image = dict(REQUEST["AlgorithmSpecification"], TrainingImage="image:2")
    assert differences(REQUEST, described(AlgorithmSpecification=image)) == [
        Difference("AlgorithmSpecification.TrainingImage", '"image:1"', '"image:2"')
    ]


@pytest.mark.parametrize("field", COMPARED)
def test_each_compared_field_is_one_create_takes_and_describe_returns_and_is_compared(field):
    assert field in members("CreateTrainingJob", "input")
    assert field in members("DescribeTrainingJob", "output")
    found = differences({field: "planned"}, {field: "existing"})
    assert found == [Difference(field, '"planned"', '"existing"')]


def test_a_long_value_is_shown_cut_to_120_characters():
    long, other = {"v": "x" * 200}, {"v": "y"}
    [found] = differences({"Environment": long}, {"Environment": {**other}})
    assert found.path == "Environment.v"
    assert found.planned == '"' + "x" * 118 + "…" and len(found.planned) == 120
    exact = "z" * 118  # with its quotes, 120 characters: shown whole
    assert differences({"RoleArn": exact}, {"RoleArn": "a"})[0].planned == f'"{exact}"'


TUNING = {
    "HyperParameterTuningJobConfig": {"Strategy": "Bayesian", "ResourceLimits": {"MaxJobs": 4}},
    "TrainingJobDefinition": {
        "AlgorithmSpecification": {"TrainingImage": "image:1", "MetricDefinitions": []},
        "RoleArn": "arn:role",
    },
    "WarmStartConfig": {"WarmStartType": "TransferLearning"},
}


@pytest.mark.parametrize("field", TUNING_COMPARED)
def test_each_tuning_field_is_compared_where_the_description_has_it(field):
    assert field in members("CreateHyperParameterTuningJob", "input")
    assert field in members("DescribeHyperParameterTuningJob", "output")
    assert tuning_differences({field: 1}, {field: 2}) == [Difference(field, "1", "2")]
    assert tuning_differences({field: 1}, {field: None}) == []
    assert tuning_differences({field: 1}, {}) == []


def test_a_tuning_job_ignores_its_metric_definitions_not_the_rest_of_its_definition():
    existing = copy.deepcopy(TUNING)
    spec = existing["TrainingJobDefinition"]["AlgorithmSpecification"]
    spec["MetricDefinitions"] = [{"Name": "loss", "Regex": "x"}]
    assert tuning_differences(TUNING, existing) == []
    spec["TrainingImage"] = "image:2"
    assert tuning_differences(TUNING, existing) == [
        Difference(
            "TrainingJobDefinition.AlgorithmSpecification.TrainingImage", '"image:1"', '"image:2"'
        )
    ]

"""`plan` of a config with `tuning:` shows what the SDK's own HyperparameterTuner sends: the same
tuning jobs written by hand with the plain SDK, captured through botocore's Stubber (not through
sagelaunch's capture session), give identical CreateHyperParameterTuningJob requests — for a
PyTorch script, an XGBoost script and the built-in XGBoost algorithm, over continuous, integer
and categorical ranges with each scaling, warm start, early stopping and Hyperband."""

from __future__ import annotations

import sagemaker
import yaml
from sagemaker.inputs import TrainingInput
from sagemaker.parameter import CategoricalParameter, ContinuousParameter, IntegerParameter
from sagemaker.pytorch import PyTorch
from sagemaker.tuner import (
    HyperbandStrategyConfig,
    HyperparameterTuner,
    StrategyConfig,
    WarmStartConfig,
    WarmStartTypes,
)
from sagemaker.xgboost import XGBoost

from tests.golden.regenerate import GOLDEN, ROLE, planned
from tests.sdk.oracles import PT_METRICS, TUNING_JOB

OUT = "s3://bucket/output/"
BASE = {
    "role": ROLE,
    "region": "us-east-1",
    "output_path": OUT,
    "source_dir": str(GOLDEN / "source"),
}


def ours(tmp_path, config: dict) -> tuple[dict, str | None]:
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump({**BASE, **config}, sort_keys=False))
    plan = planned(path)
    assert plan.tuning is not None
    uri = plan.upload.s3_uri if plan.upload else None
    return plan.tuning.renamed(TUNING_JOB).request, uri


def parents_as_sets(request: dict) -> dict:
    """WarmStartConfig parents are a set in the SDK: their order is not part of the request."""
    warm = request.get("WarmStartConfig")
    if warm:
        names = {p["HyperParameterTuningJobName"] for p in warm["ParentHyperParameterTuningJobs"]}
        request = {**request, "WarmStartConfig": {**warm, "ParentHyperParameterTuningJobs": names}}
    return request


def test_pytorch_script_all_range_kinds_warm_start(tmp_path, sdk_tuning_request):
    request, code = ours(
        tmp_path,
        {
            "name": "gpt-tune",
            "framework": "pytorch",
            "entry_point": "train_pytorch.py",
            "framework_version": "2.2.0",
            "compute": {"instance_type": "ml.g5.2xlarge", "max_run": 7200},
            "hyperparameters": {"model": "gpt", "n_layer": 4, "lr": 0.001, "max_steps": 100},
            "tags": {"team": "ml"},
            "tuning": {
                "objective": {"metric": "train:loss", "type": "Minimize"},
                "ranges": {
                    "lr": {"min": 1.0e-5, "max": 1.0e-2, "scaling": "Logarithmic"},
                    "n_layer": {"min": 2, "max": 8, "type": "integer", "scaling": "Linear"},
                    "optimizer": {"values": ["adamw", "sgd"]},
                    "batch_size": {"values": [8, 16]},
                },
                "max_jobs": 20,
                "max_parallel_jobs": 4,
                "early_stopping": "Auto",
                "random_seed": 7,
                "max_runtime": 86400,
                "warm_start": {"type": "IdenticalDataAndAlgorithm", "parents": ["p-one", "p-two"]},
            },
        },
    )
    expected = sdk_tuning_request(
        lambda s: HyperparameterTuner(
            PyTorch(
                entry_point="train_pytorch.py",
                source_dir=code,
                framework_version="2.2.0",
                py_version="py310",
                role=ROLE,
                instance_type="ml.g5.2xlarge",
                instance_count=1,
                volume_size=30,
                max_run=7200,
                output_path=OUT,
                tags=[{"Key": "team", "Value": "ml"}],
                hyperparameters={"model": "gpt", "n_layer": 4, "lr": 0.001, "max_steps": 100},
                metric_definitions=PT_METRICS,
                sagemaker_session=s,
            ),
            objective_metric_name="train:loss",
            objective_type="Minimize",
            hyperparameter_ranges={
                "lr": ContinuousParameter(1e-5, 1e-2, scaling_type="Logarithmic"),
                "n_layer": IntegerParameter(2, 8, scaling_type="Linear"),
                "optimizer": CategoricalParameter(["adamw", "sgd"]),
                "batch_size": CategoricalParameter([8, 16]),
            },
            metric_definitions=PT_METRICS,
            max_jobs=20,
            max_parallel_jobs=4,
            early_stopping_type="Auto",
            random_seed=7,
            max_runtime_in_seconds=86400,
            warm_start_config=WarmStartConfig(
                WarmStartTypes.IDENTICAL_DATA_AND_ALGORITHM, parents={"p-one", "p-two"}
            ),
        )
    )
    assert parents_as_sets(request) == parents_as_sets(expected)
    static = request["TrainingJobDefinition"]["StaticHyperParameters"]
    assert "lr" not in static and static["sagemaker_estimator_class_name"] == '"PyTorch"'
    categorical = request["HyperParameterTuningJobConfig"]["ParameterRanges"]
    assert categorical["CategoricalParameterRanges"][0]["Values"] == ['"adamw"', '"sgd"']


def test_xgboost_script_random_strategy(tmp_path, sdk_tuning_request):
    channels = {"train": "s3://bucket/train/", "validation": "s3://bucket/validation/"}
    request, code = ours(
        tmp_path,
        {
            "name": "xgb-tune",
            "framework": "xgboost",
            "entry_point": "train_xgboost.py",
            "framework_version": "1.7-1",
            "compute": {"instance_type": "ml.m5.xlarge", "instance_count": 2, "max_run": 3600},
            "hyperparameters": {"objective": "reg:squarederror", "num_round": 50},
            "inputs": channels,
            "tuning": {
                "objective": {"metric": "validation:rmse", "type": "Minimize"},
                "ranges": {
                    "eta": {"min": 0.01, "max": 0.5, "scaling": "ReverseLogarithmic"},
                    "max_depth": {"min": 2, "max": 10, "type": "integer"},
                    "tree_method": {"values": ["hist", "approx"]},
                },
                "strategy": "Random",
                "max_jobs": 6,
                "max_parallel_jobs": 2,
            },
        },
    )
    expected = sdk_tuning_request(
        lambda s: HyperparameterTuner(
            XGBoost(
                entry_point="train_xgboost.py",
                source_dir=code,
                framework_version="1.7-1",
                py_version="py3",
                role=ROLE,
                instance_type="ml.m5.xlarge",
                instance_count=2,
                volume_size=30,
                max_run=3600,
                output_path=OUT,
                hyperparameters={"objective": "reg:squarederror", "num_round": 50},
                metric_definitions=XGB_METRICS,
                sagemaker_session=s,
            ),
            objective_metric_name="validation:rmse",
            objective_type="Minimize",
            hyperparameter_ranges={
                "eta": ContinuousParameter(0.01, 0.5, scaling_type="ReverseLogarithmic"),
                "max_depth": IntegerParameter(2, 10),
                "tree_method": CategoricalParameter(["hist", "approx"]),
            },
            metric_definitions=XGB_METRICS,
            strategy="Random",
            max_jobs=6,
            max_parallel_jobs=2,
        ),
        {name: TrainingInput(uri) for name, uri in channels.items()},
    )
    assert request == expected


def test_builtin_xgboost_hyperband_keeps_categoricals_plain(tmp_path, sdk_tuning_request):
    channels = {"train": "s3://bucket/train/", "validation": "s3://bucket/validation/"}
    request, _ = ours(
        tmp_path,
        {
            "name": "xgb-builtin-tune",
            "framework": "xgboost",
            "framework_version": "1.7-1",
            "compute": {"instance_type": "ml.m5.2xlarge", "max_run": 3600},
            "hyperparameters": {"objective": "reg:squarederror", "num_round": 100},
            "inputs": channels,
            "tuning": {
                "objective": {"metric": "validation:rmse", "type": "Minimize"},
                "ranges": {
                    "alpha": {"min": 0.0, "max": 2.0, "scaling": "Linear"},
                    "booster": {"values": ["gbtree", "dart"]},
                },
                "strategy": "Hyperband",
                "hyperband": {"min_resource": 10, "max_resource": 100},
                "max_jobs": 10,
                "max_parallel_jobs": 3,
            },
        },
    )
    image = sagemaker.image_uris.retrieve("xgboost", "us-east-1", "1.7-1", "ml.m5.2xlarge")

    def make(s):
        estimator = sagemaker.estimator.Estimator(
            image_uri=image,
            role=ROLE,
            instance_type="ml.m5.2xlarge",
            instance_count=1,
            volume_size=30,
            max_run=3600,
            output_path=OUT,
            sagemaker_session=s,
        )
        estimator.set_hyperparameters(objective="reg:squarederror", num_round=100)
        return HyperparameterTuner(
            estimator,
            objective_metric_name="validation:rmse",
            objective_type="Minimize",
            hyperparameter_ranges={
                "alpha": ContinuousParameter(0.0, 2.0, scaling_type="Linear"),
                "booster": CategoricalParameter(["gbtree", "dart"]),
            },
            strategy="Hyperband",
            strategy_config=StrategyConfig(
                HyperbandStrategyConfig(min_resource=10, max_resource=100)
            ),
            max_jobs=10,
            max_parallel_jobs=3,
        )

    expected = sdk_tuning_request(
        make, {name: TrainingInput(uri) for name, uri in channels.items()}
    )
    assert request == expected
    ranges = request["HyperParameterTuningJobConfig"]["ParameterRanges"]
    assert ranges["CategoricalParameterRanges"][0]["Values"] == ["gbtree", "dart"]
    assert (
        "sagemaker_estimator_class_name"
        not in (request["TrainingJobDefinition"]["StaticHyperParameters"])
    )


XGB_METRICS = [
    {
        "Name": f"{channel}:{metric}",
        "Regex": rf"{channel}-{metric}:([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)",
    }
    for channel in ("train", "validation")
    for metric in ("rmse", "logloss", "auc", "error", "mae")
]

"""Tuning jobs written by others (tests/sdk/public_setups.py TUNINGS): the SDK's own
HyperparameterTuner request, captured offline, `import`s into a config with `tuning:` whose plan
sends the same CreateHyperParameterTuningJob request (the tuning job's name and the code
location aside)."""

from __future__ import annotations

import json

import pytest
import yaml

from sagelaunch.sdk.capture import build_estimator, capture, fit_inputs
from sagelaunch.sdk.estimator import EstimatorSpec
from sagelaunch.sdk.objects import materialize
from sagelaunch.sdk.runtime import sagemaker
from sagelaunch.services.importing import launch_config
from sagelaunch.services.planning import make_plan
from tests.sdk.public_setups import SETUPS, TUNINGS, PublicTuning
from tests.sdk.test_public_setups import DEFAULT_BUCKET

TUNING_JOB = "tuning-2026-01-01"
JOB = "tuned-2026-01-01-00-00-00-000"


def sdk_tuning_request(tuning: PublicTuning) -> dict:
    setup = SETUPS[tuning.setup]
    inputs = setup.inputs if tuning.inputs is None else tuning.inputs
    spec = EstimatorSpec(setup.cls, setup.kwargs, inputs, setup.set_hyperparameters)

    def fit(session) -> None:
        session._default_bucket = DEFAULT_BUCKET  # found already: the SDK asks STS nothing
        estimator = build_estimator(spec, session)
        tuner = sagemaker().tuner.HyperparameterTuner(estimator, **materialize(tuning.kwargs))
        tuner.fit(fit_inputs(spec) or None, job_name=TUNING_JOB, wait=False)

    return capture(fit, setup.region, operation="CreateHyperParameterTuningJob")


def planned_tuning_request(request: dict, folder) -> dict:
    config = launch_config(request, source_dir="code")
    if "entry_point" in config:
        script = folder / "code" / config["entry_point"]
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text("print('train')\n")
    path = folder / "tuning.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    plan = make_plan(path, None, None, JOB, cache_dir=folder / "cache").plan
    assert plan.tuning is not None, "the imported config has its tuning: block"
    return plan.tuning.request


def without_names(request: dict) -> dict:
    """The tuning request with its job name (wherever the SDK writes it, such as the default
    model_dir) and code location blanked."""
    name = request["HyperParameterTuningJobName"]
    request = json.loads(json.dumps(request).replace(name, "NAME"))
    statics = request["TrainingJobDefinition"].get("StaticHyperParameters", {})
    for key in ("sagemaker_job_name", "sagemaker_submit_directory"):
        if key in statics:
            statics[key] = key.upper()
    return request


@pytest.mark.parametrize("name", sorted(TUNINGS))
def test_import_then_plan_sends_the_sdks_tuning_request(tmp_path, name):
    request = sdk_tuning_request(TUNINGS[name])
    replanned = planned_tuning_request(request, tmp_path)
    assert without_names(replanned) == without_names(request)


def test_a_describe_answer_imports_like_the_request(tmp_path):
    request = sdk_tuning_request(TUNINGS["sdk-tuner-tf"])
    described = {
        **request,
        "HyperParameterTuningJobArn": f"arn:aws:sagemaker:us-west-2:1:tuning-job/{TUNING_JOB}",
        "HyperParameterTuningJobStatus": "Completed",
        "TrainingJobStatusCounters": {"Completed": 2},
        "BestTrainingJob": {"TrainingJobName": "x"},
    }
    assert launch_config(described, "code") == launch_config(request, "code")


def test_what_no_key_expresses_is_refused_by_name():
    request = sdk_tuning_request(TUNINGS["sdk-tuner-tf"])
    request["HyperParameterTuningJobConfig"]["TuningJobCompletionCriteria"] = {
        "TargetObjectiveMetricValue": 0.9
    }
    with pytest.raises(Exception, match="TuningJobCompletionCriteria"):
        launch_config(request, "code")

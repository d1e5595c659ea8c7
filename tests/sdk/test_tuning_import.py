"""Tuning jobs written by others (tests/sdk/public_setups.py TUNINGS): the SDK's own
HyperparameterTuner request, captured offline, `import`s into a config with `tuning:` whose plan
sends the same CreateHyperParameterTuningJob request, its name included: a name the source gives
fit(job_name=...) is the config's tuning.job_name; a tuner fit without one names the job from its
base_tuning_job_name (cut to 20 characters) and the clock, which is frozen here for the SDK, and
plan is told the training job name the SDK's estimator gave itself at that moment (TensorFlow
names its default model_dir after it). Only the code location moves, and, for a tuner fit
without a name, the static sagemaker_job_name: the SDK writes the estimator's own job name
there, sagelaunch the tuning job's (it fits the tuner with the tuning job's name; the golden
plans hold that)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import yaml

from sagelaunch.hyperparameters import decode
from sagelaunch.sdk.capture import build_estimator, capture, fit_inputs
from sagelaunch.sdk.estimator import EstimatorSpec
from sagelaunch.sdk.objects import materialize
from sagelaunch.sdk.runtime import sagemaker
from sagelaunch.services.importing import launch_config
from sagelaunch.services.planning import make_plan
from tests.sdk.public_setups import SETUPS, TUNINGS, PublicTuning
from tests.sdk.test_public_setups import DEFAULT_BUCKET

TUNING_JOB = "tuning-2026-01-01"
# The SDK's clock, frozen: name_from_base's timestamps (sagemaker.utils) at 2026-01-01 00:00 UTC.
TIMESTAMP, SHORT_TIMESTAMP = "2026-01-01-00-00-00-000", "260101-0000"
JOB = f"tuned-{TIMESTAMP}"


@contextmanager
def frozen_sdk_clock() -> Iterator[None]:
    utils = sagemaker().utils
    saved = utils.sagemaker_timestamp, utils.sagemaker_short_timestamp
    utils.sagemaker_timestamp = lambda: TIMESTAMP
    utils.sagemaker_short_timestamp = lambda: SHORT_TIMESTAMP
    try:
        yield
    finally:
        utils.sagemaker_timestamp, utils.sagemaker_short_timestamp = saved


def sdk_tuning_request(tuning: PublicTuning, job_name: str | None = None) -> dict:
    """The source's tuner.fit(), named as the source names it (``job_name`` overrides)."""
    setup = SETUPS[tuning.setup]
    inputs = setup.inputs if tuning.inputs is None else tuning.inputs
    spec = EstimatorSpec(setup.cls, setup.kwargs, inputs, setup.set_hyperparameters)

    def fit(session) -> None:
        session._default_bucket = DEFAULT_BUCKET  # found already: the SDK asks STS nothing
        estimator = build_estimator(spec, session)
        tuner = sagemaker().tuner.HyperparameterTuner(estimator, **materialize(tuning.kwargs))
        name = job_name or tuning.job_name
        tuner.fit(fit_inputs(spec) or None, job_name=name, wait=False)

    with frozen_sdk_clock():
        return capture(fit, setup.region, operation="CreateHyperParameterTuningJob")


def estimators_job(request: dict) -> str:
    """The training job name the SDK's estimator gave itself (the static sagemaker_job_name of a
    framework estimator), else one made at the same frozen moment."""
    statics = request["TrainingJobDefinition"].get("StaticHyperParameters", {})
    written = decode(statics.get("sagemaker_job_name", "null"))
    name = request["HyperParameterTuningJobName"]
    return written if isinstance(written, str) and written != name else JOB


def planned_tuning_request(request: dict, folder, job_name: str | None = JOB) -> dict:
    config = launch_config(request, source_dir="code")
    if "entry_point" in config:
        script = folder / "code" / config["entry_point"]
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text("print('train')\n")
    path = folder / "tuning.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    plan = make_plan(path, None, None, job_name, cache_dir=folder / "cache").plan
    assert plan.tuning is not None, "the imported config has its tuning: block"
    return plan.tuning.request


def without_code_location(request: dict, *, job_name: bool = False) -> dict:
    """The tuning request with its code location blanked (and the static sagemaker_job_name,
    with ``job_name``)."""
    request = json.loads(json.dumps(request))
    statics = request["TrainingJobDefinition"].get("StaticHyperParameters", {})
    for key in ("sagemaker_submit_directory", "sagemaker_job_name" if job_name else ""):
        if key in statics:
            statics[key] = key.upper()
    return request


def without_names(request: dict) -> dict:
    """The tuning request with its job name (wherever the SDK writes it, such as the default
    model_dir) and code location blanked."""
    name = request["HyperParameterTuningJobName"]
    request = json.loads(json.dumps(request).replace(name, "NAME"))
    return without_code_location(request, job_name=True)


@pytest.mark.parametrize("name", sorted(TUNINGS))
def test_import_then_plan_sends_the_sdks_tuning_request(tmp_path, name):
    tuning = TUNINGS[name]
    request = sdk_tuning_request(tuning)
    told = estimators_job(request) if tuning.job_name is None else None
    replanned = planned_tuning_request(request, tmp_path, told)
    unnamed = tuning.job_name is None  # only then is sagemaker_job_name the estimator's
    assert without_code_location(replanned, job_name=unnamed) == without_code_location(
        request, job_name=unnamed
    )


@pytest.mark.parametrize("name", sorted(TUNINGS))
def test_under_another_exact_name_too(tmp_path, name):
    """Any setup fit with an exact name instead imports that name and plans it back."""
    request = sdk_tuning_request(TUNINGS[name], job_name=TUNING_JOB)
    assert launch_config(request, "code")["tuning"]["job_name"] == TUNING_JOB
    replanned = planned_tuning_request(request, tmp_path, None)
    assert without_code_location(replanned) == without_code_location(request)


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

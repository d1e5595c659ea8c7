"""Issue 43, the last migration gaps, each checked against the SDK itself: the request a
hand-written SDK script sends (captured through botocore's Stubber, as test_import_exact.py does,
or through the SDK's own tuner as test_tuning_import.py does, its clock frozen) is what `plan`
sends for the config written like it, and what `plan` sends again after `import`.

- a channel whose input_mode is set to the job's own (TrainingInput(..., input_mode="File")):
  the SDK sends InputDataConfig[i].InputMode, so plan does and import keeps it;
- tuning.job_name, the SDK's tuner.fit(job_name=...), exact; a tuning.base_name longer than 20
  characters cut as the SDK cuts it (yolov5-project-hpo-5-<yymmdd-HHMM>), with a warning;
- TensorFlow's default model_dir in a tuning job named after the estimator's own job, as the SDK
  names it (s3://bucket/tensorboard-example-hpo-<timestamp>/model), or after an exact name;
- import keeps what plan cannot derive back: an exact job name (job_name:), a model_dir naming
  another job; and what it can, it leaves to plan (the default model_dir);
- a cached plan and an idempotency key keep all of that stable.

The tuners are public ones (tests/sdk/public_setups.py TUNINGS, each with its source):
aws/amazon-sagemaker-examples archived/tensorboard_keras/tensorboard_keras.ipynb (the
tensorboard-example-hpo estimator, base_tuning_job_name remote-hpo, fit() without a name),
archived/pytorch_yolov5_training_and_hpo/transfer_learning_and_hpo_yolov5.ipynb (a 55-character
base), aws/sagemaker-python-sdk tests/integ/test_tuner.py (test_tuning_tf: fit(job_name=...)),
and the training jobs build-on-aws/content's TensorFlow tutorial names exactly.
"""

from __future__ import annotations

import json

import pytest
import yaml
from sagemaker.inputs import TrainingInput
from sagemaker.pytorch import PyTorch
from sagemaker.tensorflow import TensorFlow

from sagelaunch.checks.validation import load_valid
from sagelaunch.hyperparameters import decode
from sagelaunch.services.importing import launch_config
from sagelaunch.services.planning import make_plan
from sagelaunch.translate.importer import import_request
from tests.sdk.oracles import fitted
from tests.sdk.public_setups import KERAS_INPUTS, KERAS_METRICS, SETUPS, TUNINGS
from tests.sdk.test_import_exact import OUT, ROLE, captured, replanned, without_code_location
from tests.sdk.test_tuning_import import JOB, estimators_job, sdk_tuning_request
from tests.sdk.test_tuning_import import without_code_location as tuning_without_code_location

pytestmark = pytest.mark.usefixtures("no_telemetry")


def tensorflow(session, **kwargs):
    return TensorFlow(
        entry_point="train.py",
        source_dir="s3://bkt/code/sourcedir.tar.gz",
        role=ROLE,
        framework_version="2.14.1",
        py_version="py310",
        instance_type="ml.c5.xlarge",
        instance_count=1,
        output_path=OUT,
        sagemaker_session=session,
        **kwargs,
    )


def pytorch(session, **kwargs):
    return PyTorch(
        entry_point="train.py",
        source_dir="s3://bkt/code/sourcedir.tar.gz",
        role=ROLE,
        framework_version="2.2.0",
        py_version="py310",
        instance_type="ml.g5.xlarge",
        instance_count=1,
        output_path=OUT,
        sagemaker_session=session,
        **kwargs,
    )


@pytest.mark.parametrize(
    ("job_mode", "channel_mode"),
    [(None, "File"), ("FastFile", "FastFile"), ("Pipe", "File"), (None, None)],
)
def test_a_channel_input_mode_set_to_the_jobs_is_sent_and_imported(
    tmp_path, job_mode, channel_mode
):
    extra = {"input_mode": job_mode} if job_mode else {}
    modes = {"input_mode": channel_mode} if channel_mode else {}
    inputs = {
        "train": TrainingInput("s3://bkt/train/", **modes),
        "validation": TrainingInput("s3://bkt/validation/"),
    }
    sent = captured(lambda s: pytorch(s, **extra), inputs)
    channels = {c["ChannelName"]: c for c in sent["InputDataConfig"]}
    assert channels["train"].get("InputMode") == channel_mode  # the SDK sends what it is given
    assert "InputMode" not in channels["validation"]
    config = import_request(sent, source_dir="code")
    assert config["inputs"]["train"].get("input_mode") == channel_mode
    assert "input_mode" not in config["inputs"]["validation"]
    assert without_code_location(replanned(sent, tmp_path)) == without_code_location(sent)


def test_a_config_that_leaves_input_mode_unset_plans_as_before(tmp_path):
    """The default stays unset: nothing is sent (the golden plans hold the rest)."""
    path = tmp_path / "job.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "name": "channels",
                "framework": "pytorch",
                "entry_point": "train.py",
                "framework_version": "2.2.0",
                "role": ROLE,
                "output_path": OUT,
                "compute": {"instance_type": "ml.g5.xlarge"},
                "inputs": {"train": "s3://bkt/train/", "test": {"uri": "s3://bkt/test/"}},
            }
        )
    )
    (tmp_path / "train.py").write_text("print('train')\n")
    loaded, _ = load_valid(path)
    assert all(channel.input_mode is None for channel in loaded.config.inputs.values())


def test_a_file_system_channel_has_no_input_mode_of_its_own(tmp_path):
    request = captured(pytorch, {"train": TrainingInput("s3://bkt/train/")})
    request["InputDataConfig"].append(
        {
            "ChannelName": "fsx",
            "InputMode": "File",
            "DataSource": {
                "FileSystemDataSource": {
                    "FileSystemId": "fs-0123456789abcdef0",
                    "FileSystemType": "FSxLustre",
                    "DirectoryPath": "/fsx/data",
                    "FileSystemAccessMode": "ro",
                }
            },
        }
    )
    with pytest.raises(Exception, match=r"InputDataConfig\[fsx\].InputMode"):
        import_request(request, source_dir="code")


def test_a_file_system_channel_with_input_mode_is_refused_at_its_line(cli, tmp_path):
    path = tmp_path / "job.yaml"
    path.write_text(
        "name: fsx\nframework: pytorch\nentry_point: train.py\nframework_version: '2.2.0'\n"
        "compute: {instance_type: ml.g5.xlarge}\ninputs:\n"
        "  fsx: {file_system: {type: FSxLustre, id: fs-0123456789abcdef0, path: /fsx/d},"
        " input_mode: File}\n"
    )
    (tmp_path / "train.py").write_text("print('train')\n")
    result = cli("validate", path)
    assert result.exit_code == 2
    assert "a file_system channel has none of its own" in result.output


# --- tuning job names and TensorFlow's model_dir ------------------------------------------------
# Configs written as the public tuners are (public_setups.py TUNINGS), planned at the SDK's frozen
# moment: the tuning request is the SDK's, field for field (the static sagemaker_job_name aside
# where the source fits the tuner without a name: see test_tuning_import.py).

KERAS = TUNINGS["examples-tensorboard-keras-hpo"]
YOLOV5 = TUNINGS["examples-yolov5-hpo"]
TUNE_TF = TUNINGS["sdk-tuner-tf"]
BUCKET = "s3://amzn-s3-demo-bucket"
KERAS_RANGES = {
    "learning-rate": {"min": 0.00001, "max": 0.001},
    "batch-size": {"values": [64, 128]},
    "optimizer": {"values": ["sgd", "adam", "rmsprop"]},
}


def keras_config(**tuning) -> dict:
    """The tensorboard_keras notebook's estimator and tuner as a launch config."""
    estimator = SETUPS["examples-tensorboard-keras-hpo-estimator"].kwargs
    return {
        "name": "tensorboard-example-hpo",
        "framework": "tensorflow",
        "entry_point": "tensorboard_keras_cifar10.py",
        "framework_version": "2.2.0",
        "py_version": "py37",
        "role": ROLE,
        "region": "us-west-2",
        "output_path": f"{BUCKET}/",
        "input_mode": "Pipe",
        "compute": {"instance_type": "ml.p3.2xlarge"},
        "hyperparameters": estimator["hyperparameters"],
        "metrics": [{"name": m["Name"], "regex": m["Regex"]} for m in KERAS_METRICS],
        "inputs": {name: channel.kwargs["s3_data"] for name, channel in KERAS_INPUTS.items()},
        "tuning": {
            "objective": {"metric": "validation:accuracy", "type": "Maximize"},
            "ranges": KERAS_RANGES,
            "max_jobs": 4,
            "max_parallel_jobs": 2,
            "early_stopping": "Auto",
            **tuning,
        },
    }


def planned(folder, config: dict, job_name: str | None):
    (folder / "code").mkdir(exist_ok=True)
    (folder / "code" / str(config["entry_point"])).write_text("print('train')\n")
    path = folder / "job.yaml"
    path.write_text(yaml.safe_dump({**config, "source_dir": "code"}, sort_keys=False))
    return make_plan(path, None, None, job_name, cache_dir=folder / "cache").plan


def test_tensorflow_model_dir_is_named_after_the_estimators_own_job(tmp_path):
    """The issue's case: the SDK names it s3://bucket/tensorboard-example-hpo-<timestamp>/model
    (the estimator's job), not after the tuning job remote-hpo-<short timestamp>."""
    sent = sdk_tuning_request(KERAS)
    estimator_job = estimators_job(sent)
    assert estimator_job == "tensorboard-example-hpo-2026-01-01-00-00-00-000"
    plan = planned(tmp_path, keras_config(base_name="remote-hpo"), estimator_job)
    assert plan.tuning is not None
    ours = plan.tuning.request
    statics = ours["TrainingJobDefinition"]["StaticHyperParameters"]
    assert ours["HyperParameterTuningJobName"] == "remote-hpo-260101-0000"
    assert decode(statics["model_dir"]) == f"{BUCKET}/{estimator_job}/model"
    assert tuning_without_code_location(ours, job_name=True) == tuning_without_code_location(
        sent, job_name=True
    )
    # The training request of the same plan names the same model_dir (one job, one moment).
    assert plan.request["HyperParameters"]["model_dir"] == statics["model_dir"]


def test_an_exact_tuning_job_name_is_sent_as_fit_job_name_sends_it(tmp_path):
    """tuning.job_name: the SDK's tuner.fit(job_name=...), model_dir named after it as the SDK
    names it; the whole request equal, sagemaker_job_name included."""
    sent = sdk_tuning_request(KERAS, job_name=TUNE_TF.job_name)
    plan = planned(tmp_path, keras_config(job_name=TUNE_TF.job_name), None)
    assert plan.tuning is not None and plan.tuning.job_name == TUNE_TF.job_name
    statics = plan.tuning.request["TrainingJobDefinition"]["StaticHyperParameters"]
    assert decode(statics["model_dir"]) == f"{BUCKET}/{TUNE_TF.job_name}/model"
    assert tuning_without_code_location(plan.tuning.request) == tuning_without_code_location(sent)


def test_a_long_tuning_base_is_cut_as_the_sdk_cuts_it_with_a_warning(tmp_path, cli):
    """yolov5's 55-character base: the SDK sends yolov5-project-hpo-5-<yymmdd-HHMM>."""
    base = YOLOV5.kwargs["base_tuning_job_name"]
    assert len(base) == 55
    sent = sdk_tuning_request(YOLOV5)
    assert sent["HyperParameterTuningJobName"] == "yolov5-project-hpo-5-260101-0000"
    config = keras_config(base_name=base)
    plan = planned(tmp_path, config, JOB)
    assert plan.tuning is not None
    assert plan.tuning.job_name == sent["HyperParameterTuningJobName"]
    result = cli("plan", tmp_path / "job.yaml", "-o", "json", "--job-name", JOB)
    assert result.exit_code == 0, result.output
    warnings = [w["message"] for w in json.loads(result.stdout)["warnings"]]
    assert any("keep the first 20 ('yolov5-project-hpo-5')" in w for w in warnings), warnings


@pytest.mark.parametrize(
    ("tuning", "message"),
    [
        ({"job_name": "n" * 33}, "at most 32 characters"),
        ({"job_name": "bad_name"}, "String should match pattern"),
        ({"base_name": "bad_name"}, "String should match pattern"),
        ({"job_name": "exact", "base_name": "base"}, "give one"),
    ],
)
def test_tuning_names_are_checked_at_their_key(tmp_path, cli, tuning, message):
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(keras_config(**tuning), sort_keys=False))
    (tmp_path / "tensorboard_keras_cifar10.py").write_text("print('train')\n")
    result = cli("validate", path)
    assert result.exit_code == 2 and message in result.output, result.output
    assert "tuning" in result.output


def test_import_of_the_notebooks_tuning_job_names_what_it_named(tmp_path):
    """The estimator's base becomes the config's name (model_dir derived from it again), the
    tuner's base tuning.base_name; an exact name tuning.job_name; no model_dir pinned."""
    config = launch_config(sdk_tuning_request(KERAS), "code")
    assert config["name"] == "tensorboard-example-hpo"
    assert config["tuning"]["base_name"] == "remote-hpo"
    assert "model_dir" not in config and "job_name" not in config
    exact = launch_config(sdk_tuning_request(TUNE_TF), "code")
    assert exact["tuning"]["job_name"] == TUNE_TF.job_name and "model_dir" not in exact
    cut = launch_config(sdk_tuning_request(YOLOV5), "code")
    assert cut["tuning"]["base_name"] == "yolov5-project-hpo-5"


def test_a_tuning_plans_own_import_keeps_its_names(tmp_path):
    """sagelaunch's own TensorFlow tuning plan (the static sagemaker_job_name is the tuning
    job's): import reads the estimator's job from the model_dir, and plan derives it again."""
    plan = planned(tmp_path, keras_config(base_name="remote-hpo"), JOB)
    assert plan.tuning is not None
    config = launch_config(plan.tuning.request, "code")
    assert (config["name"], config["tuning"]["base_name"]) == ("tuned", "remote-hpo")
    assert "model_dir" not in config
    (tmp_path / "again").mkdir()
    again = planned(tmp_path / "again", config, JOB)
    assert again.tuning is not None
    assert again.tuning.request == plan.tuning.request


def test_import_keeps_a_model_dir_that_names_another_job(tmp_path):
    """TensorFlow(model_dir=...) naming an earlier job: plan cannot derive it, import keeps it."""
    earlier = "s3://bkt/out/earlier-job-2025-12-31-00-00-00-000/model"
    sent = captured(lambda s: tensorflow(s, model_dir=earlier))
    config = import_request(sent, source_dir="code")
    assert config["model_dir"] == earlier
    assert without_code_location(replanned(sent, tmp_path)) == without_code_location(sent)


def test_an_exact_tensorflow_job_name_keeps_its_model_dir_with_it(tmp_path):
    """The issue's case: an exact name imported as a base planned a new timestamped name, and
    TensorFlow's model_dir with it. Imported as job_name, plan sends the request as it was,
    name and model_dir included, without being told a name."""
    exact = "tensorflow-single-gpu-2026-01-01-00-00-00"
    sent = fitted(tensorflow, job_name=exact, default_bucket="bkt")
    assert decode(sent["HyperParameters"]["model_dir"]) == f"{OUT}{exact}/model"
    config = import_request(sent, source_dir="code")
    assert (config["job_name"], config.get("model_dir")) == (exact, None)
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "train.py").write_text("print('train')\n")
    path = tmp_path / "imported.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    plan = make_plan(path, None, None, None, cache_dir=tmp_path / "cache").plan
    assert without_code_location(plan.request) == without_code_location(sent)


def test_a_cached_tensorflow_tuning_plan_moves_its_model_dir_with_the_job_name(tmp_path):
    """A cached plan renamed (retarget) equals planning again under the new name: the tuning
    request's model_dir names the new training job, in the request and the tuner's spec."""
    config = keras_config(base_name="remote-hpo")
    first = planned(tmp_path, config, JOB)
    later = "tensorboard-example-hpo-2026-02-03-04-05-06-789"
    cached = planned(tmp_path, config, later)  # the same cache folder: renamed, not planned
    (tmp_path / "fresh").mkdir()
    fresh = planned(tmp_path / "fresh", config, later)
    assert first.tuning is not None and cached.tuning is not None and fresh.tuning is not None
    assert cached.tuning.request == fresh.tuning.request
    assert cached.tuning.tuner == fresh.tuning.tuner
    assert fresh.tuning.tuner["estimator_kwargs"] == {"model_dir": f"{BUCKET}/{later}/model"}


def test_idempotency_keys_name_tensorflow_jobs_the_same_at_any_moment(tmp_path):
    """TensorFlow's default model_dir carries the planned (timestamped) name; the name for a key
    hashes the request with that name left out, as the name fields are: a retried step gets the
    same training job and the same tuning job, with the same request."""
    from sagelaunch.services.submit import idempotent_name
    from sagelaunch.services.tune import named

    config = keras_config(base_name="remote-hpo")
    plans = []
    for moment in ("2026-01-01-00-00-00-000", "2026-01-02-03-04-05-006"):
        (tmp_path / moment).mkdir()
        plans.append(planned(tmp_path / moment, config, f"tensorboard-example-hpo-{moment}"))
    names = {idempotent_name(p.job_name, "ci-42", p.request) for p in plans}
    assert len(names) == 1
    (name,) = names
    renamed = [p.renamed(name).request for p in plans]
    assert renamed[0] == renamed[1]
    tunings = [named(p.tuning, "ci-42", p.job_name) for p in plans if p.tuning is not None]
    assert tunings[0].job_name == tunings[1].job_name
    assert tunings[0].request == tunings[1].request
    statics = tunings[0].request["TrainingJobDefinition"]["StaticHyperParameters"]
    # Named by sagelaunch, as tuner.fit(job_name=...) is: model_dir after that name.
    assert decode(statics["model_dir"]) == f"{BUCKET}/{tunings[0].job_name}/model"
    other = named(plans[0].tuning, "ci-43", plans[0].job_name)  # type: ignore[arg-type]
    assert other.job_name != tunings[0].job_name

"""TensorFlow plans are what the hand-written SDK `TensorFlow` estimator sends (the same stubbed
route as tests/sdk/oracles.py), including the SDK's own model_dir."""

from __future__ import annotations

from sagemaker.tensorflow import TensorFlow

from sagelaunch import bundle
from sagelaunch.checks.validation import load_valid
from sagelaunch.services.planning import build_plan
from tests.conftest import EXAMPLES
from tests.golden.regenerate import GOLDEN, ROLE
from tests.sdk.oracles import TEAM, ours

TF_METRICS = [
    {"Name": "train:loss", "Regex": r"train_loss=([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"},
    {
        "Name": "train:samples_per_sec",
        "Regex": r"samples_per_sec=([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)",
    },
]
HIDDEN = {"hidden": 256, "batch_size": 128, "epochs": 10}


def test_parameter_servers_with_the_sdks_s3_model_dir(sdk_request):
    request, code = ours("tf-ps-local")
    expected = sdk_request(
        lambda s: TensorFlow(
            entry_point="train_tensorflow.py",
            source_dir=code,
            framework_version="2.19.0",
            py_version="py312",
            role=ROLE,
            instance_type="ml.c5.2xlarge",
            instance_count=2,
            max_run=3600,
            output_path="s3://sagelaunch-examples/output/",
            checkpoint_s3_uri="s3://sagelaunch-examples/checkpoints/keras-ps/",
            hyperparameters={
                "hidden": 32,
                "batch_size": 32,
                "lr": 0.05,
                "max_steps": 500,
                "checkpoint_every": 100,
            },
            metric_definitions=TF_METRICS,
            distribution={"parameter_server": {"enabled": True}},
            sagemaker_session=s,
        )
    )
    assert request == expected
    assert request["HyperParameters"]["model_dir"].endswith(
        '/golden-job-2026-01-01-00-00-00-000/model"'
    )


def test_horovod_gets_the_local_model_dir(sdk_request):
    request, code = ours("tf-horovod-p3")
    mpi = {
        "enabled": True,
        "processes_per_host": 8,
        "custom_mpi_options": "-x HOROVOD_TIMELINE=/opt/ml/output/data/timeline.json",
    }
    expected = sdk_request(
        lambda s: TensorFlow(
            entry_point="train_tensorflow.py",
            source_dir=code,
            framework_version="2.16.2",
            py_version="py310",
            instance_type="ml.p3.16xlarge",
            instance_count=2,
            hyperparameters=HIDDEN,
            metric_definitions=TF_METRICS,
            distribution={"mpi": mpi},
            sagemaker_session=s,
            **TEAM,
        )
    )
    assert request == expected
    assert request["HyperParameters"]["model_dir"] == '"/opt/ml/model"'


def test_model_dir_false_passes_none(sdk_request):
    request, code = ours("tf-mirrored-g5")
    expected = sdk_request(
        lambda s: TensorFlow(
            entry_point="train_tensorflow.py",
            source_dir=code,
            framework_version="2.19",
            py_version="py312",
            instance_type="ml.g5.12xlarge",
            instance_count=1,
            model_dir=False,
            hyperparameters={**HIDDEN, "batch_size": 256},
            metric_definitions=TF_METRICS,
            sagemaker_session=s,
            **TEAM,
        )
    )
    assert request == expected and "model_dir" not in request["HyperParameters"]


def test_a_renamed_plan_moves_the_default_model_dir_with_the_name():
    loaded, warnings = load_valid(EXAMPLES / "tf-mwms-local.yaml")
    code = bundle.build(GOLDEN / "source")

    def plan(name: str):
        return build_plan(
            loaded, job_name=name, region="us-east-1", role=ROLE, bundle=code, warnings=warnings
        )

    renamed = plan("first-2026-01-01-00-00-00-000").renamed("second-2026-01-01-00-00-00-000")
    assert renamed.request == plan("second-2026-01-01-00-00-00-000").request

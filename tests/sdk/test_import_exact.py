"""Migrating from the SDK, exactly: a request captured from the SDK's own estimator for real-world
shapes (and for generated estimator kwargs) is planned back field for field after `import`, and a
config written like it plans to what the SDK sends. Only the job name and code location move."""

from __future__ import annotations

import json

import pytest
import sagemaker
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sagemaker.estimator import Estimator
from sagemaker.inputs import TrainingInput
from sagemaker.pytorch import PyTorch
from sagemaker.tensorflow import TensorFlow
from sagemaker.xgboost import XGBoost

from sagelaunch import bundle
from sagelaunch.checks.validation import load_valid
from sagelaunch.services.planning import build_plan
from sagelaunch.translate.importer import import_request
from tests.sdk.oracles import fitted

ROLE = "arn:aws:iam::111122223333:role/SageMakerRole"
JOB = "migrated-job-2026-01-01-00-00-00-000"
CODE = "s3://bkt/code/sourcedir.tar.gz"
OUT = "s3://bkt/out/"


pytestmark = pytest.mark.usefixtures("no_telemetry")


def captured(make, inputs=None, region="us-east-1"):
    """What `estimator.fit()` sends for the migrated job, the session's bucket found already."""
    return fitted(make, inputs, job_name=JOB, region=region, default_bucket="bkt")


def replanned(request, folder):
    """import -> a config file beside a code folder -> plan, with the region the config names."""
    code = folder / "code"
    code.mkdir(exist_ok=True)
    (code / "train.py").write_text("print('train')\n")
    path = folder / "imported.yaml"
    path.write_text(yaml.safe_dump(import_request(request, source_dir="code"), sort_keys=False))
    loaded, warnings = load_valid(path)
    built = None if loaded.config.is_builtin_algorithm else bundle.build(code)
    region = loaded.config.region
    assert region, "the imported config names its region"
    plan = build_plan(
        loaded, job_name=JOB, region=region, role=ROLE, bundle=built, warnings=warnings
    )
    return plan.as_json()["request"]


def without_code_location(request):
    """The request with its code location blanked (the one thing import may move)."""
    request = json.loads(json.dumps(request))
    hps = request.get("HyperParameters", {})
    if str(hps.get("sagemaker_submit_directory", "")).startswith('"s3://'):
        hps["sagemaker_submit_directory"] = "CODE"
    for channel in request.get("InputDataConfig", []):
        if channel["ChannelName"] == "code":
            channel["DataSource"]["S3DataSource"]["S3Uri"] = "CODE"
    return request


def assert_round_trip(request, folder):
    assert without_code_location(replanned(request, folder)) == without_code_location(request)


def pytorch(**kwargs):
    base = {
        "entry_point": "train.py",
        "source_dir": CODE,
        "role": ROLE,
        "output_path": OUT,
        "instance_type": "ml.g5.2xlarge",
        "instance_count": 1,
    }
    return lambda s: PyTorch(sagemaker_session=s, **{**base, **kwargs})


# Shapes from public SageMaker examples and the SDK's integration tests (each written here).
REAL_SHAPES = {
    "checkpoint-s3-only": pytorch(
        framework_version="2.2.0", py_version="py310", checkpoint_s3_uri="s3://bkt/ckpt/"
    ),
    "checkpoint-with-local-path": pytorch(
        framework_version="2.2.0",
        py_version="py310",
        checkpoint_s3_uri="s3://bkt/ckpt/",
        checkpoint_local_path="/opt/ml/checkpoints",
    ),
    "network-isolation": pytorch(
        framework_version="2.2.0", py_version="py310", enable_network_isolation=True
    ),
    "trainium-neuron-1.13": pytorch(
        framework_version="1.13.1",
        py_version="py38",
        instance_type="ml.trn1.32xlarge",
        distribution={"torch_distributed": {"enabled": True}},
    ),
    "spot-vpc-env": pytorch(
        framework_version="2.1.0",
        py_version="py310",
        use_spot_instances=True,
        max_run=3600,
        max_wait=7200,
        checkpoint_s3_uri="s3://bkt/ckpt/",
        subnets=["subnet-0a1b2c3d"],
        security_group_ids=["sg-0123abcd"],
        environment={"NCCL_DEBUG": "INFO"},
    ),
    "metrics-off": pytorch(
        framework_version="2.2.0", py_version="py310", enable_sagemaker_metrics=False
    ),
    "image-uri-only": pytorch(
        image_uri="763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.2.0-gpu-py310"
    ),
    "pytorch-mpi-smddp": pytorch(
        framework_version="2.2.0",
        py_version="py310",
        instance_type="ml.p4d.24xlarge",
        instance_count=2,
        distribution={"smdistributed": {"dataparallel": {"enabled": True}}},
    ),
    "team-settings": pytorch(
        framework_version="2.2.0",
        py_version="py310",
        instance_count=2,
        volume_size=200,
        max_run=7200,
        max_retry_attempts=2,
        keep_alive_period_in_seconds=600,
        volume_kms_key="arn:aws:kms:us-east-1:111122223333:key/abcd",
        output_kms_key="arn:aws:kms:us-east-1:111122223333:key/abcd",
        encrypt_inter_container_traffic=True,
        input_mode="FastFile",
        disable_profiler=True,
        debugger_hook_config=False,
        tags=[{"Key": "team", "Value": "ml"}],
        hyperparameters={"epochs": 3, "lr": 0.001, "model": "bert-base"},
        metric_definitions=[{"Name": "loss", "Regex": "loss=([0-9.]+)"}],
        distribution={"torch_distributed": {"enabled": True}},
    ),
    "pytorch-mpi": pytorch(
        framework_version="1.13.1",
        py_version="py39",
        instance_type="ml.p3.16xlarge",
        instance_count=2,
        distribution={"mpi": {"enabled": True, "processes_per_host": 8}},
    ),
    "tensorflow-parameter-server": lambda s: TensorFlow(
        entry_point="train.py",
        source_dir=CODE,
        framework_version="2.14",
        py_version="py310",
        role=ROLE,
        output_path=OUT,
        instance_type="ml.c5.2xlarge",
        instance_count=2,
        distribution={"parameter_server": {"enabled": True}},
        sagemaker_session=s,
    ),
    "tensorflow-mwms": lambda s: TensorFlow(
        entry_point="train.py",
        source_dir=CODE,
        framework_version="2.14",
        py_version="py310",
        role=ROLE,
        output_path=OUT,
        instance_type="ml.g5.12xlarge",
        instance_count=2,
        distribution={"multi_worker_mirrored_strategy": {"enabled": True}},
        sagemaker_session=s,
    ),
    "xgboost-script": lambda s: XGBoost(
        entry_point="train.py",
        source_dir=CODE,
        framework_version="1.7-1",
        role=ROLE,
        output_path=OUT,
        instance_type="ml.m5.xlarge",
        instance_count=2,
        hyperparameters={"num_round": 10},
        sagemaker_session=s,
    ),
    "tensorflow-mirrored": lambda s: TensorFlow(
        entry_point="train.py",
        source_dir=CODE,
        framework_version="2.13",
        py_version="py310",
        role=ROLE,
        output_path=OUT,
        instance_type="ml.g5.12xlarge",
        instance_count=1,
        sagemaker_session=s,
    ),
}


CHANNELS = {
    "train": TrainingInput("s3://bkt/data/train/", distribution="ShardedByS3Key"),
    "validation": TrainingInput("s3://bkt/data/validation/", content_type="text/csv"),
}


@pytest.mark.parametrize("shape", sorted(REAL_SHAPES))
def test_import_then_plan_gives_the_sdks_request_back(tmp_path, shape):
    request = captured(REAL_SHAPES[shape], CHANNELS)
    assert_round_trip(request, tmp_path)


def test_builtin_xgboost_imports_with_the_region_its_image_names(tmp_path):
    image = sagemaker.image_uris.retrieve("xgboost", "us-west-2", "1.7-1")
    request = captured(
        lambda s: Estimator(
            image_uri=image,
            role=ROLE,
            output_path=OUT,
            instance_type="ml.m5.xlarge",
            instance_count=1,
            hyperparameters={"num_round": "10", "objective": "reg:squarederror"},
            sagemaker_session=s,
        ),
        {"train": TrainingInput("s3://bkt/data/train/", content_type="text/csv")},
        region="us-west-2",
    )
    assert import_request(request, source_dir="code")["region"] == "us-west-2"
    assert_round_trip(request, tmp_path)


def test_a_checkpoint_without_local_path_plans_without_one(tmp_path):
    """What the SDK sends for checkpoint_s3_uri alone: no LocalPath (the service's default)."""
    (tmp_path / "train.py").write_text("print('train')\n")
    config = tmp_path / "job.yaml"
    config.write_text(
        "name: ckpt\nframework: pytorch\nentry_point: train.py\nframework_version: '2.2.0'\n"
        f"role: {ROLE}\nregion: us-east-1\noutput_path: {OUT}\n"
        "compute: {instance_type: ml.g5.2xlarge}\ncheckpoint: {s3_uri: s3://bkt/ckpt/}\n"
    )
    loaded, warnings = load_valid(config)
    plan = build_plan(
        loaded,
        job_name=JOB,
        region="us-east-1",
        role=ROLE,
        bundle=bundle.build(tmp_path),
        warnings=warnings,
    ).as_json()
    assert plan["request"]["CheckpointConfig"] == {"S3Uri": "s3://bkt/ckpt/"}


ESTIMATOR_KWARGS = st.fixed_dictionaries(
    {
        "version": st.sampled_from([("2.2.0", "py310"), ("2.1.0", "py310"), ("1.13.1", "py39")]),
        "instance_type": st.sampled_from(["ml.g5.2xlarge", "ml.p4d.24xlarge", "ml.c5.4xlarge"]),
        "instance_count": st.integers(1, 4),
        "checkpoint": st.sampled_from(
            [None, (CODE.replace("code", "ckpt"), None), ("s3://b/c/", "/ckpt")]
        ),
        "spot": st.booleans(),
        "isolation": st.booleans(),
        "metrics": st.sampled_from([None, True, False]),
        "environment": st.dictionaries(
            st.sampled_from(["NCCL_DEBUG", "OMP_NUM_THREADS", "MY_FLAG"]),
            st.sampled_from(["1", "INFO", "x y"]),
            max_size=2,
        ),
        "vpc": st.booleans(),
        "volume": st.sampled_from([30, 100]),
        "distribution": st.sampled_from([None, "torchrun", "mpi", "smddp"]),
        "trainium": st.booleans(),
    }
)
# The distributions the SDK runs on each instance kind (others it refuses, as validate does).
_DISTRIBUTIONS = {
    "torchrun": ({"torch_distributed": {"enabled": True}}, {"g5", "p4d", "trn1"}),
    "mpi": ({"mpi": {"enabled": True, "processes_per_host": 2}}, {"g5", "p4d", "c5"}),
    "smddp": ({"smdistributed": {"dataparallel": {"enabled": True}}}, {"p4d"}),
}


def _generated(draw: dict):
    version, py = draw["version"]
    kwargs: dict = {
        "framework_version": version,
        "py_version": py,
        "instance_type": draw["instance_type"],
        "instance_count": draw["instance_count"],
        "volume_size": draw["volume"],
        "environment": draw["environment"] or None,
    }
    if draw["checkpoint"]:
        uri, local = draw["checkpoint"]
        kwargs["checkpoint_s3_uri"] = uri
        if local:
            kwargs["checkpoint_local_path"] = local
    if draw["spot"]:
        kwargs.update(use_spot_instances=True, max_run=3600, max_wait=7200)
    if draw["isolation"]:
        kwargs["enable_network_isolation"] = True
    if draw["metrics"] is not None:
        kwargs["enable_sagemaker_metrics"] = draw["metrics"]
    if draw["vpc"]:
        kwargs.update(subnets=["subnet-1"], security_group_ids=["sg-1"])
    if draw["trainium"]:
        kwargs.update(framework_version="1.13.1", py_version="py38")
        kwargs.update(instance_type="ml.trn1.32xlarge")
    distribution, kinds = _DISTRIBUTIONS.get(draw["distribution"], (None, set()))
    if kwargs["instance_type"].split(".")[1] in kinds:
        kwargs["distribution"] = distribution
    return pytorch(**kwargs)


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(draw=ESTIMATOR_KWARGS)
def test_generated_estimators_round_trip(tmp_path_factory, draw):
    request = captured(_generated(draw))
    assert_round_trip(request, tmp_path_factory.mktemp("generated"))


def test_pytorch_1_1_without_py_version_is_refused_like_the_sdk_refuses_it(tmp_path, cli):
    with pytest.raises(ValueError, match="py_version was None"):
        PyTorch(
            entry_point="train.py",
            framework_version="1.1.0",
            role=ROLE,
            train_instance_type="ml.p3.2xlarge",  # the v1 name the SDK renames
            instance_count=1,
        )
    (tmp_path / "train.py").write_text("print('train')\n")
    config = tmp_path / "old.yaml"
    config.write_text(
        "name: old\nframework: pytorch\nentry_point: train.py\nframework_version: '1.1.0'\n"
        "compute: {instance_type: ml.p3.2xlarge}\n"
    )
    result = cli("validate", config)
    assert result.exit_code == 2 and "set py_version to one of py2, py3" in result.output


BUILTIN_XGBOOST = st.fixed_dictionaries(
    {
        "region": st.sampled_from(["us-east-1", "us-west-2", "eu-west-1", "ap-northeast-1"]),
        "version": st.sampled_from(["1.7-1", "1.5-1", "1.3-1"]),
        "instance_type": st.sampled_from(["ml.m5.xlarge", "ml.c5.2xlarge", "ml.g4dn.xlarge"]),
        "instance_count": st.integers(1, 3),
        "hyperparameters": st.dictionaries(
            st.sampled_from(["num_round", "max_depth", "eta", "objective"]),
            st.sampled_from(["10", "0.2", "reg:squarederror", "binary:logistic"]),
            max_size=3,
        ),
        "spot": st.booleans(),
    }
)


@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(draw=BUILTIN_XGBOOST)
def test_generated_builtin_xgboost_round_trips(tmp_path_factory, draw):
    image = sagemaker.image_uris.retrieve(
        "xgboost", draw["region"], draw["version"], instance_type=draw["instance_type"]
    )
    spot = {"use_spot_instances": True, "max_wait": 7200, "max_run": 3600} if draw["spot"] else {}
    request = captured(
        lambda s: Estimator(
            image_uri=image,
            role=ROLE,
            output_path=OUT,
            instance_type=draw["instance_type"],
            instance_count=draw["instance_count"],
            hyperparameters=draw["hyperparameters"] or None,
            sagemaker_session=s,
            **spot,
        ),
        {"train": TrainingInput("s3://bkt/data/train/", content_type="text/csv")},
        region=draw["region"],
    )
    assert_round_trip(request, tmp_path_factory.mktemp("builtin"))

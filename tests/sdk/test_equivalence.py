"""`plan` sends what the SDK itself sends: the same jobs written by hand with the plain SDK,
captured through botocore's Stubber (a route independent of sagelaunch's capture session),
must produce identical CreateTrainingJob requests."""

from __future__ import annotations

import pytest
import sagemaker
import sagemaker.telemetry.telemetry_logging as telemetry
from botocore.stub import Stubber
from sagemaker.inputs import FileSystemInput, TrainingInput
from sagemaker.pytorch import PyTorch
from sagemaker.xgboost import XGBoost

from sagelaunch.aws.session import offline_session
from tests.conftest import EXAMPLES
from tests.golden.regenerate import JOB_NAME, ROLE, golden_plan

OUT = "s3://sagelaunch-examples/output/"
TEAM = {
    "role": ROLE,
    "volume_size": 100,
    "output_path": OUT,
    "environment": {"NCCL_DEBUG": "WARN"},
    "disable_profiler": True,
    "debugger_hook_config": False,
    "tags": [{"Key": "team", "Value": "ml-platform"}, {"Key": "cost-center", "Value": "4711"}],
}
PT_METRICS = [
    {"Name": "train:loss", "Regex": r"train_loss=([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"},
    {
        "Name": "train:samples_per_sec",
        "Regex": r"samples_per_sec=([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)",
    },
    {
        "Name": "train:tokens_per_sec",
        "Regex": r"tokens_per_sec=([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)",
    },
]


@pytest.fixture
def sdk_request(monkeypatch):
    """Capture what a hand-written `estimator.fit()` sends, through a stubbed sagemaker client."""
    monkeypatch.setattr(telemetry, "_send_telemetry_request", lambda *a, **k: None)

    def capture(make_estimator, inputs=None, **fit_kwargs):
        session = sagemaker.Session(boto_session=offline_session("us-east-1"))
        captured = {}
        session.sagemaker_client.meta.events.register(
            "before-parameter-build.sagemaker.CreateTrainingJob",
            lambda params, **_: captured.update(params),
        )
        with Stubber(session.sagemaker_client) as stub:
            stub.add_response("create_training_job", {"TrainingJobArn": "arn:aws:sagemaker:x"})
            make_estimator(session).fit(
                inputs, wait=False, logs=False, job_name=JOB_NAME, **fit_kwargs
            )
        return captured

    return capture


def ours(config_name: str) -> tuple[dict, str | None]:
    plan = golden_plan(EXAMPLES / f"{config_name}.yaml")
    return plan["request"], plan["upload"]["s3_uri"] if plan["upload"] else None


def test_smddp_p4d(sdk_request):
    request, code = ours("smddp-p4d")
    expected = sdk_request(
        lambda s: PyTorch(
            entry_point="train_pytorch.py",
            source_dir=code,
            framework_version="2.2.0",
            py_version="py310",
            instance_type="ml.p4d.24xlarge",
            instance_count=2,
            max_run=86400,
            sagemaker_session=s,
            distribution={
                "smdistributed": {"dataparallel": {"enabled": True, "custom_mpi_options": ""}}
            },
            hyperparameters={
                "model": "gpt",
                "n_layer": 12,
                "n_embd": 768,
                "n_head": 12,
                "max_steps": 5000,
                "batch_size": 16,
            },
            metric_definitions=PT_METRICS,
            **TEAM,
        ),
        {"train": TrainingInput("s3://sagelaunch-examples/tokens/train/")},
    )
    assert request == expected


def test_smp_v2_p5(sdk_request):
    request, code = ours("smp-v2-p5")
    expected = sdk_request(
        lambda s: PyTorch(
            entry_point="train_pytorch.py",
            source_dir=code,
            framework_version="2.8.0",
            py_version="py311",
            instance_type="ml.p5.48xlarge",
            instance_count=4,
            max_run=86400,
            sagemaker_session=s,
            distribution={
                "torch_distributed": {"enabled": True},
                "smdistributed": {
                    "modelparallel": {
                        "enabled": True,
                        "parameters": {"hybrid_shard_degree": 16, "tensor_parallel_degree": 2},
                    }
                },
            },
            hyperparameters={"model": "gpt", "parallel": "fsdp", "precision": "bf16"},
            checkpoint_s3_uri="s3://sagelaunch-examples/ckpt/llama-smp-v2-p5/",
            metric_definitions=PT_METRICS,
            **TEAM,
        )
    )
    assert request == expected
    assert (
        "smdistributed-modelparallel:2.8.0-gpu-py311-cu121"
        in request["AlgorithmSpecification"]["TrainingImage"]
    )


def test_smp_v1_pipeline(sdk_request):
    request, code = ours("smp-v1-p4d")
    params = {
        "partitions": 2,
        "microbatches": 8,
        "pipeline": "interleaved",
        "placement_strategy": "spread",
        "optimize": "speed",
        "ddp": True,
    }
    expected = sdk_request(
        lambda s: PyTorch(
            entry_point="train_pytorch.py",
            source_dir=code,
            framework_version="1.13.1",
            py_version="py39",
            instance_type="ml.p4d.24xlarge",
            instance_count=2,
            max_run=86400,
            sagemaker_session=s,
            distribution={
                "smdistributed": {"modelparallel": {"enabled": True, "parameters": params}},
                "mpi": {
                    "enabled": True,
                    "processes_per_host": 8,
                    "custom_mpi_options": "-verbose -x NCCL_DEBUG=WARN",
                },
            },
            hyperparameters={"model": "gpt"},
            metric_definitions=PT_METRICS,
            **TEAM,
        )
    )
    assert request == expected


def test_trainium_torchrun_with_neuronx_image(sdk_request):
    request, code = ours("trn1-torchrun")
    image = (
        "763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training-neuronx:"
        "2.1.2-neuronx-py310-sdk2.20.0-ubuntu20.04"
    )
    team = {
        **TEAM,
        "environment": {
            "NCCL_DEBUG": "WARN",
            "NEURON_CC_FLAGS": "--model-type=transformer",
            "NEURON_RT_NUM_CORES": "32",
        },
    }
    expected = sdk_request(
        lambda s: PyTorch(
            entry_point="train_pytorch.py",
            source_dir=code,
            framework_version="2.1.2",
            py_version="py310",
            image_uri=image,
            instance_type="ml.trn1.32xlarge",
            instance_count=2,
            max_run=86400,
            sagemaker_session=s,
            distribution={"torch_distributed": {"enabled": True}},
            hyperparameters={"model": "gpt", "max_steps": 2000},
            metric_definitions=PT_METRICS,
            **team,
        )
    )
    assert request == expected


def test_spot_with_checkpoint_and_retries(sdk_request):
    request, code = ours("spot-checkpoint")
    expected = sdk_request(
        lambda s: PyTorch(
            entry_point="train_pytorch.py",
            source_dir=code,
            framework_version="2.2.0",
            py_version="py310",
            instance_type="ml.g5.2xlarge",
            instance_count=1,
            max_run=43200,
            use_spot_instances=True,
            max_wait=129600,
            max_retry_attempts=2,
            sagemaker_session=s,
            checkpoint_s3_uri="s3://sagelaunch-examples/ckpt/gpt-spot/",
            checkpoint_local_path="/opt/ml/checkpoints",
            hyperparameters={"model": "gpt", "max_steps": 20000, "checkpoint_every": 500},
            metric_definitions=PT_METRICS,
            **TEAM,
        )
    )
    assert request == expected


def test_fsx_input_in_a_vpc(sdk_request):
    request, code = ours("fsx-vpc")
    expected = sdk_request(
        lambda s: PyTorch(
            entry_point="train_pytorch.py",
            source_dir=code,
            framework_version="2.2.0",
            py_version="py310",
            instance_type="ml.p4d.24xlarge",
            instance_count=2,
            max_run=86400,
            sagemaker_session=s,
            distribution={"torch_distributed": {"enabled": True}},
            subnets=["subnet-0a1b2c3d4e5f67890"],
            security_group_ids=["sg-0123456789abcdef0"],
            encrypt_inter_container_traffic=True,
            volume_kms_key="arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab",
            hyperparameters={"model": "gpt", "data": "channel"},
            metric_definitions=PT_METRICS,
            **TEAM,
        ),
        {"train": FileSystemInput("fs-0123456789abcdef0", "FSxLustre", "/fsx/tokens", "ro")},
    )
    assert request == expected


def test_xgboost_script_mode_sharded(sdk_request):
    request, code = ours("xgboost-sharded")
    metrics = [
        {"Name": f"{c}:{m}", "Regex": rf"{c}-{m}:([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"}
        for c in ("train", "validation")
        for m in ("rmse", "logloss", "auc", "error", "mae")
    ]
    expected = sdk_request(
        lambda s: XGBoost(
            entry_point="train_xgboost.py",
            source_dir=code,
            framework_version="1.7-1",
            instance_type="ml.m5.xlarge",
            instance_count=4,
            max_run=7200,
            sagemaker_session=s,
            hyperparameters={
                "objective": "reg:squarederror",
                "num_round": 100,
                "max_depth": 6,
                "eta": 0.2,
                "tree_method": "hist",
            },
            metric_definitions=metrics,
            **TEAM,
        ),
        {
            "train": TrainingInput(
                "s3://sagelaunch-examples/churn/train/",
                distribution="ShardedByS3Key",
                content_type="text/csv",
            ),
            "validation": TrainingInput(
                "s3://sagelaunch-examples/churn/validation/", content_type="text/csv"
            ),
        },
    )
    assert request == expected
    assert (
        request["InputDataConfig"][0]["DataSource"]["S3DataSource"]["S3DataDistributionType"]
        == "ShardedByS3Key"
    )


def test_xgboost_builtin_algorithm(sdk_request):
    request, _ = ours("xgboost-builtin")

    def estimator(session):
        image = sagemaker.image_uris.retrieve("xgboost", "us-east-1", "1.7-1")
        est = sagemaker.estimator.Estimator(
            image_uri=image,
            instance_type="ml.m5.2xlarge",
            instance_count=2,
            max_run=7200,
            sagemaker_session=session,
            **TEAM,
        )
        est.set_hyperparameters(
            objective="binary:logistic", num_round=200, max_depth=5, eta=0.2, eval_metric="auc"
        )
        return est

    expected = sdk_request(
        estimator,
        {
            "train": TrainingInput(
                "s3://sagelaunch-examples/churn/train/", content_type="text/csv"
            ),
            "validation": TrainingInput(
                "s3://sagelaunch-examples/churn/validation/", content_type="text/csv"
            ),
        },
    )
    assert request == expected
    assert request["HyperParameters"]["objective"] == "binary:logistic"  # plain str, no JSON quotes

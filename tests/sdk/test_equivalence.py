"""`plan` sends what the SDK itself sends: every example in launch_configs/ is held to an oracle,
the job written by hand with the plain SDK (every argument spelled out from the YAML, nothing
computed by sagelaunch), captured through botocore's Stubber (tests/sdk/oracles.py), whose
CreateTrainingJob request must be the golden plan's. One row of ROWS per example: its estimator,
given the session and the plan's code location, and its fit()'s inputs. The examples whose oracle
is more than one estimator's fit() are held in the tests ELSEWHERE names;
`test_every_example_has_an_oracle` fails for a new example no test holds."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import sagemaker
from sagemaker.inputs import FileSystemInput, TrainingInput
from sagemaker.parameter import CategoricalParameter, ContinuousParameter, IntegerParameter
from sagemaker.pytorch import PyTorch
from sagemaker.tensorflow import TensorFlow
from sagemaker.tuner import HyperparameterTuner
from sagemaker.xgboost import XGBoost

from tests.conftest import EXAMPLES
from tests.golden.regenerate import ROLE, golden_plan
from tests.sdk.oracles import OUT, PT_METRICS, TEAM, Oracle
from tests.sdk.test_equivalence_tensorflow import TF_METRICS

# The examples that do not extend bases/team.yaml name only the role and the output path.
SOLO = {"role": ROLE, "output_path": OUT}
TORCHRUN = {"torch_distributed": {"enabled": True}}
SMALL_GPT = {"model": "gpt", "n_layer": 2, "n_embd": 64, "n_head": 4, "seq_len": 64}
ZERO3 = {
    "model": "gpt",
    "n_layer": 24,
    "n_embd": 2048,
    "n_head": 16,
    "seq_len": 2048,
    "batch_size": 4,
    "zero_stage": 3,
    "offload_optimizer": "cpu",
    "checkpoint_every": 500,
}
XGB_METRICS = [
    {"Name": f"{c}:{m}", "Regex": rf"{c}-{m}:([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"}
    for c in ("train", "validation")
    for m in ("rmse", "logloss", "auc", "error", "mae")
]


def pytorch(session, version="2.2.0", py="py310", **kwargs):
    """A PyTorch estimator for the golden bundle's train_pytorch.py; the rest as written."""
    return PyTorch(
        entry_point="train_pytorch.py",
        framework_version=version,
        py_version=py,
        metric_definitions=PT_METRICS,
        sagemaker_session=session,
        **kwargs,
    )


def mpi(processes_per_host: int, options: str = "") -> dict:
    return {
        "mpi": {
            "enabled": True,
            "processes_per_host": processes_per_host,
            "custom_mpi_options": options,
        }
    }


def smddp_p4d(s, code):
    return pytorch(
        s,
        source_dir=code,
        instance_type="ml.p4d.24xlarge",
        instance_count=2,
        max_run=86400,
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
        **TEAM,
    )


def smp_v2_p5(s, code):
    return pytorch(
        s,
        "2.8.0",
        "py311",
        source_dir=code,
        instance_type="ml.p5.48xlarge",
        instance_count=4,
        max_run=86400,
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
        **TEAM,
    )


def smp_v1_pipeline(s, code):
    params = {
        "partitions": 2,
        "microbatches": 8,
        "pipeline": "interleaved",
        "placement_strategy": "spread",
        "optimize": "speed",
        "ddp": True,
    }
    return pytorch(
        s,
        "1.13.1",
        "py39",
        source_dir=code,
        instance_type="ml.p4d.24xlarge",
        instance_count=2,
        max_run=86400,
        distribution={
            "smdistributed": {"modelparallel": {"enabled": True, "parameters": params}},
            "mpi": {
                "enabled": True,
                "processes_per_host": 8,
                "custom_mpi_options": "-verbose -x NCCL_DEBUG=WARN",
            },
        },
        hyperparameters={"model": "gpt"},
        **TEAM,
    )


def trainium_torchrun_with_neuronx_image(s, code):
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
    return pytorch(
        s,
        "2.1.2",
        "py310",
        source_dir=code,
        image_uri=image,
        instance_type="ml.trn1.32xlarge",
        instance_count=2,
        max_run=86400,
        distribution=TORCHRUN,
        hyperparameters={"model": "gpt", "max_steps": 2000},
        **team,
    )


def spot_with_checkpoint_and_retries(s, code):
    return pytorch(
        s,
        source_dir=code,
        instance_type="ml.g5.2xlarge",
        instance_count=1,
        max_run=43200,
        use_spot_instances=True,
        max_wait=129600,
        max_retry_attempts=2,
        checkpoint_s3_uri="s3://sagelaunch-examples/ckpt/gpt-spot/",
        checkpoint_local_path="/opt/ml/checkpoints",
        hyperparameters={"model": "gpt", "max_steps": 20000, "checkpoint_every": 500},
        **TEAM,
    )


def fsx_input_in_a_vpc(s, code):
    return pytorch(
        s,
        source_dir=code,
        instance_type="ml.p4d.24xlarge",
        instance_count=2,
        max_run=86400,
        distribution=TORCHRUN,
        subnets=["subnet-0a1b2c3d4e5f67890"],
        security_group_ids=["sg-0123456789abcdef0"],
        encrypt_inter_container_traffic=True,
        volume_kms_key="arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab",
        hyperparameters={"model": "gpt", "data": "channel"},
        **TEAM,
    )


def xgboost_script_mode_sharded(s, code):
    return XGBoost(
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
        metric_definitions=XGB_METRICS,
        **TEAM,
    )


def xgboost_builtin_algorithm(s, _code):
    est = sagemaker.estimator.Estimator(
        image_uri=sagemaker.image_uris.retrieve("xgboost", "us-east-1", "1.7-1"),
        instance_type="ml.m5.2xlarge",
        instance_count=2,
        max_run=7200,
        sagemaker_session=s,
        **TEAM,
    )
    est.set_hyperparameters(
        objective="binary:logistic", num_round=200, max_depth=5, eta=0.2, eval_metric="auc"
    )
    return est


def cpu_local(s, code):
    return pytorch(
        s,
        source_dir=code,
        instance_type="ml.g5.xlarge",
        instance_count=2,
        max_run=3600,
        distribution=TORCHRUN,
        hyperparameters={**SMALL_GPT, "batch_size": 8, "max_steps": 200},
        **SOLO,
    )


def cpu_3d_local(s, code):
    return pytorch(
        s,
        "2.8.0",
        "py312",
        source_dir=code,
        instance_type="ml.g5.12xlarge",
        instance_count=1,
        max_run=3600,
        distribution=TORCHRUN,
        hyperparameters={
            **SMALL_GPT,
            "batch_size": 8,
            "tensor_parallel_degree": 2,
            "pipeline_parallel_degree": 2,
            "microbatches": 4,
            "max_steps": 200,
        },
        **SOLO,
    )


def deepspeed_zero3_p4d(s, code):
    return pytorch(
        s,
        source_dir=code,
        instance_type="ml.p4d.24xlarge",
        instance_count=2,
        max_run=86400,
        distribution=TORCHRUN,
        checkpoint_s3_uri="s3://sagelaunch-examples/checkpoints/gpt-zero3/",
        hyperparameters=ZERO3,
        **TEAM,
    )


def fsdp_g5(s, code):
    return pytorch(
        s,
        "2.8.0",
        "py312",
        source_dir=code,
        instance_type="ml.g5.12xlarge",
        instance_count=2,
        max_run=86400,
        distribution=TORCHRUN,
        hyperparameters={
            "model": "gpt",
            "parallel": "fsdp",
            "sharding": "full",
            "batch_size": 8,
            "max_steps": 3000,
        },
        **TEAM,
    )


def pp_tp_p4d(s, code):
    return pytorch(
        s,
        "2.8.0",
        "py312",
        source_dir=code,
        instance_type="ml.p4d.24xlarge",
        instance_count=4,
        max_run=86400,
        distribution=TORCHRUN,
        checkpoint_s3_uri="s3://sagelaunch-examples/ckpt/gpt-pp-tp-p4d/",
        hyperparameters={
            "model": "gpt",
            "n_layer": 48,
            "n_head": 40,
            "n_embd": 5120,
            "seq_len": 2048,
            "batch_size": 16,
            "tensor_parallel_degree": 8,
            "pipeline_parallel_degree": 4,
            "pipeline_schedule": "interleaved_1f1b",
            "stages_per_rank": 2,
            "microbatches": 16,
            "precision": "bf16",
            "max_steps": 3000,
            "checkpoint_every": 200,
        },
        **TEAM,
    )


def tp_fsdp_p5(s, code):
    return pytorch(
        s,
        "2.8.0",
        "py312",
        source_dir=code,
        instance_type="ml.p5.48xlarge",
        instance_count=2,
        max_run=86400,
        distribution=TORCHRUN,
        checkpoint_s3_uri="s3://sagelaunch-examples/ckpt/gpt-tp-fsdp-p5/",
        hyperparameters={
            "model": "gpt",
            "n_layer": 32,
            "n_head": 32,
            "n_embd": 4096,
            "seq_len": 2048,
            "batch_size": 4,
            "parallel": "fsdp",
            "tensor_parallel_degree": 8,
            "precision": "bf16",
            "activation_checkpointing": True,
            "max_steps": 3000,
            "checkpoint_every": 200,
        },
        **TEAM,
    )


def dp_g5(s, code):
    return pytorch(
        s,
        source_dir=code,
        instance_type="ml.g5.12xlarge",
        instance_count=1,
        max_run=86400,
        hyperparameters={"model": "gpt", "parallel": "dp", "batch_size": 32, "max_steps": 3000},
        **TEAM,
    )


def sweep_cpu_local_base_job(s, code):
    """The plan is the sweep's base job (the grid varies lr and batch_size per trial)."""
    return pytorch(
        s,
        source_dir=code,
        instance_type="ml.g5.xlarge",
        instance_count=1,
        max_run=3600,
        hyperparameters={
            "model": "gpt",
            "n_layer": 1,
            "n_embd": 32,
            "n_head": 2,
            "seq_len": 32,
            "max_steps": 200,
        },
        **SOLO,
    )


def deepspeed_zero3_mpi_p4d(s, code):
    return pytorch(
        s,
        source_dir=code,
        instance_type="ml.p4d.24xlarge",
        instance_count=2,
        max_run=86400,
        distribution=mpi(8, "-x NCCL_DEBUG=WARN"),
        checkpoint_s3_uri="s3://sagelaunch-examples/checkpoints/gpt-zero3-mpi/",
        hyperparameters=ZERO3,
        **TEAM,
    )


def mpi_g5(s, code):
    return pytorch(
        s,
        source_dir=code,
        instance_type="ml.g5.48xlarge",
        instance_count=2,
        max_run=86400,
        distribution=mpi(8, "-x NCCL_DEBUG=INFO"),
        hyperparameters={"model": "gpt"},
        **TEAM,
    )


def mpi_cpu_local(s, code):
    return pytorch(
        s,
        source_dir=code,
        instance_type="ml.c5.4xlarge",
        instance_count=2,
        max_run=3600,
        distribution=mpi(2),
        hyperparameters={**SMALL_GPT, "batch_size": 8, "max_steps": 200, "zero_stage": 2},
        **SOLO,
    )


def ps_cpu_local(s, code):
    return pytorch(
        s,
        source_dir=code,
        instance_type="ml.c5.4xlarge",
        instance_count=2,
        max_run=3600,
        distribution=mpi(4),
        checkpoint_s3_uri="s3://sagelaunch-examples/checkpoints/gpt-ps/",
        hyperparameters={
            **SMALL_GPT,
            "batch_size": 8,
            "max_steps": 200,
            "parallel": "ps",
            "num_ps": 1,
            "ps_mode": "async",
            "ps_timeout_s": 120,
            "checkpoint_every": 50,
        },
        **SOLO,
    )


def smp_v2_p4d(s, code):
    return pytorch(
        s,
        "2.8.0",
        "py311",
        source_dir=code,
        instance_type="ml.p4d.24xlarge",
        instance_count=2,
        max_run=86400,
        distribution={
            "torch_distributed": {"enabled": True},
            "smdistributed": {
                "modelparallel": {
                    "enabled": True,
                    "parameters": {
                        "hybrid_shard_degree": 8,
                        "sm_activation_offloading": False,
                    },
                }
            },
        },
        checkpoint_s3_uri="s3://sagelaunch-examples/ckpt/llama-smp-v2/",
        hyperparameters={"model": "gpt", "parallel": "fsdp", "activation_checkpointing": True},
        **TEAM,
    )


def tf_mwms_local(s, code):
    return TensorFlow(
        entry_point="train_tensorflow.py",
        source_dir=code,
        framework_version="2.19.0",
        py_version="py312",
        instance_type="ml.c5.2xlarge",
        instance_count=2,
        max_run=3600,
        distribution={"multi_worker_mirrored_strategy": {"enabled": True}},
        hyperparameters={"hidden": 32, "batch_size": 32, "lr": 0.05, "max_steps": 500},
        metric_definitions=TF_METRICS,
        sagemaker_session=s,
        **SOLO,
    )


def tf_smddp_p4d(s, code):
    return TensorFlow(
        entry_point="train_tensorflow.py",
        source_dir=code,
        framework_version="2.11.0",
        py_version="py39",
        instance_type="ml.p4d.24xlarge",
        instance_count=2,
        max_run=86400,
        distribution={"smdistributed": {"dataparallel": {"enabled": True}}},
        hyperparameters={"hidden": 256, "batch_size": 128, "epochs": 10},
        metric_definitions=TF_METRICS,
        sagemaker_session=s,
        **TEAM,
    )


def xgboost_local(s, code):
    return XGBoost(
        entry_point="train_xgboost.py",
        source_dir=code,
        framework_version="1.7-1",
        instance_type="ml.m5.xlarge",
        instance_count=2,
        max_run=3600,
        sagemaker_session=s,
        hyperparameters={
            "objective": "reg:squarederror",
            "num_round": 100,
            "max_depth": 4,
            "eta": 0.3,
            "tree_method": "hist",
        },
        metric_definitions=XGB_METRICS,
        **TEAM,
    )


def runs_the_smp_image(request: dict) -> None:
    assert (
        "smdistributed-modelparallel:2.8.0-gpu-py311-cu121"
        in request["AlgorithmSpecification"]["TrainingImage"]
    )


def shards_its_train_channel(request: dict) -> None:
    assert (
        request["InputDataConfig"][0]["DataSource"]["S3DataSource"]["S3DataDistributionType"]
        == "ShardedByS3Key"
    )


def sends_plain_string_hyperparameters(request: dict) -> None:
    assert request["HyperParameters"]["objective"] == "binary:logistic"  # no JSON quotes


ROWS = {
    "smddp-p4d": Oracle(
        smddp_p4d, {"train": TrainingInput("s3://sagelaunch-examples/tokens/train/")}
    ),
    "smp-v2-p5": Oracle(smp_v2_p5, also=runs_the_smp_image),
    "smp-v1-p4d": Oracle(smp_v1_pipeline),
    "trn1-torchrun": Oracle(trainium_torchrun_with_neuronx_image),
    "spot-checkpoint": Oracle(spot_with_checkpoint_and_retries),
    "fsx-vpc": Oracle(
        fsx_input_in_a_vpc,
        {"train": FileSystemInput("fs-0123456789abcdef0", "FSxLustre", "/fsx/tokens", "ro")},
    ),
    "xgboost-sharded": Oracle(
        xgboost_script_mode_sharded,
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
        also=shards_its_train_channel,
    ),
    "xgboost-builtin": Oracle(
        xgboost_builtin_algorithm,
        also=sends_plain_string_hyperparameters,
        inputs={
            "train": TrainingInput(
                "s3://sagelaunch-examples/churn/train/", content_type="text/csv"
            ),
            "validation": TrainingInput(
                "s3://sagelaunch-examples/churn/validation/", content_type="text/csv"
            ),
        },
    ),
    "cpu-local": Oracle(cpu_local),
    "cpu-3d-local": Oracle(cpu_3d_local),
    "deepspeed-zero3-p4d": Oracle(deepspeed_zero3_p4d),
    "fsdp-g5": Oracle(fsdp_g5),
    "pp-tp-p4d": Oracle(pp_tp_p4d),
    "tp-fsdp-p5": Oracle(tp_fsdp_p5),
    "dp-g5": Oracle(dp_g5),
    "sweep-cpu-local": Oracle(sweep_cpu_local_base_job),
    "deepspeed-zero3-mpi-p4d": Oracle(deepspeed_zero3_mpi_p4d),
    "mpi-g5": Oracle(mpi_g5),
    "mpi-cpu-local": Oracle(mpi_cpu_local),
    "ps-cpu-local": Oracle(ps_cpu_local),
    "smp-v2-p4d": Oracle(smp_v2_p4d),
    "tf-mwms-local": Oracle(tf_mwms_local),
    "tf-smddp-p4d": Oracle(tf_smddp_p4d),
    "xgboost-local": Oracle(
        xgboost_local,
        {
            "train": TrainingInput(
                "s3://sagelaunch-examples/demo/train/",
                distribution="ShardedByS3Key",
                content_type="text/csv",
            ),
            "validation": TrainingInput(
                "s3://sagelaunch-examples/demo/validation/", content_type="text/csv"
            ),
        },
    ),
}


@pytest.mark.parametrize("example", sorted(ROWS))
def test_plan_sends_what_the_sdk_sends(no_telemetry, example):
    ROWS[example].holds(example)


# -- Automatic model tuning ---------------------------------------------------------------------


def tuning_pytorch_g5_estimator(session, code):
    return pytorch(
        session,
        source_dir=code,
        instance_type="ml.g5.2xlarge",
        instance_count=1,
        max_run=7200,
        hyperparameters={
            "model": "gpt",
            "n_layer": 4,
            "n_embd": 256,
            "n_head": 4,
            "lr": 3.0e-4,
            "max_steps": 2000,
        },
        **TEAM,
    )


def test_tuning_pytorch_g5(sdk_request, sdk_tuning_request):
    """Both requests of a tuning plan: the base training job, and the tuning job itself."""
    plan = golden_plan(EXAMPLES / "tuning-pytorch-g5.yaml")
    code = plan["upload"]["s3_uri"]
    assert plan["request"] == sdk_request(lambda s: tuning_pytorch_g5_estimator(s, code))
    expected = sdk_tuning_request(
        lambda s: HyperparameterTuner(
            tuning_pytorch_g5_estimator(s, code),
            objective_metric_name="train:loss",
            objective_type="Minimize",
            hyperparameter_ranges={
                "lr": ContinuousParameter(1.0e-5, 1.0e-2, scaling_type="Logarithmic"),
                "n_layer": IntegerParameter(2, 8),
                "batch_size": CategoricalParameter([8, 16, 32]),
            },
            metric_definitions=PT_METRICS,
            strategy="Bayesian",
            max_jobs=20,
            max_parallel_jobs=4,
            early_stopping_type="Auto",
        ),
        job_name=plan["tuning"]["job_name"],
    )
    assert plan["tuning"]["request"] == expected


# -- The fence ----------------------------------------------------------------------------------

# The examples whose oracle is more than one estimator's fit(): the test that holds each one.
ELSEWHERE = {
    "hetero-c5-p4d": (
        "test_equivalence_hetero.py::test_heterogeneous_torchrun_adds_only_the_training_group"
    ),
    "profiler-report": (
        "test_equivalence_hetero.py::test_profiler_report_debugger_rules_tensorboard_and_experiment"
    ),
    "tf-horovod-p3": "test_equivalence_tensorflow.py::test_horovod_gets_the_local_model_dir",
    "tf-mirrored-g5": "test_equivalence_tensorflow.py::test_model_dir_false_passes_none",
    "tf-ps-local": (
        "test_equivalence_tensorflow.py::test_parameter_servers_with_the_sdks_s3_model_dir"
    ),
    "tuning-pytorch-g5": "test_equivalence.py::test_tuning_pytorch_g5",
}


def _examples_named(test: ast.FunctionDef) -> set[str]:
    """The example stems (or file names) a test body names as string literals."""
    names = set()
    for node in ast.walk(test):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            stem = node.value.removesuffix(".yaml")
            if (EXAMPLES / f"{stem}.yaml").is_file():
                names.add(stem)
    return names


def test_every_example_has_an_oracle():
    """A new example in launch_configs/ fails here until a test holds it to the SDK: a row of
    ROWS, or a test ELSEWHERE names, which exists, reads that very example, and is not
    skipped; no example is held twice."""
    assert sorted([*ROWS, *ELSEWHERE]) == sorted(p.stem for p in EXAMPLES.glob("*.yaml"))
    here = Path(__file__).parent
    for stem, where in ELSEWHERE.items():
        file, name = where.split("::")
        tree = ast.parse((here / file).read_text())
        tests = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert name in tests, f"{stem}: {where} does not exist"
        assert stem in _examples_named(tests[name]), f"{where} does not read {stem}.yaml"
        marks = [ast.unparse(d) for d in tests[name].decorator_list]
        assert not any("skip" in m for m in marks), f"{where} is skipped: {marks}"

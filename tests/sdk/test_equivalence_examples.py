"""Every example in launch_configs/ is held to an oracle: the job written by hand with the plain
SDK (every argument spelled out from the YAML, nothing computed by sagelaunch), captured through
botocore's Stubber (test_equivalence.py's `sdk_request`), sends the golden plan's request. This
file holds the examples the other equivalence files do not; `test_every_example_has_an_oracle`
fails for a new example no test holds."""

from __future__ import annotations

import ast
from pathlib import Path

import sagemaker
from botocore.stub import Stubber
from sagemaker.inputs import TrainingInput
from sagemaker.parameter import CategoricalParameter, ContinuousParameter, IntegerParameter
from sagemaker.pytorch import PyTorch
from sagemaker.tensorflow import TensorFlow
from sagemaker.tuner import HyperparameterTuner
from sagemaker.xgboost import XGBoost

from sagelaunch.aws.session import offline_session
from tests.conftest import EXAMPLES
from tests.golden.regenerate import ROLE, golden_plan
from tests.sdk.test_equivalence import PT_METRICS, TEAM, ours, sdk_request  # noqa: F401
from tests.sdk.test_equivalence_tensorflow import TF_METRICS

OUT = "s3://sagelaunch-examples/output/"
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


# -- PyTorch, torchrun ------------------------------------------------------------------------


def test_cpu_local(sdk_request):  # noqa: F811
    request, code = ours("cpu-local")
    expected = sdk_request(
        lambda s: pytorch(
            s,
            source_dir=code,
            instance_type="ml.g5.xlarge",
            instance_count=2,
            max_run=3600,
            distribution=TORCHRUN,
            hyperparameters={**SMALL_GPT, "batch_size": 8, "max_steps": 200},
            **SOLO,
        )
    )
    assert request == expected


def test_cpu_3d_local(sdk_request):  # noqa: F811
    request, code = ours("cpu-3d-local")
    expected = sdk_request(
        lambda s: pytorch(
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
    )
    assert request == expected


def test_deepspeed_zero3_p4d(sdk_request):  # noqa: F811
    request, code = ours("deepspeed-zero3-p4d")
    expected = sdk_request(
        lambda s: pytorch(
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
    )
    assert request == expected


def test_fsdp_g5(sdk_request):  # noqa: F811
    request, code = ours("fsdp-g5")
    expected = sdk_request(
        lambda s: pytorch(
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
    )
    assert request == expected


def test_pp_tp_p4d(sdk_request):  # noqa: F811
    request, code = ours("pp-tp-p4d")
    expected = sdk_request(
        lambda s: pytorch(
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
    )
    assert request == expected


def test_tp_fsdp_p5(sdk_request):  # noqa: F811
    request, code = ours("tp-fsdp-p5")
    expected = sdk_request(
        lambda s: pytorch(
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
    )
    assert request == expected


# -- PyTorch, no launcher -----------------------------------------------------------------------


def test_dp_g5(sdk_request):  # noqa: F811
    request, code = ours("dp-g5")
    expected = sdk_request(
        lambda s: pytorch(
            s,
            source_dir=code,
            instance_type="ml.g5.12xlarge",
            instance_count=1,
            max_run=86400,
            hyperparameters={"model": "gpt", "parallel": "dp", "batch_size": 32, "max_steps": 3000},
            **TEAM,
        )
    )
    assert request == expected


def test_sweep_cpu_local_base_job(sdk_request):  # noqa: F811
    """The plan is the sweep's base job (the grid varies lr and batch_size per trial)."""
    request, code = ours("sweep-cpu-local")
    expected = sdk_request(
        lambda s: pytorch(
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
    )
    assert request == expected


# -- PyTorch, mpirun ----------------------------------------------------------------------------


def mpi(processes_per_host: int, options: str = "") -> dict:
    return {
        "mpi": {
            "enabled": True,
            "processes_per_host": processes_per_host,
            "custom_mpi_options": options,
        }
    }


def test_deepspeed_zero3_mpi_p4d(sdk_request):  # noqa: F811
    request, code = ours("deepspeed-zero3-mpi-p4d")
    expected = sdk_request(
        lambda s: pytorch(
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
    )
    assert request == expected


def test_mpi_g5(sdk_request):  # noqa: F811
    request, code = ours("mpi-g5")
    expected = sdk_request(
        lambda s: pytorch(
            s,
            source_dir=code,
            instance_type="ml.g5.48xlarge",
            instance_count=2,
            max_run=86400,
            distribution=mpi(8, "-x NCCL_DEBUG=INFO"),
            hyperparameters={"model": "gpt"},
            **TEAM,
        )
    )
    assert request == expected


def test_mpi_cpu_local(sdk_request):  # noqa: F811
    request, code = ours("mpi-cpu-local")
    expected = sdk_request(
        lambda s: pytorch(
            s,
            source_dir=code,
            instance_type="ml.c5.4xlarge",
            instance_count=2,
            max_run=3600,
            distribution=mpi(2),
            hyperparameters={**SMALL_GPT, "batch_size": 8, "max_steps": 200, "zero_stage": 2},
            **SOLO,
        )
    )
    assert request == expected


def test_ps_cpu_local(sdk_request):  # noqa: F811
    request, code = ours("ps-cpu-local")
    expected = sdk_request(
        lambda s: pytorch(
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
    )
    assert request == expected


# -- PyTorch, SMP v2 ----------------------------------------------------------------------------


def test_smp_v2_p4d(sdk_request):  # noqa: F811
    request, code = ours("smp-v2-p4d")
    expected = sdk_request(
        lambda s: pytorch(
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
    )
    assert request == expected


# -- TensorFlow ---------------------------------------------------------------------------------


def test_tf_mwms_local(sdk_request):  # noqa: F811
    request, code = ours("tf-mwms-local")
    expected = sdk_request(
        lambda s: TensorFlow(
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
    )
    assert request == expected


def test_tf_smddp_p4d(sdk_request):  # noqa: F811
    request, code = ours("tf-smddp-p4d")
    expected = sdk_request(
        lambda s: TensorFlow(
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
    )
    assert request == expected


# -- XGBoost ------------------------------------------------------------------------------------


def test_xgboost_local(sdk_request):  # noqa: F811
    request, code = ours("xgboost-local")
    expected = sdk_request(
        lambda s: XGBoost(
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
        ),
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
    )
    assert request == expected


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


def test_tuning_pytorch_g5(sdk_request):  # noqa: F811
    """Both requests of a tuning plan: the base training job, and the tuning job itself."""
    plan = golden_plan(EXAMPLES / "tuning-pytorch-g5.yaml")
    code = plan["upload"]["s3_uri"]
    assert plan["request"] == sdk_request(lambda s: tuning_pytorch_g5_estimator(s, code))

    # The same stubbed route for CreateHyperParameterTuningJob (sdk_request has muted telemetry).
    session = sagemaker.Session(boto_session=offline_session("us-east-1"))
    captured = {}
    session.sagemaker_client.meta.events.register(
        "before-parameter-build.sagemaker.CreateHyperParameterTuningJob",
        lambda params, **_: captured.update(params),
    )
    tuner = HyperparameterTuner(
        tuning_pytorch_g5_estimator(session, code),
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
    )
    with Stubber(session.sagemaker_client) as stub:
        stub.add_response("create_hyper_parameter_tuning_job", {"HyperParameterTuningJobArn": "x"})
        tuner.fit(job_name=plan["tuning"]["job_name"], wait=False)
    assert plan["tuning"]["request"] == captured


# -- The fence ----------------------------------------------------------------------------------

# Which test holds each example's golden request to the hand-written SDK request.
ORACLES = {
    "cpu-3d-local": "test_equivalence_examples.py::test_cpu_3d_local",
    "cpu-local": "test_equivalence_examples.py::test_cpu_local",
    "deepspeed-zero3-mpi-p4d": "test_equivalence_examples.py::test_deepspeed_zero3_mpi_p4d",
    "deepspeed-zero3-p4d": "test_equivalence_examples.py::test_deepspeed_zero3_p4d",
    "dp-g5": "test_equivalence_examples.py::test_dp_g5",
    "fsdp-g5": "test_equivalence_examples.py::test_fsdp_g5",
    "fsx-vpc": "test_equivalence.py::test_fsx_input_in_a_vpc",
    "hetero-c5-p4d": (
        "test_equivalence_hetero.py::test_heterogeneous_torchrun_adds_only_the_training_group"
    ),
    "mpi-cpu-local": "test_equivalence_examples.py::test_mpi_cpu_local",
    "mpi-g5": "test_equivalence_examples.py::test_mpi_g5",
    "pp-tp-p4d": "test_equivalence_examples.py::test_pp_tp_p4d",
    "profiler-report": (
        "test_equivalence_hetero.py::test_profiler_report_debugger_rules_tensorboard_and_experiment"
    ),
    "ps-cpu-local": "test_equivalence_examples.py::test_ps_cpu_local",
    "smddp-p4d": "test_equivalence.py::test_smddp_p4d",
    "smp-v1-p4d": "test_equivalence.py::test_smp_v1_pipeline",
    "smp-v2-p4d": "test_equivalence_examples.py::test_smp_v2_p4d",
    "smp-v2-p5": "test_equivalence.py::test_smp_v2_p5",
    "spot-checkpoint": "test_equivalence.py::test_spot_with_checkpoint_and_retries",
    "sweep-cpu-local": "test_equivalence_examples.py::test_sweep_cpu_local_base_job",
    "tf-horovod-p3": "test_equivalence_tensorflow.py::test_horovod_gets_the_local_model_dir",
    "tf-mirrored-g5": "test_equivalence_tensorflow.py::test_model_dir_false_passes_none",
    "tf-mwms-local": "test_equivalence_examples.py::test_tf_mwms_local",
    "tf-ps-local": (
        "test_equivalence_tensorflow.py::test_parameter_servers_with_the_sdks_s3_model_dir"
    ),
    "tf-smddp-p4d": "test_equivalence_examples.py::test_tf_smddp_p4d",
    "tp-fsdp-p5": "test_equivalence_examples.py::test_tp_fsdp_p5",
    "trn1-torchrun": "test_equivalence.py::test_trainium_torchrun_with_neuronx_image",
    "tuning-pytorch-g5": "test_equivalence_examples.py::test_tuning_pytorch_g5",
    "xgboost-builtin": "test_equivalence.py::test_xgboost_builtin_algorithm",
    "xgboost-local": "test_equivalence_examples.py::test_xgboost_local",
    "xgboost-sharded": "test_equivalence.py::test_xgboost_script_mode_sharded",
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
    """A new example in launch_configs/ fails here until a test holds it to the SDK; each named
    test exists, reads that very example, and is not skipped."""
    assert sorted(ORACLES) == sorted(p.stem for p in EXAMPLES.glob("*.yaml"))
    here = Path(__file__).parent
    for stem, where in ORACLES.items():
        file, name = where.split("::")
        tree = ast.parse((here / file).read_text())
        tests = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert name in tests, f"{stem}: {where} does not exist"
        assert stem in _examples_named(tests[name]), f"{where} does not read {stem}.yaml"
        marks = [ast.unparse(d) for d in tests[name].decorator_list]
        assert not any("skip" in m for m in marks), f"{where} is skipped: {marks}"

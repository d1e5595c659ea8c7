"""Estimator setups written by others: public SageMaker example notebooks
(aws/amazon-sagemaker-examples at 2d519b52c), the SDK's own integration tests
(aws/sagemaker-python-sdk at tag v2.257.6), an AWS tutorial (build-on-aws/content at 707d823)
and one user's script on GitHub, each recorded as data with the file and line it comes from,
job names too where the source gives fit() one (``job_name``: its shape, the source's timestamp
or uuid at a fixed value). Only what must change to run offline changed: accounts, buckets
and roles are placeholders (a role *name* would need IAM), a local ``source_dir`` is the S3
bundle ``CODE`` (the one thing `import` may move), a pytest fixture is the value its parameters
list, and ``sagemaker_session`` is the capture session. Their scripts are not copied: the test
writes a one-line script under each entry point's name.

SDK objects (InstanceGroup, image_uris.retrieve, TensorBoardOutputConfig) are described with
``sagelaunch.sdk.objects.call``, as the plan's own estimator spec describes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sagelaunch.sdk.estimator import ChannelSpec
from sagelaunch.sdk.objects import call

ROLE = "arn:aws:iam::111122223333:role/SageMakerRole"
BUCKET = "s3://amzn-s3-demo-bucket"
CODE = f"{BUCKET}/code/sourcedir.tar.gz"
PYTORCH = "sagemaker.pytorch.PyTorch"
TENSORFLOW = "sagemaker.tensorflow.TensorFlow"
XGBOOST = "sagemaker.xgboost.XGBoost"
ESTIMATOR = "sagemaker.estimator.Estimator"
EXAMPLES = "aws/amazon-sagemaker-examples"
SDK_INTEG = "aws/sagemaker-python-sdk@v2.257.6"
BUILD_ON_AWS = "build-on-aws/content@707d823 posts/train-tune-deep-learning-model-amazon-sagemaker"
TENSORBOARD_NOTEBOOK = "archived/tensorboard_keras/tensorboard_keras.ipynb"
YOLOV5_NOTEBOOK = "archived/pytorch_yolov5_training_and_hpo/transfer_learning_and_hpo_yolov5.ipynb"
# uuid.uuid1() as the yolov5 notebook names its jobs with it (a fixed one).
YOLOV5_UUID = "5c5f3ae2-e8f1-11ee-8c99-0242ac120002"


@dataclass(frozen=True)
class PublicSetup:
    """One estimator as its source writes it, and what fit() is given."""

    source: str  # repository, path and line of the estimator's constructor
    cls: str
    kwargs: dict[str, Any]
    inputs: dict[str, ChannelSpec] = field(default_factory=dict)
    set_hyperparameters: dict[str, Any] | None = None
    region: str = "us-west-2"
    job_name: str | None = None  # what the source gives fit(job_name=...) (None: the harness's)


def _train(uri: str = f"{BUCKET}/data/training", **kwargs: Any) -> ChannelSpec:
    return ChannelSpec("TrainingInput", {"s3_data": uri, **kwargs})


XGB_HYPERPARAMETERS = {
    "max_depth": "5",
    "eta": "0.2",
    "gamma": "4",
    "min_child_weight": "6",
    "subsample": "0.7",
    "objective": "reg:squarederror",
    "num_round": "50",
    "verbosity": "2",
}
SPOT_NOTEBOOK = (
    "build_and_train_models/sm-managed_spot_training_xgboost/sm-managed_spot_training_xgboost.ipynb"
)
SMP_V2_NOTEBOOK = (
    "build_and_train_models/sm-distributed_model_parallel_v2/llama_v2_v3/"
    "sm-fsdp-tp_finetuning_llama_v2_v3.ipynb"
)

KERAS_METRICS = [  # the tensorboard_keras notebook's keras_metric_definition (line 200)
    {"Name": "train:loss", "Regex": ".*loss: ([0-9\\.]+) - accuracy: [0-9\\.]+.*"},
    {"Name": "train:accuracy", "Regex": ".*loss: [0-9\\.]+ - accuracy: ([0-9\\.]+).*"},
    {
        "Name": "validation:accuracy",
        "Regex": ".*step - loss: [0-9\\.]+ - accuracy: [0-9\\.]+ - val_loss: [0-9\\.]+ - "
        "val_accuracy: ([0-9\\.]+).*",
    },
    {
        "Name": "validation:loss",
        "Regex": ".*step - loss: [0-9\\.]+ - accuracy: [0-9\\.]+ - val_loss: ([0-9\\.]+) - "
        "val_accuracy: [0-9\\.]+.*",
    },
    {
        "Name": "sec/steps",
        "Regex": ".* (\\d+)[mu]s/step - loss: [0-9\\.]+ - accuracy: [0-9\\.]+ - val_loss: "
        "[0-9\\.]+ - val_accuracy: [0-9\\.]+",
    },
]
KERAS_INPUTS = {  # fit() is given S3 strings: TrainingInput(s3_data) each
    name: ChannelSpec(
        "TrainingInput", {"s3_data": f"{BUCKET}/tensorboard_keras_cifar10/data/{name}"}
    )
    for name in ("train", "validation")
}
YOLOV5_IMAGE = (
    "111122223333.dkr.ecr.us-east-1.amazonaws.com/"
    "pytorch-training-container-extension-yolov5-cpu:latest"
)
YOLOV5_HYPERPARAMETERS = {  # json_encode_hyperparameters(...) as the notebook (line 1220)
    "epochs": "10",
    "batchsize": "8",
    "freeze": "10",
    "patience": "10",
    "lr0": "0.01",
    "lrf": "0.01",
    "weights": f'"{BUCKET}/yolov5/data/weights/yolov5s.pt"',
    "classes": f'"{BUCKET}/yolov5/classes/classenum.json"',
}
YOLOV5_INPUTS = {  # fit() is given S3 strings
    name: ChannelSpec("TrainingInput", {"s3_data": f"{BUCKET}/yolov5/data/{name}"})
    for name in ("train", "val")
}

SETUPS: dict[str, PublicSetup] = {
    # --- PyTorch -------------------------------------------------------------------------------
    "sdk-pytorchddp": PublicSetup(
        f"{SDK_INTEG} tests/integ/test_pytorchddp.py:40",
        PYTORCH,
        {
            "entry_point": "mnist_pt.py",
            "role": ROLE,
            "source_dir": CODE,
            "instance_count": 2,
            "instance_type": "ml.p3.16xlarge",
            "framework_version": "1.12.0",  # pytorch_ddp_framework_version's last parameter
            "py_version": "py38",  # the fixture's "py3" is not offered for 1.12 (the SDK refuses)
            "distribution": {"pytorchddp": {"enabled": True}},
        },
        {"training": _train()},
    ),
    "sdk-torch-distributed-trn1": PublicSetup(
        f"{SDK_INTEG} tests/integ/test_torch_distributed.py:36",
        PYTORCH,
        {
            "entry_point": "mnist_mlp_neuron.py",
            "role": ROLE,
            "source_dir": CODE,
            "instance_count": 1,
            "instance_type": "ml.trn1.2xlarge",
            "framework_version": "1.11.0",
            "py_version": "py38",  # the fixture's "py3": the SDK offers py38 only for Neuron 1.11
            "distribution": {"torch_distributed": {"enabled": True}},
        },
        {"training": _train()},
    ),
    "sdk-smddp-pytorch-verbose": PublicSetup(
        f"{SDK_INTEG} tests/integ/test_smdataparallel_pt.py:45",
        PYTORCH,
        {
            "entry_point": "mnist_pt.py",
            "role": ROLE,
            "source_dir": CODE,
            "instance_count": 2,
            "instance_type": "ml.p3.16xlarge",
            "framework_version": "2.2.0",  # pytorch_training_latest_version at an SMDDP release
            "py_version": "py310",
            "distribution": {
                "smdistributed": {
                    "dataparallel": {"enabled": True, "custom_mpi_options": "--verbose"}
                }
            },
        },
        {"training": _train()},
    ),
    "examples-smddp-tensorboard": PublicSetup(
        f"{EXAMPLES} build_and_train_models/sm-distributed_data_parallelism_pytorch/"
        "sm-distributed_data_parallelism_pytorch.ipynb:208",
        PYTORCH,
        {
            "base_job_name": "pytorch-tensorboard-dataparallel-mnist",
            "source_dir": CODE,
            "entry_point": "train_pytorch_smdataparallel_mnist.py",
            "role": ROLE,
            "framework_version": "1.11.0",
            "py_version": "py38",
            "instance_count": 1,
            "env": {"SAGEMAKER_REQUIREMENTS": "requirements.txt"},
            "instance_type": "ml.p3.16xlarge",
            "distribution": {"smdistributed": {"dataparallel": {"enabled": True}}},
            "tensorboard_output_config": call(
                "sagemaker.debugger.TensorBoardOutputConfig",
                s3_output_path=f"{BUCKET}/tensorboard",
                container_local_output_path="/opt/ml/output/tensorboard",
            ),
        },
    ),
    "examples-smp-v2-llama": PublicSetup(
        f"{EXAMPLES} {SMP_V2_NOTEBOOK}:878",
        PYTORCH,
        {
            "entry_point": "train.py",
            "hyperparameters": {"max_steps": 100, "checkpoint_dir": "/opt/ml/checkpoints"},
            "source_dir": CODE,
            "role": ROLE,
            "checkpoint_s3_uri": f"{BUCKET}/experiments/smp_fsdp-llama_v2-checkpoints/smp/",
            "instance_type": "ml.p4d.24xlarge",
            "volume_size": 400,
            "instance_count": 1,
            "distribution": {
                "torch_distributed": {"enabled": True},
                "smdistributed": {
                    "modelparallel": {
                        "enabled": True,
                        "parameters": {
                            "tensor_parallel_degree": 1,
                            "hybrid_shard_degree": 8,
                            "sm_activation_offloading": False,
                            "activation_loading_horizon": 2,
                        },
                    }
                },
            },
            "py_version": "py311",
            "framework_version": "2.4.1",
        },
        {"train": _train(f"{BUCKET}/data/train")},
    ),
    "examples-smddp-bert-image": PublicSetup(
        f"{EXAMPLES} build_and_train_models/sm-smddp_bert/sm-smddp_bert.ipynb:290",
        PYTORCH,
        {
            "base_job_name": "smddp-bert",
            "source_dir": CODE,
            "entry_point": "train.sh",
            "role": ROLE,
            "image_uri": "111122223333.dkr.ecr.us-west-2.amazonaws.com/smdataparallel-bert:latest",
            "framework_version": "1.10.2",
            "py_version": "py38",
            "instance_count": 2,
            "instance_type": "ml.p4d.24xlarge",
            "subnets": ["subnet-0a1b2c3d"],
            "security_group_ids": ["sg-0123abcd"],
            "debugger_hook_config": False,
            "distribution": {"smdistributed": {"dataparallel": {"enabled": True}}},
        },
        {
            "train": ChannelSpec(
                "FileSystemInput",
                {
                    "file_system_id": "fs-0123456789abcdef0",
                    "file_system_type": "FSxLustre",
                    "directory_path": "/fsx/bert",
                    "file_system_access_mode": "ro",
                },
            )
        },
    ),
    "examples-fsdp-falcon": PublicSetup(
        f"{EXAMPLES} archived/fully_sharded_data_parallel-falcon/smddp_fsdp_example.ipynb:321",
        PYTORCH,
        {
            "entry_point": "train.py",
            "max_run": 1800,
            "role": ROLE,
            "framework_version": "2.0.1",
            "py_version": "py310",
            "source_dir": CODE,
            "instance_count": 2,
            "instance_type": "ml.p4d.24xlarge",
            "disable_output_compression": True,
            "distribution": {"torch_distributed": {"enabled": True}},
            "keep_alive_period_in_seconds": 600,
            "hyperparameters": {"model_name": "tiiuae/falcon-7b", "max_steps": 30},
        },
    ),
    "examples-gpt2-pytorchddp": PublicSetup(
        f"{EXAMPLES} archived/pytorch_multiple_gpu_single_node/gpt-2.ipynb:180",
        PYTORCH,
        {
            "hyperparameters": {"model_type": "gpt2", "per_device_train_batch_size": 18},
            "distribution": {"pytorchddp": {"enabled": True}},
            "source_dir": CODE,
            "entry_point": "run_clm.py",
            "instance_type": "ml.g5.12xlarge",
            "instance_count": 1,
            "role": ROLE,
            "py_version": "py39",
            "framework_version": "1.13.1",
            "volume_size": 100,
            "disable_profiler": True,
            "debugger_hook_config": False,
            "base_job_name": "trcomp-pt-example",
            "metric_definitions": [
                {"Name": "summary_train_runtime", "Regex": "'train_runtime': ([0-9.]*)"},
                {"Name": "train_loss", "Regex": "'loss': ([0-9.]*)"},
            ],
        },
    ),
    "examples-onnx-mnist": PublicSetup(
        f"{EXAMPLES} deploy_and_monitor/sm-multi_cloud_deployment_with_onnx/pytorch/"
        "mnist-train-using-pytorch.ipynb:332",
        PYTORCH,
        {
            "entry_point": "train.py",
            "source_dir": CODE,
            "role": ROLE,
            "framework_version": "1.12",
            "py_version": "py38",
            "instance_type": "ml.c5.2xlarge",
            "instance_count": 1,
            "volume_size": 250,
            "output_path": f"{BUCKET}/output/",
            "hyperparameters": {"epochs": 5, "batch-size": 64, "learning-rate": 0.001},
        },
        {"train": _train(f"{BUCKET}/mnist/train"), "test": _train(f"{BUCKET}/mnist/test")},
    ),
    "sdk-pytorch-mnist-cpu": PublicSetup(
        f"{SDK_INTEG} tests/integ/test_pytorch.py:304",
        PYTORCH,
        {
            "entry_point": "mnist.py",
            "source_dir": CODE,
            "role": ROLE,
            "framework_version": "2.3.0",  # pytorch_training_latest_version
            "py_version": "py311",
            "instance_count": 1,
            "instance_type": "ml.c5.xlarge",
            "distributions": {},  # the test's (misspelt) keyword, as written there
        },
        {"training": _train(f"{BUCKET}/integ-test-data/pytorch_mnist/training")},
    ),
    "sdk-debugger-smddp-checkpoint": PublicSetup(
        f"{SDK_INTEG} tests/integ/test_debugger.py:424",
        PYTORCH,
        {
            "base_job_name": "pytorch-smdataparallel-mnist",
            "entry_point": "mnist.py",
            "source_dir": CODE,
            "role": ROLE,
            "framework_version": "1.8.0",
            "py_version": "py36",
            "instance_count": 1,
            "instance_type": "ml.p3.16xlarge",
            "distribution": {"smdistributed": {"dataparallel": {"enabled": True}}},
            "checkpoint_local_path": "/opt/ml/checkpoints",
            "checkpoint_s3_uri": f"{BUCKET}/debugger/checkpoints",
        },
    ),
    # --- TensorFlow ----------------------------------------------------------------------------
    "sdk-tf-checkpoint-env": PublicSetup(
        f"{SDK_INTEG} tests/integ/test_tf.py:97",
        TENSORFLOW,
        {
            "entry_point": "mnist.py",
            "source_dir": CODE,
            "role": ROLE,
            "instance_count": 1,
            "instance_type": "ml.c5.xlarge",
            "framework_version": "2.14.1",  # tensorflow_training_latest_version below 2.16
            "py_version": "py310",
            "metric_definitions": [
                {"Name": "train:global_steps", "Regex": r"global_step\/sec:\s(.*)"}
            ],
            "checkpoint_s3_uri": f"{BUCKET}/checkpoints/tf-2026",
            "checkpoint_local_path": "/test/checkpoint/path",
            "environment": {"env_key1": "env_val1", "env_key2": "env_val2", "env_key3": "env_val3"},
            "max_wait": 24 * 60 * 60,
            "max_retry_attempts": 2,
        },
        {"training": _train(f"{BUCKET}/scriptmode/mnist")},
    ),
    "sdk-tf-kms-code-location": PublicSetup(
        f"{SDK_INTEG} tests/integ/test_tf.py:154",
        TENSORFLOW,
        {
            "entry_point": "training.py",
            "source_dir": CODE,
            "role": ROLE,
            "instance_count": 1,
            "instance_type": "ml.c5.xlarge",
            "framework_version": "2.13.0",
            "py_version": "py310",
            "code_location": f"{BUCKET}/test-server-side-encryption/2601",
            "output_path": f"{BUCKET}/test-server-side-encryption/2601",
            "model_dir": "/opt/ml/model",
            "output_kms_key": "arn:aws:kms:us-west-2:111122223333:key/abcd-1234",
        },
        {"training": _train(f"{BUCKET}/scriptmode/mnist")},
    ),
    "sdk-tf-mwms": PublicSetup(
        f"{SDK_INTEG} tests/integ/test_tf.py:209",
        TENSORFLOW,
        {
            "source_dir": CODE,
            "entry_point": "mnist_mwms.py",
            "model_dir": False,
            "instance_type": "ml.g5.12xlarge",
            "instance_count": 2,
            "framework_version": "2.14.1",
            "py_version": "py310",
            "distribution": {"multi_worker_mirrored_strategy": {"enabled": True}},
            "environment": {"NCCL_DEBUG": "INFO"},
            "max_run": 60 * 60 * 1,
            "role": ROLE,
            "volume_size": 400,
            "disable_profiler": True,
        },
    ),
    "sdk-tf-horovod-mpi": PublicSetup(
        f"{SDK_INTEG} tests/integ/test_horovod.py:86",
        TENSORFLOW,
        {
            "entry_point": "hvd_basic.py",
            "source_dir": CODE,
            "role": ROLE,
            "instance_count": 2,
            "instance_type": "ml.c5.xlarge",
            "py_version": "py310",
            "framework_version": "2.13.0",
            "distribution": {"mpi": {"enabled": True}},
            "disable_profiler": True,
        },
    ),
    "sdk-smddp-tensorflow": PublicSetup(
        f"{SDK_INTEG} tests/integ/test_smdataparallel_tf.py:44",
        TENSORFLOW,
        {
            "entry_point": "mnist_tf.py",
            "role": ROLE,
            "source_dir": CODE,
            "instance_count": 2,
            "instance_type": "ml.p4d.24xlarge",
            "framework_version": "2.11.0",  # the latest the SDK's SMDDP list has (2.13 refused)
            "py_version": "py39",
            "distribution": {
                "smdistributed": {
                    "dataparallel": {"enabled": True, "custom_mpi_options": "--verbose"}
                }
            },
        },
    ),
    "sdk-tuner-tf": PublicSetup(
        f"{SDK_INTEG} tests/integ/test_tuner.py:703",
        TENSORFLOW,
        {
            "entry_point": "mnist.py",
            "source_dir": CODE,
            "role": ROLE,
            "instance_count": 1,
            "instance_type": "ml.c5.xlarge",
            "framework_version": "2.14.1",
            "py_version": "py310",
        },
        {"training": _train(f"{BUCKET}/scriptmode/mnist")},
    ),
    "sdk-tuner-tf-vpc": PublicSetup(
        f"{SDK_INTEG} tests/integ/test_tuner.py:759",
        TENSORFLOW,
        {
            "entry_point": "mnist.py",
            "source_dir": CODE,
            "role": ROLE,
            "framework_version": "2.14.1",
            "py_version": "py310",
            "instance_count": 2,
            "instance_type": "ml.c5.xlarge",
            "base_job_name": "test-vpc-tf",
            "subnets": ["subnet-0a1b2c3d", "subnet-4e5f6a7b"],
            "security_group_ids": ["sg-0123abcd"],
            "encrypt_inter_container_traffic": True,
        },
        {"training": _train(f"{BUCKET}/scriptmode/mnist")},
    ),
    "examples-tf-hetero-instance-groups": PublicSetup(
        f"{EXAMPLES} build_and_train_models/sm-heterogeneous_clusters_training/"
        "sm-heterogeneous_clusters_training.ipynb:190",
        TENSORFLOW,
        {
            "entry_point": "train.py",
            "source_dir": CODE,
            "instance_groups": [
                call("sagemaker.instance_group.InstanceGroup", "data_group", "ml.c5.xlarge", 1),
                call("sagemaker.instance_group.InstanceGroup", "dnn_group", "ml.m4.xlarge", 1),
            ],
            "framework_version": "2.9",
            "py_version": "py39",
            "role": ROLE,
            "volume_size": 10,
            "max_run": 3600,
            "disable_profiler": True,
        },
    ),
    "examples-tf-parameter-server-1.15": PublicSetup(
        f"{EXAMPLES} archived/tensorflow_script_mode_training_and_serving/"
        "tensorflow_script_mode_training_and_serving.ipynb:133",
        TENSORFLOW,
        {
            "entry_point": "mnist.py",
            "source_dir": CODE,
            "role": ROLE,
            "instance_count": 2,
            "instance_type": "ml.p3.2xlarge",
            "framework_version": "1.15.2",
            "py_version": "py3",
            "distribution": {"parameter_server": {"enabled": True}},
        },
        {"training": _train(f"{BUCKET}/mnist")},
    ),
    "examples-tf-parameter-server-2.1": PublicSetup(
        f"{EXAMPLES} archived/tensorflow_script_mode_training_and_serving/"
        "tensorflow_script_mode_training_and_serving.ipynb:159",
        TENSORFLOW,
        {
            "entry_point": "mnist-2.py",
            "source_dir": CODE,
            "role": ROLE,
            "instance_count": 2,
            "instance_type": "ml.p3.2xlarge",
            "framework_version": "2.1.0",
            "py_version": "py3",
            "distribution": {"parameter_server": {"enabled": True}},
        },
        {"training": _train(f"{BUCKET}/mnist")},
    ),
    "examples-tf-mpi-demo": PublicSetup(
        f"{EXAMPLES} archived/mpi_on_sagemaker/mpi_demo.ipynb:249",
        TENSORFLOW,
        {
            "entry_point": "mpi_demo.py",
            "source_dir": CODE,
            "role": ROLE,
            "framework_version": "2.3.0",
            "distribution": {"mpi": {"enabled": True, "processes_per_host": 2}},
            "py_version": "py37",
            "instance_count": 3,
            "instance_type": "ml.c5.2xlarge",
            "output_path": f"{BUCKET}/mpi",
        },
    ),
    "examples-tf2-smddp-bert-image": PublicSetup(
        f"{EXAMPLES} archived/data_parallel_bert/tensorflow2_smdataparallel_bert_demo.ipynb:294",
        TENSORFLOW,
        {
            "entry_point": "albert/run_pretraining.py",
            "role": ROLE,
            "image_uri": "111122223333.dkr.ecr.us-west-2.amazonaws.com/smdataparallel-bert:tf2",
            "source_dir": CODE,
            "framework_version": "2.4.1",
            "py_version": "py37",
            "instance_count": 2,
            "instance_type": "ml.p3dn.24xlarge",
            "subnets": ["subnet-0a1b2c3d"],
            "hyperparameters": {
                "model_type": "albert",
                "model_size": "base",
                "per_gpu_batch_size": 32,
            },
            "security_group_ids": ["sg-0123abcd"],
            "debugger_hook_config": False,
            "distribution": {"smdistributed": {"dataparallel": {"enabled": True}}},
        },
    ),
    "examples-tf-smp-v1": PublicSetup(
        f"{EXAMPLES} build_and_train_models/sm-distributed_model_parallel/"
        "sm-distributed_model_parallel.ipynb:195",
        TENSORFLOW,
        {
            "entry_point": "tf2.py",
            "source_dir": CODE,
            "role": ROLE,
            "framework_version": "2.3.1",
            "py_version": "py37",
            "instance_type": "ml.p3.16xlarge",
            "instance_count": 1,
            "distribution": {
                "smdistributed": {
                    "modelparallel": {
                        "enabled": True,
                        "parameters": {
                            "microbatches": 2,
                            "partitions": 2,
                            "pipeline": "interleaved",
                            "optimize": "memory",
                        },
                    }
                },
                "mpi": {
                    "enabled": True,
                    "processes_per_host": 2,
                    "custom_mpi_options": "-verbose -x orte_base_help_aggregate=0",
                },
            },
            "base_job_name": "SMD-MP-demo",
        },
    ),
    "examples-tensorboard-keras": PublicSetup(
        f"{EXAMPLES} {TENSORBOARD_NOTEBOOK}:248",
        TENSORFLOW,
        {
            "base_job_name": "tensorboard-example",
            "entry_point": "tensorboard_keras_cifar10.py",
            "source_dir": CODE,
            "role": ROLE,
            "framework_version": "2.2.0",
            "py_version": "py37",
            "hyperparameters": {
                "epochs": 2,
                "batch-size": 256,
                "tf-logs-path": f"{BUCKET}/tensorboard_keras_cifar10/logs",
            },
            "instance_count": 1,
            "instance_type": "ml.c5.xlarge",
            "metric_definitions": KERAS_METRICS,
            "input_mode": "Pipe",
        },
        KERAS_INPUTS,
    ),
    # The tutorial's v1 train_instance_count/train_instance_type as SDK v2 spells them;
    # script_mode=True (v1 only) and its experiment_config (a Trial made through the API) left out.
    "build-on-aws-tf-single-gpu-exact-name": PublicSetup(
        f"{BUILD_ON_AWS}/index.md, section 'Running the TensorFlow training job'",
        TENSORFLOW,
        {
            "entry_point": "cifar10-training-sagemaker.py",
            "source_dir": CODE,
            "output_path": f"{BUCKET}/jobs/",
            "code_location": f"{BUCKET}/jobs",
            "role": ROLE,
            "instance_count": 1,
            "instance_type": "ml.g4dn.xlarge",
            "framework_version": "1.15.2",
            "py_version": "py3",
            "metric_definitions": [{"Name": "val_acc", "Regex": "val_acc: ([0-9\\.]+)"}],
            "hyperparameters": {
                "epochs": 30,
                "learning-rate": 0.01,
                "batch-size": 256,
                "weight-decay": 2e-4,
                "momentum": 0.9,
                "optimizer": "adam",
            },
        },
        {
            name: ChannelSpec("TrainingInput", {"s3_data": f"{BUCKET}/datasets/cifar10-dataset"})
            for name in ("training", "validation", "eval")
        },
        job_name="tensorflow-single-gpu-2026-01-01-00-00-00",  # time.strftime(...) in the post
    ),
    # The notebook's image: its own extension of the PyTorch training image, in the account.
    "examples-yolov5-exact-name": PublicSetup(
        f"{EXAMPLES} {YOLOV5_NOTEBOOK}:1236",
        PYTORCH,
        {
            "entry_point": "yolov5/training-wrapper.py",
            "source_dir": CODE,
            "role": ROLE,
            "instance_type": "ml.c5.4xlarge",
            "volume_size": 100,
            "instance_count": 1,
            "framework_version": "1.11.0",
            "py_version": "py3",
            "hyperparameters": YOLOV5_HYPERPARAMETERS,
            "image_uri": YOLOV5_IMAGE,
            "debugger_hook_config": False,
            "output_path": f"{BUCKET}/yolov5/output",
        },
        YOLOV5_INPUTS,
        region="us-east-1",
        job_name=f"yolov5-project-{YOLOV5_UUID}",
    ),
    "examples-tensorboard-keras-hpo-estimator": PublicSetup(
        f"{EXAMPLES} {TENSORBOARD_NOTEBOOK}:297",
        TENSORFLOW,
        {
            "base_job_name": "tensorboard-example-hpo",
            "entry_point": "tensorboard_keras_cifar10.py",
            "source_dir": CODE,
            "role": ROLE,
            "framework_version": "2.2.0",
            "py_version": "py37",
            "hyperparameters": {
                "epochs": 6,
                "tf-logs-path": f"{BUCKET}/tensorboard_keras_cifar10/logs",
            },
            "instance_count": 1,
            "instance_type": "ml.p3.2xlarge",
            "metric_definitions": KERAS_METRICS,
            "input_mode": "Pipe",
        },
        KERAS_INPUTS,
    ),
    "build-on-aws-tf-hpo-estimator": PublicSetup(
        f"{BUILD_ON_AWS}/index.md, section 'Tuning the model with Amazon SageMaker automatic "
        "model tuning'",
        TENSORFLOW,
        {
            "entry_point": "cifar10-training-sagemaker.py",
            "source_dir": CODE,
            "output_path": f"{BUCKET}/jobs/",
            "code_location": f"{BUCKET}/jobs",
            "role": ROLE,
            "instance_count": 1,
            "instance_type": "ml.g4dn.xlarge",
            "framework_version": "1.15",
            "py_version": "py3",
            "metric_definitions": [{"Name": "val_acc", "Regex": "val_acc: ([0-9\\.]+)"}],
        },
        {
            name: ChannelSpec("TrainingInput", {"s3_data": f"{BUCKET}/datasets/cifar10-dataset"})
            for name in ("training", "validation", "eval")
        },
    ),
    # --- XGBoost -------------------------------------------------------------------------------
    "sdk-xgboost-network-isolation": PublicSetup(
        f"{SDK_INTEG} tests/integ/test_xgboost.py:101",
        XGBOOST,
        {
            "entry_point": "abalone.py",
            "source_dir": CODE,
            "role": ROLE,
            "instance_type": "ml.m5.xlarge",
            "instance_count": 1,
            "framework_version": "1.7-1",
            "py_version": "py3",
            "base_job_name": "test-xgboost-network-isolation",
            "enable_network_isolation": True,
        },
        {"train": _train(f"{BUCKET}/integ-test-data/xgboost_abalone/abalone")},
    ),
    "examples-xgboost-builtin-spot": PublicSetup(
        f"{EXAMPLES} {SPOT_NOTEBOOK}:217",
        ESTIMATOR,
        {
            "image_uri": call("sagemaker.image_uris.retrieve", "xgboost", "us-west-2", "1.7-1"),
            "role": ROLE,
            "hyperparameters": XGB_HYPERPARAMETERS,
            "instance_count": 1,
            "instance_type": "ml.m5.4xlarge",
            "volume_size": 5,
            "output_path": f"{BUCKET}/xgboost-spot/abalone-xgb/output",
            "use_spot_instances": True,
            "max_run": 3600,
            "max_wait": 7200,
            "checkpoint_s3_uri": f"{BUCKET}/xgboost-spot/checkpoints/DEMO-xgboost-spot",
        },
        {"train": _train(f"{BUCKET}/xgboost-spot/train", content_type="libsvm")},
    ),
    "examples-xgboost-script-spot": PublicSetup(
        f"{EXAMPLES} {SPOT_NOTEBOOK}:376",
        XGBOOST,
        {
            "entry_point": "abalone.py",
            "source_dir": CODE,
            "hyperparameters": XGB_HYPERPARAMETERS,
            "role": ROLE,
            "instance_count": 1,
            "instance_type": "ml.m5.4xlarge",
            "framework_version": "1.7-1",
            "output_path": f"{BUCKET}/xgboost-spot/xgboost-script-mode/output",
            "use_spot_instances": True,
            "max_run": 3600,
            "max_wait": 7200,
            "checkpoint_s3_uri": f"{BUCKET}/xgboost-spot/checkpoints/DEMO-xgboost-spot",
        },
        {"train": _train(f"{BUCKET}/xgboost-spot/train", content_type="libsvm")},
    ),
    "geodemo-xgboost-builtin-set-hyperparameters": PublicSetup(
        "BobbyNicholls/GeoDemo@7ef0b98 machine_learning/train_geo_model.py:11",
        ESTIMATOR,
        {
            "image_uri": call("sagemaker.image_uris.retrieve", "xgboost", "eu-west-2", "1.2-1"),
            "role": ROLE,
            "instance_count": 1,
            "instance_type": "ml.m5.xlarge",
            "output_path": f"{BUCKET}/model-output",
        },
        {"train": _train(f"{BUCKET}/bustard.libsvm")},
        set_hyperparameters={"objective": "reg:squarederror.", "num_round": 3},  # sic
        region="eu-west-2",
    ),
}


@dataclass(frozen=True)
class PublicTuning:
    """HyperparameterTuner(estimator of ``setup``, **kwargs), fit on the setup's inputs with the
    source's ``job_name`` (None: fit() without one, as the source: the tuner names the job from
    base_tuning_job_name and the clock, the estimator its own job from its base)."""

    source: str
    setup: str  # a key of SETUPS
    kwargs: dict[str, Any]
    inputs: dict[str, ChannelSpec] | None = None  # default: the setup's
    job_name: str | None = None


def _integer(low: int, high: int, **kwargs: Any) -> dict[str, Any]:
    return call("sagemaker.parameter.IntegerParameter", low, high, **kwargs)


def _continuous(low: float, high: float, **kwargs: Any) -> dict[str, Any]:
    return call("sagemaker.parameter.ContinuousParameter", low, high, **kwargs)


XGB_RANGES = {  # the spot notebook's hyperparameter_ranges (line 278)
    "max_depth": _integer(0, 10, scaling_type="Auto"),
    "num_round": _integer(1, 4000, scaling_type="Auto"),
    "alpha": _continuous(0, 2, scaling_type="Auto"),
    "subsample": _continuous(0.5, 1, scaling_type="Auto"),
    "min_child_weight": _continuous(0, 120, scaling_type="Auto"),
    "gamma": _continuous(0, 5, scaling_type="Auto"),
    "eta": _continuous(0.1, 0.5, scaling_type="Auto"),
}
XGB_TUNER = {
    "objective_metric_name": "validation:rmse",
    "hyperparameter_ranges": XGB_RANGES,
    "max_jobs": 6,
    "max_parallel_jobs": 2,
    "objective_type": "Minimize",
    # job_name = "DEMO-xgboost-spot-" + time.strftime("%Y-%m-%d-%H-%M-%S") (line 206): 37
    # characters, which the tuner cuts to 20 (DEMO-xgboost-spot-20).
    "base_tuning_job_name": "DEMO-xgboost-spot-2026-01-01-00-00-00",
}
SPOT_INPUTS = {  # the notebook re-uses the train channel for validation
    name: ChannelSpec(
        "TrainingInput", {"s3_data": f"{BUCKET}/xgboost-spot/train", "content_type": "libsvm"}
    )
    for name in ("train", "validation")
}
TF_TUNER = {  # test_tuner.py: epochs 1-2, "accuracy" from the tuner's own metric definition
    "objective_metric_name": "accuracy",
    "hyperparameter_ranges": {"epochs": _integer(1, 2)},
    "metric_definitions": [{"Name": "accuracy", "Regex": "Accuracy: ([0-9\\.]+)"}],
    "max_jobs": 2,
    "max_parallel_jobs": 2,
}

# unique_name_from_base("tune-tf", max_length=32) (test_tuner.py:743): base-<epoch>-<4 hex>.
TUNE_TF_NAME = "tune-tf-1767225600-5c5f"
KERAS_TUNER = {  # the tensorboard_keras notebook's tuner (line 337), fit() without a name
    "objective_metric_name": "validation:accuracy",
    "hyperparameter_ranges": {
        "learning-rate": _continuous(0.00001, 0.001),
        "batch-size": call("sagemaker.parameter.CategoricalParameter", [64, 128]),
        "optimizer": call("sagemaker.parameter.CategoricalParameter", ["sgd", "adam", "rmsprop"]),
    },
    "metric_definitions": KERAS_METRICS,
    "objective_type": "Maximize",
    "max_jobs": 4,
    "max_parallel_jobs": 2,
    "early_stopping_type": "Auto",
    "base_tuning_job_name": "remote-hpo",
}
YOLOV5_TUNER = {  # the yolov5 notebook's tuner (line 1535), fit() without a name
    "objective_metric_name": "mAP.5",
    "objective_type": "Maximize",
    "hyperparameter_ranges": {
        "epochs": _integer(10, 20),
        "batchsize": _integer(8, 64),
        "iou_t": _continuous(0.15, 0.25),
    },
    "metric_definitions": [{"Name": "mAP.5", "Regex": "(0\\.[0-9]{1,6}).{7,12}$"}],
    "max_jobs": 2,
    "max_parallel_jobs": 1,
    # "yolov5-project-hpo-" + str(uuid): 55 characters, which the tuner cuts to 20.
    "base_tuning_job_name": f"yolov5-project-hpo-{YOLOV5_UUID}",
}
TF_HPO_TUNER = {  # the tutorial's tuner, fit(job_name=f"tf-hpo-{time.strftime(...)}")
    "objective_metric_name": "val_acc",
    "hyperparameter_ranges": {
        "epochs": _integer(5, 30),
        "learning-rate": _continuous(0.001, 0.1, scaling_type="Logarithmic"),
        "batch-size": call("sagemaker.parameter.CategoricalParameter", ["128", "256", "512"]),
        "momentum": _continuous(0.9, 0.99),
        "optimizer": call("sagemaker.parameter.CategoricalParameter", ["sgd", "adam"]),
    },
    "metric_definitions": [{"Name": "val_acc", "Regex": "val_acc: ([0-9\\.]+)"}],
    "max_jobs": 16,
    "max_parallel_jobs": 8,
    "objective_type": "Maximize",
}

TUNINGS: dict[str, PublicTuning] = {
    "examples-xgboost-builtin-spot-tuner": PublicTuning(
        f"{EXAMPLES} {SPOT_NOTEBOOK}:294", "examples-xgboost-builtin-spot", XGB_TUNER, SPOT_INPUTS
    ),
    "examples-xgboost-script-spot-tuner": PublicTuning(
        f"{EXAMPLES} {SPOT_NOTEBOOK}:422", "examples-xgboost-script-spot", XGB_TUNER, SPOT_INPUTS
    ),
    "sdk-tuner-tf": PublicTuning(
        f"{SDK_INTEG} tests/integ/test_tuner.py:718",
        "sdk-tuner-tf",
        TF_TUNER,
        job_name=TUNE_TF_NAME,
    ),
    "sdk-tuner-tf-vpc": PublicTuning(
        f"{SDK_INTEG} tests/integ/test_tuner.py:778",
        "sdk-tuner-tf-vpc",
        TF_TUNER,
        job_name=TUNE_TF_NAME,
    ),
    "examples-tensorboard-keras-hpo": PublicTuning(
        f"{EXAMPLES} {TENSORBOARD_NOTEBOOK}:337",
        "examples-tensorboard-keras-hpo-estimator",
        KERAS_TUNER,
    ),
    "examples-yolov5-hpo": PublicTuning(
        f"{EXAMPLES} {YOLOV5_NOTEBOOK}:1535", "examples-yolov5-exact-name", YOLOV5_TUNER
    ),
    "build-on-aws-tf-hpo-exact-name": PublicTuning(
        f"{BUILD_ON_AWS}/index.md, section 'Tuning the model with Amazon SageMaker automatic "
        "model tuning'",
        "build-on-aws-tf-hpo-estimator",
        TF_HPO_TUNER,
        job_name="tf-hpo-2026-01-01-00-00-00",
    ),
}

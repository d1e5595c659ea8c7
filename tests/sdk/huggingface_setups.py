"""Hugging Face estimators written by others, recorded as data with the file and line of their
constructor: Hugging Face's SageMaker notebooks (huggingface/notebooks at 5068b11, sagemaker/)
and the SDK's own integration tests (aws/sagemaker-python-sdk at tag v2.257.6). As in
public_setups.py only what must change to run offline changed: roles, buckets and accounts are
placeholders, a local or git ``source_dir`` is the S3 bundle ``CODE``, a pytest fixture is the
value its conftest gives, a notebook variable is the value its cell sets.
"""

from __future__ import annotations

from sagelaunch.sdk.estimator import ChannelSpec
from tests.sdk.public_setups import BUCKET, CODE, ROLE, PublicSetup

HUGGINGFACE = "sagemaker.huggingface.HuggingFace"
NOTEBOOKS = "huggingface/notebooks@5068b11 sagemaker"
SDK_INTEG = "aws/sagemaker-python-sdk@v2.257.6"


def _s3(name: str) -> ChannelSpec:
    return ChannelSpec("TrainingInput", {"s3_data": f"{BUCKET}/samples/datasets/{name}"})


TRAIN_TEST = {"train": _s3("train"), "test": _s3("test")}
# The notebooks' Trainer metric regexes (03 and 04 write the same five).
TRAINER_METRICS = [
    {"Name": "train_runtime", "Regex": r"train_runtime.*=\D*(.*?)$"},
    {"Name": "train_samples_per_second", "Regex": r"train_samples_per_second.*=\D*(.*?)$"},
    {"Name": "epoch", "Regex": r"epoch.*=\D*(.*?)$"},
    {"Name": "f1", "Regex": r"f1.*=\D*(.*?)$"},
    {"Name": "exact_match", "Regex": r"exact_match.*=\D*(.*?)$"},
]
LOG_METRICS = [  # 06_sagemaker_metrics, cell 17
    {"Name": name, "Regex": f"'{name}': ([0-9]+(.|e\\-)[0-9]+),?"}
    for name in (
        "loss", "learning_rate", "eval_loss", "eval_accuracy", "eval_f1", "eval_precision",
        "eval_recall", "eval_runtime", "eval_samples_per_second", "epoch",
    )
]  # fmt: skip

SETUPS: dict[str, PublicSetup] = {
    "hf-getting-started-pytorch": PublicSetup(
        f"{NOTEBOOKS}/01_getting_started_pytorch/sagemaker-notebook.ipynb:325",
        HUGGINGFACE,
        {
            "entry_point": "train.py",
            "source_dir": CODE,
            "instance_type": "ml.p3.2xlarge",
            "instance_count": 1,
            "role": ROLE,
            "transformers_version": "4.26",
            "pytorch_version": "1.13",
            "py_version": "py39",
            "hyperparameters": {
                "epochs": 1,
                "train_batch_size": 32,
                "model_name": "distilbert-base-uncased",
            },
        },
        TRAIN_TEST,
    ),
    "hf-getting-started-tensorflow": PublicSetup(
        f"{NOTEBOOKS}/02_getting_started_tensorflow/sagemaker-notebook.ipynb:334",
        HUGGINGFACE,
        {
            "entry_point": "train.py",
            "source_dir": CODE,
            "instance_type": "ml.p3.2xlarge",
            "instance_count": 1,
            "role": ROLE,
            "transformers_version": "4.12",
            "tensorflow_version": "2.5",
            "py_version": "py37",
            "hyperparameters": {
                "epochs": 1,
                "train_batch_size": 16,
                "eval_batch_size": 32,
                "model_id": "distilbert-base-uncased",
            },
        },
    ),
    "hf-smddp-question-answering": PublicSetup(
        f"{NOTEBOOKS}/03_distributed_training_data_parallelism/sagemaker-notebook.ipynb:251",
        HUGGINGFACE,
        {
            "entry_point": "run_qa.py",
            "source_dir": CODE,  # the notebook's git_config checkout of transformers v4.26.0
            "metric_definitions": TRAINER_METRICS,
            "instance_type": "ml.p3.16xlarge",
            "instance_count": 2,
            "volume_size": 200,
            "role": ROLE,
            "transformers_version": "4.26.0",
            "pytorch_version": "1.13.1",
            "py_version": "py39",
            "distribution": {"smdistributed": {"dataparallel": {"enabled": True}}},
            "hyperparameters": {
                "model_name_or_path": "bert-large-uncased-whole-word-masking",
                "dataset_name": "squad",
                "do_train": True,
                "do_eval": True,
                "fp16": True,
                "per_device_train_batch_size": 4,
                "per_device_eval_batch_size": 4,
                "num_train_epochs": 2,
                "max_seq_length": 384,
                "max_steps": 100,
                "pad_to_max_length": True,
                "doc_stride": 128,
                "output_dir": "/opt/ml/model",
            },
        },
    ),
    "hf-smp-v1-glue": PublicSetup(
        f"{NOTEBOOKS}/04_distributed_training_model_parallelism/sagemaker-notebook.ipynb:274",
        HUGGINGFACE,
        {
            "entry_point": "run_glue.py",
            "source_dir": CODE,  # git_config: transformers v4.26.0
            "metrics_definition": TRAINER_METRICS,  # misspelt there: the SDK drops it
            "instance_type": "ml.p3.16xlarge",
            "instance_count": 1,
            "volume_size": 200,
            "role": ROLE,
            "transformers_version": "4.26.0",
            "pytorch_version": "1.13.1",
            "py_version": "py39",
            "distribution": {
                "smdistributed": {
                    "modelparallel": {
                        "enabled": True,
                        "parameters": {
                            "microbatches": 4,
                            "placement_strategy": "spread",
                            "pipeline": "interleaved",
                            "optimize": "speed",
                            "partitions": 4,
                            "ddp": True,
                        },
                    }
                },
                "mpi": {"enabled": True, "processes_per_host": 8},
            },
            "hyperparameters": {
                "model_name_or_path": "roberta-large",
                "task_name": "mnli",
                "per_device_train_batch_size": 16,
                "per_device_eval_batch_size": 16,
                "do_train": True,
                "do_eval": True,
                "do_predict": True,
                "num_train_epochs": 2,
                "output_dir": "/opt/ml/model",
                "max_steps": 500,
            },
            "debugger_hook_config": False,
        },
    ),
    "hf-spot-checkpoints": PublicSetup(
        f"{NOTEBOOKS}/05_spot_instances/sagemaker-notebook.ipynb:263",
        HUGGINGFACE,
        {
            "entry_point": "train.py",
            "source_dir": CODE,
            "instance_type": "ml.p3.2xlarge",
            "instance_count": 1,
            "base_job_name": "emotion-checkpointing",
            "role": ROLE,
            "transformers_version": "4.26.0",
            "pytorch_version": "1.13.1",
            "py_version": "py39",
            "hyperparameters": {
                "epochs": 1,
                "train_batch_size": 32,
                "eval_batch_size": 64,
                "learning_rate": 3e-5,
                "model_id": "distilbert-base-uncased",
                "fp16": True,
                "output_dir": "/opt/ml/checkpoints",
            },
            "use_spot_instances": True,
            "max_wait": 7200,
            "max_run": 4000,
            "checkpoint_s3_uri": f"{BUCKET}/emotion-checkpointing/checkpoints",
        },
        TRAIN_TEST,
    ),
    "hf-sagemaker-metrics": PublicSetup(
        f"{NOTEBOOKS}/06_sagemaker_metrics/sagemaker-notebook.ipynb:324",
        HUGGINGFACE,
        {
            "entry_point": "train.py",
            "source_dir": CODE,
            "instance_type": "ml.p3.2xlarge",
            "instance_count": 1,
            "transformers_version": "4.26",
            "pytorch_version": "1.13",
            "py_version": "py39",
            "role": ROLE,
            "hyperparameters": {
                "epochs": 3,
                "train_batch_size": 32,
                "checkpoints": "/opt/ml/checkpoints/",
                "model_name": "distilbert-base-uncased",
            },
            "metric_definitions": LOG_METRICS,
        },
        TRAIN_TEST,
    ),
    "hf-tensorflow-smddp": PublicSetup(
        f"{NOTEBOOKS}/07_tensorflow_distributed_training_data_parallelism/"
        "sagemaker-notebook.ipynb:440",
        HUGGINGFACE,
        {
            "entry_point": "train.py",
            "source_dir": CODE,
            "instance_type": "ml.p3dn.24xlarge",
            "instance_count": 2,
            "role": ROLE,
            "transformers_version": "4.6",
            "tensorflow_version": "2.4",
            "py_version": "py37",
            "distribution": {"smdistributed": {"dataparallel": {"enabled": True}}},
            "hyperparameters": {
                "epochs": 1,
                "train_batch_size": 16,
                "model_name": "distilbert-base-uncased",
            },
            "debugger_hook_config": False,
        },
    ),
    "hf-fsdp-torch-distributed-2xp4d": PublicSetup(
        f"{NOTEBOOKS}/25_pytorch_fsdp_model_parallelism/sagemaker-notebook.ipynb:284",
        HUGGINGFACE,
        {
            "entry_point": "run_clm.py",
            "source_dir": CODE,
            "instance_type": "ml.p4d.24xlarge",
            "instance_count": 2,
            "volume_size": 200,
            "role": ROLE,
            "job_name": "huggingface-fsdp-2026-01-01-00-00-00",  # an estimator kwarg there
            "transformers_version": "4.26.0",
            "pytorch_version": "1.13.1",
            "py_version": "py39",
            "hyperparameters": {
                "model_id": "togethercomputer/GPT-NeoXT-Chat-Base-20B",
                "dataset_path": "/opt/ml/input/data/training",
                "gradient_checkpointing": True,
                "bf16": True,
                "optimizer": "adamw_apex_fused",
                "per_device_train_batch_size": 2,
                "epochs": 3,
                "fsdp": '"full_shard auto_wrap"',
                "fsdp_transformer_layer_cls_to_wrap": "GPTNeoXLayer",
            },
            "distribution": {"torch_distributed": {"enabled": True}},
        },
        {"training": _s3("training")},
    ),
    "hf-qlora-environment": PublicSetup(
        f"{NOTEBOOKS}/28_train_llms_with_qlora/sagemaker-notebook.ipynb:320",
        HUGGINGFACE,
        {
            "entry_point": "run_clm.py",
            "source_dir": CODE,
            "instance_type": "ml.g5.12xlarge",
            "instance_count": 1,
            "base_job_name": "huggingface-qlora-2026-01-01-00-00-00",
            "role": ROLE,
            "volume_size": 300,
            "transformers_version": "4.28",
            "pytorch_version": "2.0",
            "py_version": "py310",
            "hyperparameters": {
                "model_id": "tiiuae/falcon-40b",
                "dataset_path": "/opt/ml/input/data/training",
                "epochs": 3,
                "per_device_train_batch_size": 4,
                "lr": 2e-4,
            },
            "environment": {"HUGGINGFACE_HUB_CACHE": "/tmp/.cache"},
        },
        {"training": _s3("training")},
    ),
    "hf-embeddings-uncompressed": PublicSetup(
        f"{NOTEBOOKS}/32_train_deploy_embedding_models/sagemaker-notebook.ipynb:190",
        HUGGINGFACE,
        {
            "entry_point": "run_mnr.py",
            "source_dir": CODE,
            "instance_type": "ml.g5.xlarge",
            "instance_count": 1,
            "max_run": 2 * 24 * 60 * 60,
            "base_job_name": "bge-base-exp1",
            "role": ROLE,
            "transformers_version": "4.36.0",
            "pytorch_version": "2.1.0",
            "py_version": "py310",
            "hyperparameters": {
                "model_id": "BAAI/bge-base-en-v1.5",
                "train_dataset_path": "/opt/ml/input/data/train/",
                "test_dataset_path": "/opt/ml/input/data/test/",
                "num_train_epochs": 3,
                "learning_rate": 2e-5,
            },
            "disable_output_compression": True,
            "environment": {"HUGGINGFACE_HUB_CACHE": "/tmp/.cache"},
        },
        TRAIN_TEST,
    ),
    "sdk-hf-torch-distributed-g5": PublicSetup(
        f"{SDK_INTEG} tests/integ/test_huggingface_torch_distributed.py:29",
        HUGGINGFACE,
        {
            "py_version": "py312",  # huggingface_pytorch_latest_training_py_version (>= 2.6)
            "source_dir": CODE,
            "entry_point": "run_glue.py",
            "role": ROLE,
            "transformers_version": "4.56.2",  # the latest the installed SDK's table lists
            "pytorch_version": "2.8.0",
            "instance_count": 1,
            "instance_type": "ml.g5.4xlarge",
            "hyperparameters": {
                "model_name_or_path": "distilbert-base-cased",
                "task_name": "wnli",
                "do_train": True,
                "do_eval": True,
                "max_seq_length": 128,
                "fp16": True,
                "per_device_train_batch_size": 32,
                "output_dir": "/opt/ml/model",
            },
            "distribution": {"torch_distributed": {"enabled": True}},
            "disable_profiler": True,
        },
    ),
    "sdk-hf-training": PublicSetup(
        f"{SDK_INTEG} tests/integ/test_huggingface.py:80",
        HUGGINGFACE,
        {
            "py_version": "py312",
            "source_dir": CODE,
            "entry_point": "run_glue.py",
            "role": ROLE,
            "transformers_version": "4.56.2",
            "pytorch_version": "2.8.0",
            "instance_count": 1,
            "instance_type": "ml.g4dn.xlarge",  # gpu_pytorch_instance_type
            "hyperparameters": {
                "model_name_or_path": "distilbert-base-cased",
                "task_name": "wnli",
                "do_train": True,
                "do_eval": True,
                "max_seq_length": 128,
                "fp16": True,
                "per_device_train_batch_size": 128,
                "output_dir": "/opt/ml/model",
            },
            "disable_profiler": True,
        },
        {"training": ChannelSpec("TrainingInput", {"s3_data": f"{BUCKET}/integ-test-data/hf"})},
    ),
}

"""The baseline for bench_submit: what a hand-written script does to submit the same job —
import the SDK, build the SMDDP estimator of launch_configs/smddp-p4d.yaml with the local
entry points as source_dir, and `fit(wait=False)` (it tars and uploads the code every time).

Nothing is stubbed: the SDK's own calls (including its telemetry) are what is counted. The bench
points AWS_ENDPOINT_URL at moto and HTTPS_PROXY at its counting proxy, so all stays on loopback.
"""

import sys

import boto3
import sagemaker
from sagemaker.inputs import TrainingInput
from sagemaker.pytorch import PyTorch

session = sagemaker.session.Session(boto_session=boto3.Session(region_name="us-east-1"))
estimator = PyTorch(
    entry_point="train_pytorch.py",
    source_dir=sys.argv[1],
    framework_version="2.2.0",
    py_version="py310",
    role="arn:aws:iam::111122223333:role/SageMakerRole",
    instance_type="ml.p4d.24xlarge",
    instance_count=2,
    volume_size=100,
    max_run=86400,
    output_path="s3://sagelaunch-examples/output/",
    environment={"NCCL_DEBUG": "WARN"},
    disable_profiler=True,
    debugger_hook_config=False,
    sagemaker_session=session,
    distribution={"smdistributed": {"dataparallel": {"enabled": True, "custom_mpi_options": ""}}},
    hyperparameters={
        "model": "gpt",
        "n_layer": 12,
        "n_embd": 768,
        "n_head": 12,
        "max_steps": 5000,
        "batch_size": 16,
    },
)
estimator.fit(
    {"train": TrainingInput("s3://sagelaunch-examples/tokens/train/")}, wait=False, logs=False
)

"""The baseline for bench_plan: what a hand-written script does to see the same request —
import the SDK, build the SMDDP estimator of launch_configs/smddp-p4d.yaml, capture the request."""

import json
import sys

import boto3
import sagemaker
import sagemaker.telemetry.telemetry_logging as telemetry
from sagemaker.inputs import TrainingInput
from sagemaker.pytorch import PyTorch

telemetry._send_telemetry_request = lambda *a, **k: None


class Capture(sagemaker.session.Session):
    def _intercept_create_request(self, request, create, func_name=None):
        self.captured = request


session = Capture(
    boto_session=boto3.Session(
        region_name="us-east-1", aws_access_key_id="k", aws_secret_access_key="s"
    )
)
estimator = PyTorch(
    entry_point="train_pytorch.py",
    source_dir="s3://sagelaunch-examples/output/code/sourcedir.tar.gz",
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
    hyperparameters={"model": "gpt", "max_steps": 5000},
)
estimator.fit(
    {"train": TrainingInput("s3://sagelaunch-examples/tokens/train/")},
    wait=False,
    logs=False,
    job_name="bert-smddp-1",
)
json.dump(session.captured, sys.stdout)

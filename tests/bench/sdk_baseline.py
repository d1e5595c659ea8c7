"""The job of launch_configs/smddp-p4d.yaml (with its team base) written by hand with the plain
SDK: the baseline the plan and submit benchmarks run against. Run as a sibling of the scripts
that import it (their own folder is on sys.path)."""

from sagemaker.inputs import TrainingInput
from sagemaker.pytorch import PyTorch

INPUTS = {"train": TrainingInput("s3://sagelaunch-examples/tokens/train/")}


def smddp_estimator(session, source_dir):
    return PyTorch(
        entry_point="train_pytorch.py",
        source_dir=source_dir,
        framework_version="2.2.0",
        py_version="py310",
        role="arn:aws:iam::111122223333:role/SageMakerRole",
        instance_type="ml.p4d.24xlarge",
        instance_count=2,
        volume_size=100,
        max_run=86400,
        output_path="s3://sagelaunch-examples/output/",
        environment={"NCCL_DEBUG": "WARN"},
        tags=[{"Key": "team", "Value": "ml-platform"}, {"Key": "cost-center", "Value": "4711"}],
        disable_profiler=True,
        debugger_hook_config=False,
        sagemaker_session=session,
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
    )

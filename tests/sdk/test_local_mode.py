"""`local --docker`: the plan's estimator moved to the SDK's local mode. Building it on a real
LocalSession runs the SDK's own local-mode checks (no spot, no S3 checkpoints, one local_gpu
container); only `fit` needs Docker, which these machines do not have."""

from __future__ import annotations

from dataclasses import replace

import pytest
import sagemaker.estimator
import sagemaker.local

from sagelaunch.aws.session import boto3_session
from sagelaunch.config.loader import load
from sagelaunch.sdk.capture import build_estimator
from sagelaunch.sdk.local_mode import REJECTED_IN_LOCAL_MODE, local_mode_spec

ROLE = "arn:aws:iam::111122223333:role/SageMakerRole"


def spec_for(make_config, tmp_path, overrides):
    (tmp_path / "data").mkdir(exist_ok=True)
    loaded = load(make_config(overrides))
    return local_mode_spec(
        loaded, role=ROLE, region="us-east-1", hosts=2, output_dir=tmp_path / "out"
    )


def test_cpu_instances_become_local_hosts_with_file_channels(make_config, tmp_path):
    spec = spec_for(
        make_config,
        tmp_path,
        {
            "compute": {
                "instance_type": "ml.m5.xlarge",
                "instance_count": 4,
                "spot": {"max_wait": "2d"},
                "retries": 2,
            },
            "checkpoint": {"s3_uri": "s3://bkt/ckpt/"},
            "inputs": {"train": "s3://bkt/train/", "validation": "s3://bkt/val/"},
            "hyperparameters": {"max_steps": 100},
            "local": {"inputs": {"train": "data"}, "hyperparameters": {"max_steps": 5}},
        },
    )
    assert spec.kwargs["instance_type"] == "local" and spec.kwargs["instance_count"] == 2
    assert not set(REJECTED_IN_LOCAL_MODE) & set(spec.kwargs)
    assert spec.kwargs["output_path"] == f"file://{tmp_path / 'out'}"
    assert spec.kwargs["source_dir"] == str(tmp_path / "code")
    assert spec.kwargs["hyperparameters"] == {"max_steps": 5}
    assert spec.inputs["train"].kwargs["s3_data"] == f"file://{tmp_path / 'data'}"
    assert spec.inputs["validation"].kwargs["s3_data"] == "s3://bkt/val/"  # the SDK downloads it


@pytest.mark.parametrize(
    ("instance_type", "local_type", "containers"),
    [("ml.m5.xlarge", "local", 2), ("ml.g5.2xlarge", "local_gpu", 1)],
)
def test_the_sdk_accepts_it_on_a_local_session(
    make_config, tmp_path, instance_type, local_type, containers
):
    overrides = {
        "compute": {"instance_type": instance_type, "spot": {"max_wait": "2d"}},
        "checkpoint": {"s3_uri": "s3://bkt/ckpt/"},
    }
    spec = spec_for(make_config, tmp_path, overrides)
    session = sagemaker.local.LocalSession(boto_session=boto3_session("us-east-1"))
    estimator = build_estimator(spec, session)
    assert (estimator.instance_type, estimator.instance_count) == (local_type, containers)
    # fit() would run the SDK's local-mode check on spot and checkpoints (the method below):
    # it passes for the adapted estimator and refuses one that kept them.
    check = sagemaker.estimator._TrainingJob._add_spot_checkpoint_args
    check(True, estimator, {})
    spot = replace(spec, kwargs={**spec.kwargs, "use_spot_instances": True, "max_wait": 7200})
    with pytest.raises(ValueError, match="Spot training is not supported in local mode"):
        check(True, build_estimator(spot, session), {})

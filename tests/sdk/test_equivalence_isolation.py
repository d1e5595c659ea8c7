"""Network isolation in script mode: `plan` sends the `code` channel and the
`sagemaker_submit_directory` the SDK itself sends (estimator.py: with enable_network_isolation the
bundle goes in as an input channel named ``code`` and the script is found at
``/opt/ml/input/data/code/sourcedir.tar.gz``), captured from a hand-written estimator."""

from __future__ import annotations

import pytest
from sagemaker.inputs import TrainingInput
from sagemaker.pytorch import PyTorch
from sagemaker.tensorflow import TensorFlow

from tests.golden.regenerate import ROLE, golden_plan

OUT = "s3://bkt/out/"
CONFIG = """\
name: isolated
framework: {framework}
entry_point: {entry_point}
framework_version: "{version}"
region: us-east-1
output_path: {out}
compute: {{instance_type: ml.m5.xlarge, instance_count: 2}}
network: {{isolation: true}}
metrics: []
hyperparameters: {{epochs: 3}}
inputs:
  train: s3://bkt/data/train/
"""
CASES = {
    "pytorch": ("train_pytorch.py", "2.2.0", PyTorch, {"py_version": "py310"}),
    "tensorflow": ("train_tensorflow.py", "2.16", TensorFlow, {"py_version": "py310"}),
}


def ours(tmp_path, framework: str) -> tuple[dict, str]:
    entry_point, version, _, _ = CASES[framework]
    path = tmp_path / "isolated.yaml"
    path.write_text(
        CONFIG.format(framework=framework, entry_point=entry_point, version=version, out=OUT)
    )
    plan = golden_plan(path)
    return plan["request"], plan["upload"]["s3_uri"]


@pytest.mark.parametrize("framework", sorted(CASES))
def test_the_code_channel_is_the_sdks(tmp_path, sdk_request, framework):
    request, code = ours(tmp_path, framework)
    entry_point, version, estimator, extra = CASES[framework]
    expected = sdk_request(
        lambda s: estimator(
            entry_point=entry_point,
            source_dir=code,
            framework_version=version,
            instance_type="ml.m5.xlarge",
            instance_count=2,
            role=ROLE,
            output_path=OUT,
            enable_network_isolation=True,
            hyperparameters={"epochs": 3},
            sagemaker_session=s,
            **extra,
        ),
        {"train": TrainingInput("s3://bkt/data/train/")},
    )
    assert request["InputDataConfig"] == expected["InputDataConfig"]
    assert request == expected

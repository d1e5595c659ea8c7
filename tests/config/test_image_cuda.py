"""A framework image runs on the instance's GPU only with a CUDA that compiles for it: the image's
CUDA read from its published definition (data/images/), the GPU's needs from NVIDIA's data
(data/cuda.json). The oracle for each image's CUDA is its DLC definition path (cuNNN) or the
CUDA base image it builds FROM."""

from __future__ import annotations

import pytest

from sagelaunch.config import image_cuda
from sagelaunch.config.loader import load
from sagelaunch.config.rules import RULES

RULE = "image_cuda_runs_on_the_gpu"


def found(make_config, overrides):
    return list(RULES[RULE](load(make_config(overrides))))


def test_each_gpu_image_says_its_cuda():
    """Every GPU image of PyTorch and TensorFlow sagelaunch ships a definition of tells its CUDA,
    and a later framework version never has an older one."""
    for framework in ("pytorch", "tensorflow"):
        images = image_cuda.gpu_images(framework)
        assert len(images) >= 5, framework
        cudas = [cuda for _, _, cuda, _ in images]
        assert cudas == sorted(cudas), framework
    assert image_cuda.definition_cuda("pytorch-2.8-gpu.Dockerfile") == (12, 9)  # .../cu129/...
    assert image_cuda.definition_cuda("pytorch-gpu.Dockerfile") == (13, 0)  # ARG CUDA_VERSION


def test_blackwell_refuses_an_image_before_cuda_12_8_at_its_line(make_config):
    (problem,) = found(
        make_config,
        ({"compute": {"instance_type": "ml.p6-b200.48xlarge"}, "framework_version": "2.6.0"}),
    )
    assert problem.severity == "error" and problem.path == "framework_version" and problem.line
    assert "the B200 of ml.p6-b200.48xlarge (compute capability 10.0) needs CUDA 12.8" in (
        problem.message
    )
    assert "use framework_version '2.7.1' or later" in problem.message


@pytest.mark.parametrize(
    ("instance_type", "version"),
    [
        ("ml.p6-b200.48xlarge", "2.7.1"),  # cu128
        ("ml.p6-b300.48xlarge", "2.7.1"),  # 10.3 runs CUDA 12.8's 10.0 code
        ("ml.p5.48xlarge", "2.3.0"),  # Hopper: CUDA 12.1 >= 11.8
        ("ml.g6e.12xlarge", "2.3.0"),  # Ada
        ("ml.c5.xlarge", "2.2.0"),  # no GPU
    ],
)
def test_an_image_new_enough_for_the_gpu_validates(make_config, instance_type, version):
    assert (
        found(
            make_config,
            ({"compute": {"instance_type": instance_type}, "framework_version": version}),
        )
        == []
    )


def test_an_older_version_than_any_described_image_is_older_still(make_config):
    (problem,) = found(
        make_config,
        ({"compute": {"instance_type": "ml.g7e.2xlarge"}, "framework_version": "1.13.1"}),
    )
    assert (
        "CUDA at most 12.1, 2.3's" in problem.message and "RTX PRO Server 6000" in problem.message
    )


def test_an_image_uri_or_an_unknown_cuda_is_not_refused(make_config):
    b200 = {"instance_type": "ml.p6-b200.48xlarge"}
    own = {
        "compute": b200,
        "framework_version": "2.6.0",
        "image_uri": "1.dkr.ecr.us-east-1.amazonaws.com/x:1",
    }
    assert found(make_config, own) == []
    # XGBoost's images say CUDA 11.6 / 12.6: advice, since its kernels may carry PTX.
    xgb = {"framework": "xgboost", "framework_version": "1.7-1", "compute": b200}
    (advice,) = found(make_config, xgb)
    assert advice.severity == "warning" and "PTX" in advice.message

"""A framework image runs on the instance's GPU only with a CUDA that compiles for it: the image's
CUDA read from its tag (the SDK's huggingface.json container_version, SMP v2) or its published
definition (data/images/), the GPU's needs from NVIDIA's data (data/cuda.json). The oracle for
each image's CUDA is its DLC definition path (cuNNN), the CUDA base image it builds FROM, or the
CUDA suffix the SDK's table puts in its tag."""

from __future__ import annotations

import pytest

from sagelaunch.catalog import facts
from sagelaunch.checks.rules import RULES
from sagelaunch.config.loader import load
from sagelaunch.plan import image_cuda

RULE = "image_cuda_runs_on_the_gpu"
B200 = {"instance_type": "ml.p6-b200.48xlarge"}


def found(make_config, overrides):
    return list(RULES[RULE](load(make_config(overrides))))


def test_each_gpu_image_says_its_cuda():
    """Every GPU image of PyTorch and TensorFlow sagelaunch ships a definition of tells its CUDA,
    and a later framework version never has an older one (what the bound for older versions
    rests on)."""
    for framework in ("pytorch", "tensorflow"):
        images = image_cuda.gpu_images(framework)
        assert len(images) >= 5, framework
        cudas = [cuda for _, _, cuda, _ in images]
        assert cudas == sorted(cudas), framework
    assert image_cuda.definition_cuda("pytorch-2.8-gpu.Dockerfile") == (12, 9)  # .../cu129/...
    assert image_cuda.definition_cuda("pytorch-gpu.Dockerfile") == (13, 0)  # ARG CUDA_VERSION
    assert image_cuda.definition_cuda("pytorch-2.11-gpu.pyproject.toml") == (13, 0)  # whl/cu130
    assert image_cuda.tag_cuda("x.dkr.ecr.us-east-1.amazonaws.com/r:2.5.1-gpu-py311-cu124") == (
        12,
        4,
    )


def test_the_data_knows_every_gpu_of_the_catalog():
    """Each NVIDIA GPU the instance catalog names has a compute capability, and each capability
    a first CUDA (NVIDIA's): Blackwell 12.8 (B300's 10.3 runs 10.0 code), Hopper 11.8; Ada (8.9,
    native from 11.8) and A10G (8.6) run 8.0 code, CUDA 11.0's, within their major version."""
    table = facts.load("cuda")
    assert table["sources"] and table["as_of"]
    assert set(table["first_cuda"]) >= set(table["gpus"].values())
    needs = {
        "ml.p6-b200.48xlarge": ("B200", "10.0", (12, 8)),
        "ml.p6-b300.48xlarge": ("B300", "10.3", (12, 8)),
        "ml.p6e-gb200.36xlarge": ("GB200", "10.0", (12, 8)),
        "ml.g7e.2xlarge": ("RTX PRO Server 6000", "12.0", (12, 8)),
        "ml.p5.48xlarge": ("H100", "9.0", (11, 8)),
        "ml.p5.4xlarge": ("H100", "9.0", (11, 8)),
        "ml.g6e.12xlarge": ("L40S", "8.9", (11, 0)),
        "ml.g6.xlarge": ("L4", "8.9", (11, 0)),
        "ml.g5.xlarge": ("A10G", "8.6", (11, 0)),
    }
    for instance_type, expected in needs.items():
        assert image_cuda.gpu_needs(instance_type) == expected, instance_type
    assert image_cuda.gpu_needs("ml.c5.xlarge") is None
    assert image_cuda.gpu_needs("ml.trn1.32xlarge") is None


def test_blackwell_refuses_an_image_before_cuda_12_8_at_its_line(make_config):
    (problem,) = found(make_config, {"compute": B200, "framework_version": "2.6.0"})
    assert problem.severity == "error" and problem.path == "framework_version" and problem.line
    assert "pytorch 2.6.0's GPU image has CUDA 12.6 (its definition, data/images/pytorch-2.6-" in (
        problem.message
    )
    assert "the B200 of ml.p6-b200.48xlarge (compute capability 10.0) needs CUDA 12.8" in (
        problem.message
    )
    assert problem.message.endswith("use framework_version '2.7.1' or later")


@pytest.mark.parametrize(
    ("instance_type", "version"),
    [
        ("ml.p6-b200.48xlarge", "2.7.1"),  # cu128
        ("ml.p6-b300.48xlarge", "2.7.1"),  # 10.3 runs CUDA 12.8's 10.0 code
        ("ml.p6e-gb200.36xlarge", "2.8.0"),  # cu129
        ("ml.p5.48xlarge", "2.3.0"),  # Hopper: CUDA 12.1 >= 11.8
        ("ml.p5.48xlarge", "1.13.1"),  # older than any definition: at most 12.1, not told
        ("ml.g6e.12xlarge", "2.3.0"),  # Ada
        ("ml.g5.xlarge", "2.2.0"),
        ("ml.c5.xlarge", "2.2.0"),  # no GPU
    ],
)
def test_an_image_new_enough_for_the_gpu_validates(make_config, instance_type, version):
    config = {"compute": {"instance_type": instance_type}, "framework_version": version}
    assert found(make_config, config) == []


def test_an_older_version_than_any_described_image_is_advice(make_config):
    """Its CUDA is not read but bounded (at most the oldest described image's): advice."""
    config = {"compute": {"instance_type": "ml.g7e.2xlarge"}, "framework_version": "2.2.0"}
    (problem,) = found(make_config, config)
    assert problem.severity == "warning"
    assert "CUDA at most 12.1 (no definition of it is shipped; the oldest, 2.3's" in (
        problem.message
    )
    assert "RTX PRO Server 6000" in problem.message and "'2.7.1'" in problem.message


def test_a_hugging_face_image_is_read_from_its_tag(make_config):
    """huggingface.json's container_version (cu124) is the image's CUDA; the fix names the first
    Transformers/PyTorch pair of the table whose tag has CUDA 12.8."""
    hf = {"framework": "huggingface", "transformers_version": "4.49.0", "pytorch_version": "2.5.1"}
    (problem,) = found(make_config, {**hf, "framework_version": None, "compute": B200})
    assert problem.severity == "error" and problem.path == "transformers_version"
    assert "CUDA 12.4 (its tag, 2.5.1-transformers4.49.0-gpu-py311-cu124-ubuntu22.04)" in (
        problem.message
    )
    assert "use transformers_version '4.55.0' with pytorch_version '2.7.1' or later" in (
        problem.message
    )
    new = {**hf, "transformers_version": "4.55.0", "pytorch_version": "2.7.1"}
    assert found(make_config, {**new, "framework_version": None, "compute": B200}) == []


def test_tensorflow_is_advice_and_names_no_version_the_sdk_lacks(make_config):
    tf = {"framework": "tensorflow", "framework_version": "2.19.0", "compute": B200}
    (advice,) = found(make_config, tf)
    assert advice.severity == "warning" and "CUDA 12.5" in advice.message
    assert "PTX" in advice.message and "pass image_uri" in advice.message


def test_an_image_uri_or_xgboost_is_not_checked(make_config):
    """An image_uri is the user's choice; XGBoost's GPU code is its pip wheel's own build, which
    no shipped definition describes."""
    own = {
        "compute": B200,
        "framework_version": "2.6.0",
        "image_uri": "1.dkr.ecr.us-east-1.amazonaws.com/x:1",
    }
    assert found(make_config, own) == []
    xgb = {"framework": "xgboost", "framework_version": "1.7-1", "compute": B200}
    assert found(make_config, xgb) == []


def test_every_group_of_a_heterogeneous_job_runs_the_image(make_config):
    """The SDK resolves the image for the first group (a GPU image here); a later group's GPU
    runs it too."""
    groups = {
        "instance_type": None,
        "instance_count": None,
        "groups": [
            {"name": "small", "instance_type": "ml.g5.2xlarge", "instance_count": 1},
            {"name": "dnn", "instance_type": "ml.p6-b200.48xlarge", "instance_count": 1},
        ],
    }
    (problem,) = found(make_config, {"compute": groups, "framework_version": "2.6.0"})
    assert "ml.p6-b200.48xlarge" in problem.message


def test_plan_shows_the_image_cuda_where_told():
    registry = "763104351884.dkr.ecr.us-east-1.amazonaws.com"
    assert image_cuda.plan_note(f"{registry}/pytorch-training:2.7.1-gpu-py312") == "  (CUDA 12.8)"
    assert image_cuda.plan_note(f"{registry}/pytorch-training:2.2.0-gpu-py310") == ""
    assert image_cuda.plan_note(f"{registry}/pytorch-training:2.7.1-cpu-py312") == ""
    smp = "658645717510.dkr.ecr.us-east-1.amazonaws.com/smdistributed-modelparallel"
    assert image_cuda.plan_note(f"{smp}:2.5.1-gpu-py311-cu124") == "  (CUDA 12.4)"

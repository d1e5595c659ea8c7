"""`framework: huggingface` in the launch config: what the SDK's HuggingFace estimator takes
validates clean, and what it (or its containers) refuses is refused at the key's line, with the
versions its table lists and the nearest one for a typo."""

from __future__ import annotations

import pytest

from sagelaunch.checks.rules import check
from sagelaunch.config.loader import load

HF = {
    "framework": "huggingface",
    "framework_version": None,
    "transformers_version": "4.36.0",
    "pytorch_version": "2.1.0",
    "compute": {"instance_type": "ml.p4d.24xlarge", "instance_count": 2},
}
TF = {
    **HF,
    "transformers_version": "4.17.0",
    "pytorch_version": None,
    "tensorflow_version": "2.6.3",
}

ACCEPTED = {
    "single GPU, versions in short form": {
        **HF,
        "transformers_version": "4.26",
        "pytorch_version": "1.13",
        "compute": {"instance_type": "ml.g5.2xlarge"},
    },
    "torchrun on 2 x p4d": {**HF, "distribution": {"strategy": "torchrun"}},
    "pytorchddp": {**HF, "distribution": {"strategy": "pytorchddp"}},
    "smddp": {**HF, "distribution": {"strategy": "smddp"}},
    "smp v1 under mpirun": {
        **HF,
        "distribution": {
            "strategy": "smp",
            "smp": {"version": 1, "parameters": {"partitions": 2, "microbatches": 4}},
        },
    },
    "mpi": {**HF, "distribution": {"strategy": "mpi", "processes_per_host": 8}},
    "TensorFlow parameter servers": {**TF, "distribution": {"strategy": "parameter_server"}},
    "Trainium torchrun (neuronx image)": {
        **HF,
        "transformers_version": "4.36.2",
        "pytorch_version": "1.13.1",
        "compute": {"instance_type": "ml.trn1.32xlarge", "instance_count": 2},
        "distribution": {"strategy": "torchrun"},
    },
    "image_uri alone": {
        **HF,
        "transformers_version": None,
        "pytorch_version": None,
        "image_uri": "111122223333.dkr.ecr.us-east-1.amazonaws.com/my-hf:latest",
    },
}


def errors(make_config, config: dict) -> list[tuple[str, int, str]]:
    problems = check(load(make_config(config)))
    return [(p.path, p.line, p.message) for p in problems if p.severity == "error"]


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_what_the_sdk_takes_validates_clean(make_config, case):
    assert errors(make_config, ACCEPTED[case]) == []


REFUSED = {
    "a Transformers typo": (
        {"transformers_version": "4.36.1"},
        "transformers_version",
        "has no Transformers '4.36.1' (did you mean '4.36.0'?)",
    ),
    "a PyTorch version the Transformers version lacks": (
        {"pytorch_version": "2.2.0"},
        "pytorch_version",
        "have pytorch 2.1.0, 2.1, not '2.2.0' (did you mean '2.1.0'?)",
    ),
    "one full and one short version": (
        {"pytorch_version": "2.1"},
        "pytorch_version",
        "refuses a full and a short version together",
    ),
    "both base frameworks": (
        {"tensorflow_version": "2.6.3"},
        "tensorflow_version",
        "pytorch_version or tensorflow_version, not both",
    ),
    "framework_version": (
        {"framework_version": "2.1.0"},
        "framework_version",
        "takes transformers_version and pytorch_version",
    ),
    "a CPU instance": (
        {"compute": {"instance_type": "ml.c5.2xlarge", "instance_count": 1}},
        "compute.instance_type",
        "Hugging Face training images are for gpu instances only",
    ),
    "a Python version the image lacks": (
        {"py_version": "py39"},
        "py_version",
        "offers py310, not 'py39'",
    ),
    "multi_worker_mirrored": (
        {**TF, "distribution": {"strategy": "multi_worker_mirrored"}},
        "distribution.strategy",
        "HuggingFace estimator takes none, torchrun, smddp, smp, mpi, parameter_server",
    ),
    "parameter servers in a PyTorch image": (
        {"distribution": {"strategy": "parameter_server"}},
        "distribution.strategy",
        "runs in Hugging Face's tensorflow images only",
    ),
    "SMP v2": (
        {"distribution": {"strategy": "smp"}},
        "distribution.smp.version",
        "sends no mp_parameters with torch_distributed",
    ),
    "SMDDP on p5": (
        {
            "transformers_version": "4.28.1",
            "pytorch_version": "2.0.0",
            "compute": {"instance_type": "ml.p5.48xlarge", "instance_count": 2},
            "distribution": {"strategy": "smddp"},
        },
        "compute.instance_type",
        "refuses smdistributed on p5 instances",
    ),
    "SMDDP on a PyTorch the SDK does not list": (
        {
            "transformers_version": "4.46.1",
            "pytorch_version": "2.3.0",
            "py_version": None,
            "distribution": {"strategy": "smddp"},
        },
        "pytorch_version",
        "runs SMDDP for pytorch",
    ),
    "torchrun on a PyTorch the SDK does not list": (
        {
            "transformers_version": "4.17.0",
            "pytorch_version": "1.10.2",
            "distribution": {"strategy": "torchrun"},
        },
        "pytorch_version",
        "runs torch_distributed on gpu instances for PyTorch",
    ),
    "a neuronx image on a GPU instance": (
        {
            "image_uri": "763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-"
            "training-neuronx:1.13.1-transformers4.36.2-neuronx-py310-sdk2.18.0-ubuntu20.04"
        },
        "image_uri",
        "built for Trainium",
    ),
    "a Transformers version without a Trainium image": (
        {"compute": {"instance_type": "ml.trn1.32xlarge", "instance_count": 1}},
        "transformers_version",
        "huggingface-neuronx.json (Trainium) has no Transformers '4.36.0' (did you mean '4.36.2'?)",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_what_the_sdk_refuses_is_refused_at_its_key(make_config, case):
    change, key, message = REFUSED[case]
    found = errors(make_config, {**HF, **change})
    assert any(path == key and line > 0 and message in text for path, line, text in found), found


def test_the_hugging_face_keys_belong_to_framework_huggingface(make_config):
    found = errors(make_config, {"transformers_version": "4.36.0"})
    assert [(p, m) for p, _, m in found] == [
        (
            "transformers_version",
            "transformers_version applies to framework huggingface, not pytorch; use "
            "framework_version",
        )
    ]


def test_local_refuses_a_hugging_face_tensorflow_job_before_anything_starts(
    make_config, cli, tmp_path
):
    """PyTorch Hugging Face jobs run (tests/local/test_huggingface.py); no Hugging Face
    TensorFlow image is stored, so such a job is refused with what to do instead."""
    result = cli("local", make_config(TF), "--workdir", tmp_path / "run")
    assert result.exit_code == 2, result.output
    assert "runs Hugging Face PyTorch jobs only" in result.output
    assert "transformers 4.17.0 with TensorFlow 2.6.3" in result.output
    assert "framework: tensorflow" in result.output  # the hint
    assert not (tmp_path / "run").exists()

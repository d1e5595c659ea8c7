"""tests/config/test_rules.py cases for the Hugging Face rules (checks/rules/huggingface.py):
the config that makes each fire, a fragment of its message, and the fix that quiets it."""

from __future__ import annotations

HF = {
    "framework": "huggingface",
    "framework_version": None,
    "transformers_version": "4.36.0",
    "pytorch_version": "2.1.0",
}
P4D = {"instance_type": "ml.p4d.24xlarge", "instance_count": 2}
NEURONX = (
    "763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-training-neuronx:"
    "1.13.1-transformers4.36.2-neuronx-py310-sdk2.18.0-ubuntu20.04"
)

HF_CASES = {
    "huggingface_version_keys": (
        {**HF, "framework_version": "2.1.0"},
        "takes transformers_version and pytorch_version",
        HF,
    ),
    "huggingface_versions": (
        {**HF, "transformers_version": "4.36.1"},
        "has no Transformers '4.36.1' (did you mean '4.36.0'?)",
        HF,
    ),
    "huggingface_image": (
        {**HF, "compute": {"instance_type": "ml.c5.2xlarge"}},
        "Hugging Face training images are for gpu instances only",
        HF,
    ),
    "huggingface_image_for_the_instance": (
        {**HF, "image_uri": NEURONX},
        "this Hugging Face image is built for Trainium",
        {**HF, "image_uri": NEURONX, "compute": {"instance_type": "ml.trn1.32xlarge"}},
    ),
    "huggingface_distribution": (
        {**HF, "compute": P4D, "distribution": {"strategy": "smp"}},
        "sends no mp_parameters with torch_distributed",
        {**HF, "compute": P4D, "distribution": {"strategy": "smp", "smp": {"version": 1}}},
    ),
    "huggingface_smddp_versions": (
        {
            **HF,
            "transformers_version": "4.46.1",
            "pytorch_version": "2.3.0",
            "compute": P4D,
            "distribution": {"strategy": "smddp"},
        },
        "runs SMDDP for pytorch",
        {**HF, "compute": P4D, "distribution": {"strategy": "smddp"}},
    ),
}

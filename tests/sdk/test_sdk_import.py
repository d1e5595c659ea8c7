"""The SDK's import parses the trimmed service models (aws.models), and only the import does:
$AWS_DATA_PATH is put back, and the capture validates against that very loader's models."""

from __future__ import annotations

import os

from sagelaunch.aws.models import OPERATIONS
from sagelaunch.sdk import capture, runtime


def test_the_sdks_default_session_parsed_the_trimmed_models_and_the_variable_is_restored():
    before = os.environ.get("AWS_DATA_PATH")
    runtime.sagemaker()
    loader = capture._parsed_models()
    assert loader is not None
    model = loader.load_service_model("sagemaker", "service-2")
    assert set(model["operations"]) == set(OPERATIONS["sagemaker"])
    assert os.environ.get("AWS_DATA_PATH") == before

"""The SDK's import parses the trimmed service models (aws.models), and only the import does:
$AWS_DATA_PATH is put back, and the capture validates against that very loader's models.

In a fresh process: another test may have imported the SDK directly (as an oracle) before."""

from __future__ import annotations

import json
import subprocess
import sys

from sagelaunch.aws.models import OPERATIONS
from tests.local.conftest import clean_env

PROBE = """
import json, os
from sagelaunch.sdk import capture, runtime
before = os.environ.get("AWS_DATA_PATH")
runtime.sagemaker()
model = capture._parsed_models().load_service_model("sagemaker", "service-2")
restored = os.environ.get("AWS_DATA_PATH") == before
print(json.dumps({"operations": sorted(model["operations"]), "restored": restored}))
"""


def test_the_sdks_default_session_parsed_the_trimmed_models_and_the_variable_is_restored(tmp_path):
    env = {**clean_env(), "XDG_CACHE_HOME": str(tmp_path), "SAGEMAKER_SUPPRESS_V2_WARNING": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found == {"operations": sorted(OPERATIONS["sagemaker"]), "restored": True}

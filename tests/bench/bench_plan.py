"""`sagelaunch plan X --output json`: the first plan (empty cache) vs a plain SDK script capturing
the same request, and a re-plan of the unchanged config (answered from the plan cache)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.bench.timing import alternating_medians
from tests.conftest import EXAMPLES, REPO

TARGET_RATIO = 1.0  # first plan / plain SDK script
TARGET_CACHED_RATIO = 0.15  # cached re-plan / first plan


def run() -> dict:
    config = EXAMPLES / "smddp-p4d.yaml"
    plan = [sys.executable, "-m", "sagelaunch", "plan", str(config), "-o", "json"]
    with tempfile.TemporaryDirectory(prefix="bench-plan-") as tmp:
        first_dir, cached_dir = Path(tmp, "first"), Path(tmp, "cached")
        first_dir.mkdir()
        cached_dir.mkdir()
        medians = alternating_medians(
            {
                # the plan cache lives under the working directory: emptied before each run
                "first_plan": [
                    *("sh", "-c", f'cd {first_dir} && rm -rf .sagelaunch && exec "$@"'),
                    *("sh", *plan),
                ],
                "cached_plan": ["sh", "-c", f'cd {cached_dir} && exec "$@"', "sh", *plan],
                "plain_sdk_script": [
                    sys.executable,
                    str(Path(__file__).with_name("plain_sdk_plan.py")),
                ],
            },
            repeats=5,
            cwd=REPO,
            # HOME: the trimmed service models' cache (aws.models), written by the warm-up run
            env={"PATH": "/usr/bin:/bin", "HOME": tmp, "AWS_EC2_METADATA_DISABLED": "true"},
        )
    first, cached = medians["first_plan"], medians["cached_plan"]
    return {
        "plan_s": round(first, 3),
        "cached_plan_s": round(cached, 3),
        "plain_sdk_s": round(medians["plain_sdk_script"], 3),
        "ratio": round(first / medians["plain_sdk_script"], 3),
        "cached_vs_first": round(cached / first, 3),
        "target_ratio": TARGET_RATIO,
        "target_cached_vs_first": TARGET_CACHED_RATIO,
    }


if __name__ == "__main__":
    print(run())

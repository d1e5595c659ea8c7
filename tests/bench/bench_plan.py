"""`sagelaunch plan X --output json` vs a plain SDK script capturing the same request."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.bench.timing import alternating_medians
from tests.conftest import EXAMPLES, REPO

TARGET_RATIO = 1.10


def run() -> dict:
    config = EXAMPLES / "smddp-p4d.yaml"
    medians = alternating_medians(
        {
            "sagelaunch_plan": [
                sys.executable,
                "-m",
                "sagelaunch",
                "plan",
                str(config),
                "-o",
                "json",
            ],
            "plain_sdk_script": [
                sys.executable,
                str(Path(__file__).with_name("plain_sdk_plan.py")),
            ],
        },
        repeats=5,
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "HOME": str(REPO), "AWS_EC2_METADATA_DISABLED": "true"},
    )
    return {
        "plan_s": round(medians["sagelaunch_plan"], 3),
        "plain_sdk_s": round(medians["plain_sdk_script"], 3),
        "ratio": round(medians["sagelaunch_plan"] / medians["plain_sdk_script"], 3),
        "target_ratio": TARGET_RATIO,
    }


if __name__ == "__main__":
    print(run())

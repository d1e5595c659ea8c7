"""Fast path: `sagelaunch --help` and `validate launch_configs/` next to `import sagemaker`."""

from __future__ import annotations

import sys

from tests.bench.timing import alternating_medians
from tests.conftest import EXAMPLES, REPO

TARGETS = {"help_vs_import": 0.05, "validate_vs_import": 0.05}


def run() -> dict:
    medians = alternating_medians(
        {
            "help": [sys.executable, "-m", "sagelaunch", "--help"],
            "validate": [sys.executable, "-m", "sagelaunch", "validate", str(EXAMPLES)],
            "import_sagemaker": [sys.executable, "-c", "import sagemaker"],
        },
        cwd=REPO,
    )
    base = medians["import_sagemaker"]
    return {
        "help_s": round(medians["help"], 3),
        "validate_all_examples_s": round(medians["validate"], 3),
        "import_sagemaker_s": round(base, 3),
        "help_vs_import": round(medians["help"] / base, 3),
        "validate_vs_import": round(medians["validate"] / base, 3),
        "targets": TARGETS,
    }


if __name__ == "__main__":
    print(run())

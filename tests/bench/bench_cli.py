"""Fast path: `sagelaunch --help` and `validate launch_configs/` next to `import sagemaker`."""

from __future__ import annotations

import sys
import tempfile

from tests.bench.timing import alternating_medians
from tests.conftest import EXAMPLES, REPO

TARGETS = {"help_vs_import": 0.05, "validate_vs_import": 0.05}


def run() -> dict:
    validate = [sys.executable, "-m", "sagelaunch", "validate", str(EXAMPLES)]
    with tempfile.TemporaryDirectory(prefix="bench-validate-") as cold_dir:
        medians = alternating_medians(
            {
                "help": [sys.executable, "-m", "sagelaunch", "--help"],
                # unchanged configs: answered from validate's cache (filled by the warm-up run)
                "validate": validate,
                # every run from scratch: the cache (under the working directory) emptied first
                "validate_cold": [
                    *("sh", "-c", f'cd {cold_dir} && rm -rf .sagelaunch && exec "$@"', "sh"),
                    *validate,
                ],
                "import_sagemaker": [sys.executable, "-c", "import sagemaker"],
            },
            cwd=REPO,
        )
    base = medians["import_sagemaker"]
    return {
        "help_s": round(medians["help"], 3),
        "validate_all_examples_s": round(medians["validate"], 3),
        "validate_uncached_s": round(medians["validate_cold"], 3),
        "import_sagemaker_s": round(base, 3),
        "help_vs_import": round(medians["help"] / base, 3),
        "validate_vs_import": round(medians["validate"] / base, 3),
        "validate_uncached_vs_import": round(medians["validate_cold"] / base, 3),
        "targets": TARGETS,
    }


if __name__ == "__main__":
    print(run())

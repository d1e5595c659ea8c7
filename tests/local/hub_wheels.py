"""The requirements the suite's Hugging Face runs install into their overlays, one line per
image: what `local` asks of the image for a script importing those modules (container_packages),
so the Makefile's TEST_WHEELS fills uv's cache with exactly that.

    .venv/bin/python -m tests.local.hub_wheels 4.56.2:transformers 4.49:transformers,datasets
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from sagelaunch.local import container_packages, image_software


def pins(version: str, modules: list[str]) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        code = Path(folder)
        (code / "job.py").write_text("".join(f"import {module}\n" for module in modules))
        return container_packages.missing_pins(
            image_software.choose("huggingface", version, "ml.g5.xlarge"), code
        )


if __name__ == "__main__":
    for argument in sys.argv[1:]:
        version, _, modules = argument.partition(":")
        print(" ".join(pins(version, modules.split(","))))

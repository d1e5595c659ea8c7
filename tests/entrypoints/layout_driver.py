"""Run train_pytorch's main() several times in one torchrun job, sharing its process group.

    torchrun --nproc_per_node 4 layout_driver.py runs.json

``runs.json`` lists ``{"root": dir, "argv": [...], "resume_from": dir | null}``; each run gets its
own fake /opt/ml under ``root`` (model/, output/, checkpoints/), rank 0's stdout goes to
``root/stdout.txt``, and ``resume_from`` (a checkpoint dir) is copied into its checkpoints first.
One gloo group for all runs: starting torch and rendezvousing four processes is most of a tiny
run's cost on a two-core machine, so the layout tests pay it once.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
from pathlib import Path

ENTRYPOINTS = Path(__file__).resolve().parents[2] / "entrypoints"
sys.path.insert(0, str(ENTRYPOINTS))

import torch.distributed as dist  # noqa: E402

import smenv  # noqa: E402
import torch_dist  # noqa: E402
import train_pytorch  # noqa: E402


def run_one(spec: dict) -> int:
    root = Path(spec["root"])
    checkpoints = root / "checkpoints"
    if dist.get_rank() == 0 and spec.get("resume_from"):
        source = Path(spec["resume_from"])
        shutil.copytree(source, checkpoints / source.name)
    dist.barrier()
    os.environ["SM_MODEL_DIR"] = str(root / "model")
    os.environ["SM_OUTPUT_DIR"] = str(root / "output")
    os.environ["SM_OUTPUT_DATA_DIR"] = str(root / "output" / "data")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = smenv.run(
            train_pytorch.main, ["--checkpoint_dir", str(checkpoints), *spec["argv"]]
        )
    if dist.get_rank() == 0:
        (root / "stdout.txt").write_text(out.getvalue())
    return status


def main(path: str) -> int:
    dist.init_process_group("gloo")
    status = 0
    for spec in json.loads(Path(path).read_text()):
        status |= run_one(spec)
    dist.barrier()
    return status


if __name__ == "__main__":
    torch_dist.exit_process(main(sys.argv[1]))

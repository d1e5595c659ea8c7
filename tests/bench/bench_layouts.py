"""Tokens/s of every 4-process layout on the CPU, relative to DDP on the same 4 processes.

One torchrun job runs them all (tests/entrypoints/layout_driver.py shares its gloo group), each
with --benchmark so warm-up steps are excluded. A ratio well below its usual value flags a
regression in that layout; absolute CPU numbers mean little.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from sagelaunch.local.ports import free_port as _free_port
from tests.conftest import REPO

DRIVER = REPO / "tests" / "entrypoints" / "layout_driver.py"
GPT = [
    *("--model", "gpt", "--n_layer", "4", "--n_head", "4", "--n_embd", "64"),
    *("--seq_len", "64", "--vocab_size", "256", "--max_steps", "20", "--warmup_steps", "5"),
    *("--log_every", "20", "--benchmark"),
]
TP, PP = "--tensor_parallel_degree", "--pipeline_parallel_degree"
LAYOUTS = {
    "ddp4": ["--batch_size", "2"],
    "zero1x4": ["--zero1", "--batch_size", "2"],
    "fsdp4": ["--parallel", "fsdp", "--batch_size", "2"],
    "hsdp2x2": ["--parallel", "fsdp", "--dp_replicate", "2", "--batch_size", "2"],
    "tp2_fsdp2": [TP, "2", "--parallel", "fsdp", "--batch_size", "4"],
    "tp4": [TP, "4", "--batch_size", "8"],
    "pp2_dp2_1f1b": [PP, "2", "--microbatches", "2", "--batch_size", "4"],
    "pp2_tp2": [PP, "2", TP, "2", "--microbatches", "4", "--batch_size", "8"],
}


def run() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        runs = [{"root": str(base / n), "argv": [*GPT, *a]} for n, a in LAYOUTS.items()]
        (base / "runs.json").write_text(json.dumps(runs))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SM_", "TRAINING_JOB"))}
        env["OMP_NUM_THREADS"] = "1"
        launcher = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "4"]
        rendezvous = ["--master_addr", "127.0.0.1", "--master_port", str(_free_port())]
        subprocess.run(
            [*launcher, *rendezvous, str(DRIVER), str(base / "runs.json")],
            cwd=REPO / "entrypoints" / "pytorch",
            env=env,
            check=True,
            capture_output=True,
            timeout=600,
        )
        rates = {
            name: json.loads((base / name / "output" / "data" / "metrics.json").read_text())[
                "steady_tokens_per_sec"
            ]
            for name in LAYOUTS
        }
    ddp = rates["ddp4"]
    return {
        "tokens_per_sec_ddp4": round(ddp),
        "ratio_to_ddp4": {name: round(rate / ddp, 3) for name, rate in rates.items()},
        "cpu_cores": os.cpu_count(),
    }


if __name__ == "__main__":
    print(run())

"""Data-parallel scaling of train_pytorch.py on the CPU: small-GPT tokens/s, 1 vs 2 processes.

Both runs go through torchrun with gloo and one thread per process, so the ratio measures what
DDP adds (gradient all-reduce, synchronisation), not thread-level parallelism inside one process.
Throughput is the entry point's own steady-state figure (--benchmark skips the warm-up steps).
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

ENTRYPOINTS = REPO / "entrypoints" / "pytorch"

GPT = [
    *("--model", "gpt", "--n_layer", "2", "--n_head", "2", "--n_embd", "64"),
    *("--seq_len", "64", "--vocab_size", "256", "--batch_size", "8"),
    *("--max_steps", "40", "--warmup_steps", "8", "--log_every", "40", "--benchmark"),
]


def tokens_per_sec(nproc: int, root: Path) -> dict:
    """Steady-state global tokens/s of one torchrun job with ``nproc`` gloo ranks."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SM_", "TRAINING_JOB"))}
    env.update(
        SM_MODEL_DIR=str(root / "model"),
        SM_OUTPUT_DIR=str(root / "output"),
        OMP_NUM_THREADS="1",
    )
    launcher = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", str(nproc)]
    rendezvous = ["--master_addr", "127.0.0.1", "--master_port", str(_free_port())]
    checkpoints = ["--checkpoint_dir", str(root / "checkpoints")]
    subprocess.run(
        [*launcher, *rendezvous, "train_pytorch.py", *GPT, *checkpoints],
        cwd=ENTRYPOINTS,
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    return json.loads((root / "output" / "data" / "metrics.json").read_text())


def run() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        one = tokens_per_sec(1, Path(tmp) / "one")
        two = tokens_per_sec(2, Path(tmp) / "two")
    return {
        "model_params": one["num_params"],
        "tokens_per_sec_1_process": round(one["steady_tokens_per_sec"]),
        "tokens_per_sec_2_processes": round(two["steady_tokens_per_sec"]),
        "ratio_2_to_1": round(two["steady_tokens_per_sec"] / one["steady_tokens_per_sec"], 3),
        "cpu_cores": os.cpu_count(),
        "measured_steps": one["measured_steps"],
    }


if __name__ == "__main__":
    print(run())

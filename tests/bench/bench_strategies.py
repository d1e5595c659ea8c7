"""The PyTorch strategies side by side on the CPU: DDP, parameter server (sync and async), DP.

The same GPT trains on the same 720 samples (30 steps of a global batch of 24) every way: DDP
on 4 ranks × 6, the parameter server on 4 processes (1 server, 3 workers × 8; async applies 90
updates of 8), DataParallel in one process × 24. Then again with one straggling worker
(``--straggler_delay_ms`` on rank 1): all-reduce and sync PS wait for it, async PS does not.
samples/s is the entry point's own figure over the whole loop (one metric line at the end), and
final loss is the last logged train_loss: after the same number of samples in every run.

    python -m tests.bench.bench_strategies        # the markdown table of docs/strategies/index.md
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

from sagelaunch.local.ports import free_port as _free_port
from tests.conftest import REPO

ENTRYPOINTS = REPO / "entrypoints" / "pytorch"
STEPS, GLOBAL_BATCH, STRAGGLER_MS = 30, 24, 100
GPT = [
    *("--model", "gpt", "--n_layer", "2", "--n_head", "2", "--n_embd", "64"),
    *("--seq_len", "64", "--vocab_size", "256", "--lr", "1e-3"),
    *("--max_steps", str(STEPS), "--log_every", "100000"),
]
# name -> (processes, hyperparameters): every row the same 720 samples.
STRATEGIES = {
    "DDP (all-reduce)": (4, ["--parallel", "ddp", "--batch_size", "6"]),
    "PS sync (1 server)": (4, ["--parallel", "ps", "--ps_mode", "sync", "--batch_size", "8"]),
    "PS async (1 server)": (4, ["--parallel", "ps", "--ps_mode", "async", "--batch_size", "8"]),
    "DP (1 process)": (1, ["--parallel", "dp", "--batch_size", str(GLOBAL_BATCH)]),
}


def train(nproc: int, args: list[str], root: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SM_", "TRAINING_JOB"))}
    env.update(
        SM_MODEL_DIR=str(root / "model"), SM_OUTPUT_DIR=str(root / "output"), OMP_NUM_THREADS="1"
    )
    launcher = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", str(nproc)]
    rendezvous = ["--master_addr", "127.0.0.1", "--master_port", str(_free_port())]
    checkpoints = ["--checkpoint_dir", str(root / "checkpoints")]
    subprocess.run(
        [*launcher, *rendezvous, "train_pytorch.py", *GPT, *args, *checkpoints],
        cwd=ENTRYPOINTS,
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    metrics = json.loads((root / "output" / "data" / "metrics.json").read_text())
    return {
        "samples_per_sec": round(metrics["samples_per_sec"], 1),
        "final_loss": round(metrics["final_train_loss"], 4),
    }


def run() -> dict:
    results: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, (nproc, args)) in enumerate(STRATEGIES.items()):
            results[name] = train(nproc, args, Path(tmp) / f"run{i}")
            if nproc > 1:
                delay = ["--straggler_delay_ms", str(STRAGGLER_MS)]
                results[name]["straggler"] = train(nproc, args + delay, Path(tmp) / f"slow{i}")
    sync = results["PS sync (1 server)"]["straggler"]["samples_per_sec"]
    async_ = results["PS async (1 server)"]["straggler"]["samples_per_sec"]
    return {
        "strategies": results,
        "async_vs_sync_with_straggler": round(async_ / sync, 2),
        "date": datetime.date.today().isoformat(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores, {platform.system()}",
    }


def markdown(result: dict) -> str:
    lines = [
        f"Measured {result['date']} on {result['machine']} (`make bench`, bench_strategies): "
        f"{STEPS * GLOBAL_BATCH} samples each, global batch {GLOBAL_BATCH}, straggler "
        f"+{STRAGGLER_MS} ms/step on rank 1.",
        "",
        "| strategy | samples/s | final loss | samples/s, straggler | final loss, straggler |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, row in result["strategies"].items():
        slow = row.get("straggler", {})
        lines.append(
            f"| {name} | {row['samples_per_sec']} | {row['final_loss']} | "
            f"{slow.get('samples_per_sec', '–')} | {slow.get('final_loss', '–')} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown(run()))

"""Heterogeneous data offload: the training ranks' step time with the data work on them vs on a
data host (train_pytorch.py + torch_datafeed.py, through `sagelaunch local`).

Both runs train the same small GPT on 2 training hosts × 1 process (torchrun, gloo) for the same
steps with the same batches; `--data_augment_cost` adds CPU-heavy data work per batch (rounds of
a 128×128 matmul). "on ranks": a homogeneous 2-host job, each rank builds and augments its own
batches. "offloaded": the same 2 hosts as dnn_group plus one data_group host that builds,
augments and streams every batch. Step time is the entry point's steady-state figure
(--benchmark: global batch × seq_len / steady tokens/s, warm-up steps excluded), read from rank
0's metrics.json. On this machine all hosts share its cores, so the data host competes with the
ranks for CPU; on SageMaker it brings its own.

    python -m tests.bench.bench_datafeed [--data_augment_cost N] [--steps N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from tests.conftest import REPO

ENTRYPOINTS = REPO / "entrypoints" / "pytorch"
DEFAULT_COST = 30
DEFAULT_STEPS = 30
GPT = {"model": "gpt", "n_layer": 2, "n_head": 2, "n_embd": 64, "seq_len": 64}
GROUPS = [
    {"name": "data_group", "instance_type": "ml.c5.xlarge", "instance_count": 1},
    {"name": "dnn_group", "instance_type": "ml.g5.xlarge", "instance_count": 2},
]


def _config(cost: int, steps: int, offloaded: bool) -> dict:
    hyperparameters = {
        **GPT,
        "batch_size": 8,
        "max_steps": steps,
        "warmup_steps": 5,
        "log_every": steps,
        "benchmark": True,
        "data_augment_cost": cost,
    }
    config: dict = {
        "name": "bench-datafeed",
        "framework": "pytorch",
        "entry_point": "train_pytorch.py",
        "source_dir": str(ENTRYPOINTS),
        "framework_version": "2.2.0",
        "distribution": {"strategy": "torchrun"},
        "hyperparameters": hyperparameters,
        "compute": {"instance_type": "ml.g5.xlarge", "instance_count": 2},
    }
    if offloaded:
        config["compute"] = {"groups": GROUPS}
        config["distribution"]["groups"] = ["dnn_group"]
    return config


def step_time_ms(work: Path, cost: int, steps: int, offloaded: bool) -> float:
    path = work / f"{'offloaded' if offloaded else 'on-ranks'}.yaml"
    path.write_text(yaml.safe_dump(_config(cost, steps, offloaded)))
    run = work / path.stem
    env = {k: v for k, v in os.environ.items() if not k.startswith("SM_")}
    subprocess.run(
        [sys.executable, "-m", "sagelaunch", "local", str(path), "--workdir", str(run), "--keep"],
        check=True,
        capture_output=True,
        timeout=600,
        env=env,
        cwd=work,
    )
    rank0 = run / ("algo-2" if offloaded else "algo-1")
    metrics = json.loads((rank0 / "output" / "data" / "metrics.json").read_text())
    tokens_per_step = metrics["global_batch_size"] * GPT["seq_len"]
    return round(1000 * tokens_per_step / metrics["steady_tokens_per_sec"], 2)


def run(cost: int = DEFAULT_COST, steps: int = DEFAULT_STEPS) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        on_ranks = step_time_ms(work, cost, steps, offloaded=False)
        offloaded = step_time_ms(work, cost, steps, offloaded=True)
        baseline = step_time_ms(work, 0, steps, offloaded=False)
    return {
        "data_augment_cost": cost,
        "steps": steps,
        "step_ms_no_data_work": baseline,
        "step_ms_data_work_on_ranks": on_ranks,
        "step_ms_data_work_offloaded": offloaded,
        "offloaded_vs_on_ranks": round(offloaded / on_ranks, 3),
        "cpu_cores": os.cpu_count(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data_augment_cost", type=int, default=DEFAULT_COST)
    parser.add_argument("--steps", type=int, default=DEFAULT_STEPS)
    args = parser.parse_args()
    print(json.dumps(run(args.data_augment_cost, args.steps), indent=2))


if __name__ == "__main__":
    main()

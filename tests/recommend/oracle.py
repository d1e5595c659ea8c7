"""The memory model held against PyTorch's memory trackers: cells, predictions and ratios.

A cell is one model size under one layout; oracle_driver.py measures it (in its own process, on
fake tensors) and `compare` sets the model's prediction for the same workload and sharding beside
each category. Shared by tests/recommend/test_oracle.py and tests/bench/bench_recommend.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sagelaunch.recommend.memory import Sharding, per_device
from sagelaunch.recommend.workload import Shape, Workload

DRIVER = Path(__file__).with_name("oracle_driver.py")
ROOT = Path(__file__).resolve().parents[2]
TOLERANCE = 0.10
COMPARED = ("weights", "gradients", "optimizer", "activations")

# (name, layers, hidden, heads): GPT-3's 125M and 1.3B, Llama's 7B and 70B widths.
SIZES = {
    "125M": (12, 768, 12),
    "1.3B": (24, 2048, 16),
    "7B": (32, 4096, 32),
    "70B": (80, 8192, 64),
}

# layout name -> (entry point --parallel, mesh dims) on a mesh as large as the layout needs
LAYOUTS: dict[str, tuple[str, dict[str, int]]] = {
    "ddp": ("ddp", {}),
    "fsdp-full-8": ("fsdp", {"dp_shard": 8}),
    "fsdp-full-64": ("fsdp", {"dp_shard": 64}),
    "fsdp-hybrid-2x8": ("fsdp", {"dp_replicate": 2, "dp_shard": 8}),
    "tp8-fsdp-8": ("fsdp", {"dp_shard": 8, "tp": 8}),
    "tp2-fsdp-4": ("fsdp", {"dp_shard": 4, "tp": 2}),
    "pp2-tp4": ("ddp", {"pp": 2, "tp": 4}),
}


@dataclass(frozen=True)
class Cell:
    size: str
    layout: str
    precision: str = "bf16"
    checkpointing: bool = False
    seq_len: int = 2048
    vocab: int = 32_000

    @property
    def name(self) -> str:
        extras = [self.precision] + (["ckpt"] if self.checkpointing else [])
        return f"{self.size}-{self.layout}-{'-'.join(extras)}"

    def spec(self) -> dict[str, Any]:
        layers, hidden, heads = SIZES[self.size]
        mode, dims = LAYOUTS[self.layout]
        return {
            "name": self.name,
            **{"layers": layers, "hidden": hidden, "heads": heads},
            **{"seq_len": self.seq_len, "vocab": self.vocab, "micro_batch": 1},
            **{"precision": self.precision, "checkpointing": self.checkpointing},
            **{"parallel": mode, "layout": dims},
        }


@dataclass
class Result:
    cell: Cell
    measured: dict[str, float]
    predicted: dict[str, float]
    ratios: dict[str, float] = field(default_factory=dict)

    def outside(self) -> list[str]:
        return [cat for cat in COMPARED if abs(self.ratios[cat] - 1) > TOLERANCE]


def measure(cells: list[Cell]) -> list[Result]:
    """Run the driver once for all cells (one torch import) and compare each."""
    args = [json.dumps(cell.spec()) for cell in cells]
    done = subprocess.run(
        [sys.executable, str(DRIVER), *args], cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-4000:])
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return [compare(cell, line) for cell, line in zip(cells, lines, strict=True)]


def compare(cell: Cell, measured: dict[str, Any]) -> Result:
    spec = cell.spec()
    workload = Workload(
        params=measured["params"],
        shape=Shape(spec["layers"], spec["hidden"], spec["heads"], estimated=False),
        seq_len=cell.seq_len,
        precision="fp32" if cell.precision == "fp32" else "bf16",
        activation_checkpointing=cell.checkpointing,
        vocab=cell.vocab,
    )
    mem = per_device(workload, sharding_of(spec))
    predicted = {cat: getattr(mem, cat) for cat in COMPARED}
    got = measured["measured_gb"]
    ratios = {cat: predicted[cat] / got[cat] if got[cat] else float("inf") for cat in COMPARED}
    return Result(cell, got, predicted, ratios)


def sharding_of(spec: dict[str, Any]) -> Sharding:
    dims = spec["layout"]
    tp, pp = dims.get("tp", 1), dims.get("pp", 1)
    over = dims.get("dp_shard", 1) if spec["parallel"] == "fsdp" else 1
    return Sharding(tp, over, over, over, pp)


def table(results: list[Result]) -> str:
    """size × layout × category: predicted / measured GB and their ratio."""
    lines = [f"{'cell':34} " + " ".join(f"{cat:>22}" for cat in COMPARED)]
    for res in results:
        cells = (
            f"{res.predicted[c]:7.2f}/{res.measured[c]:7.2f} {res.ratios[c]:5.2f}x"
            for c in COMPARED
        )
        lines.append(f"{res.cell.name:34} " + " ".join(f"{c:>22}" for c in cells))
    return "\n".join(lines)

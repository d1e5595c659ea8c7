"""Synthetic CSV data for local XGBoost runs, shared by tests/local and `make demo`.

    python -m tests.local.data DIR     # DIR/train/part-000.csv … part-003.csv, DIR/validation/

SageMaker's CSV convention: label first, no header.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path


def rows(count: int, features: int, seed: int) -> list[list[float]]:
    rng = random.Random(seed)
    table = []
    for _ in range(count):
        x = [rng.uniform(-1, 1) for _ in range(features)]
        label = 2 * x[0] + x[1] * x[2] - x[3] + 0.05 * rng.gauss(0, 1)
        table.append([label, *x])
    return table


def write_csv(path: Path, table: list[list[float]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(",".join(f"{v:.6f}" for v in row) + "\n" for row in table))
    return path


def write_dataset(
    folder: Path, train_files: int = 4, rows_per_file: int = 200, features: int = 6
) -> Path:
    """``folder/train/part-NNN.csv`` (``train_files`` of them) and one validation file."""
    for index in range(train_files):
        table = rows(rows_per_file, features, seed=index)
        write_csv(folder / "train" / f"part-{index:03d}.csv", table)
    write_csv(folder / "validation" / "part-000.csv", rows(rows_per_file, features, seed=999))
    return folder


if __name__ == "__main__":
    print(write_dataset(Path(sys.argv[1] if len(sys.argv) > 1 else ".sagelaunch/demo-data")))

"""Wall-time helpers for `make bench`: medians of alternating runs measured in one process."""

from __future__ import annotations

import statistics
import subprocess
import time
from collections.abc import Sequence


def wall(cmd: Sequence[str], **kwargs) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs)
    return time.perf_counter() - start


def alternating_medians(
    commands: dict[str, Sequence[str]], repeats: int = 7, **kwargs
) -> dict[str, float]:
    """Run the commands round-robin (so drift hits all alike) and return each one's median."""
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for cmd in commands.values():  # warm the page cache first
        wall(cmd, **kwargs)
    for _ in range(repeats):
        for name, cmd in commands.items():
            samples[name].append(wall(cmd, **kwargs))
    return {name: statistics.median(values) for name, values in samples.items()}

"""The cost of each host's private copy of a 1 GB channel (channels.private_copy).

Each host gets its own copy of every channel file, so a script writing into its input folder
never changes the user's file or another host's. Measured here on this machine's file system
(the folder of ``BENCH_DIR``, default the system temp folder), for a real 1 GB file (random
bytes) and a sparse one (one 1 GB hole): where the file system has reflinks the copy is nearly
free; elsewhere copy_file_range copies in the kernel at the disk's speed.

    python tests/bench/run.py bench_channels
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from sagelaunch.local.channels import private_copy

SIZE = 1 << 30
HOSTS = 2
REPEATS = 3


def _real_file(path: Path) -> None:
    block = os.urandom(1 << 20)
    with path.open("wb") as handle:
        for _ in range(SIZE // len(block)):
            handle.write(block)


def _sparse_file(path: Path) -> None:
    with path.open("wb") as handle:
        handle.truncate(SIZE)


def _copy_seconds(origin: Path, work: Path) -> float:
    """Median time to give every host its copy of ``origin`` (the copies removed after each)."""
    samples = []
    for attempt in range(REPEATS):
        targets = [work / f"algo-{host}-{attempt}" / origin.name for host in range(HOSTS)]
        start = time.perf_counter()
        for target in targets:
            private_copy(origin, target)
        samples.append(time.perf_counter() - start)
        for target in targets:
            target.unlink()
    return statistics.median(samples)


def run() -> dict[str, float | str]:
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as folder:
        work = Path(folder)
        results: dict[str, float | str] = {"hosts": HOSTS, "size_gb": SIZE / (1 << 30)}
        for kind, make in (("real", _real_file), ("sparse", _sparse_file)):
            origin = work / f"{kind}.bin"
            make(origin)
            results[f"{kind}_copy_s"] = round(_copy_seconds(origin, work), 3)
            origin.unlink()
        results["file_system"] = _file_system(work)
    return results


def _file_system(folder: Path) -> str:
    """The type of the file system holding ``folder`` (from /proc/mounts), for the record."""
    best, kind = "", "unknown"
    mounts = Path("/proc/mounts")
    lines = mounts.read_text().splitlines() if mounts.is_file() else []
    for line in lines:
        _, point, fs_type, *_ = line.split()
        if str(folder).startswith(point) and len(point) > len(best):
            best, kind = point, fs_type
    return kind

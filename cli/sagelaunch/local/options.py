"""What the user asked of a local run, besides the config (the `local` command's options)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Options:
    hosts: int | None = None
    processes_per_host: int | None = None
    workdir: Path | None = None
    keep: bool = False
    # The cores this run may use (default: all of this machine's). A local sweep running N trials
    # at once gives each 1/N, so their processes' thread pools do not oversubscribe the machine.
    cores: int | None = None
    # The run's time limit in seconds (`local --timeout`), over the config's compute.max_run.
    timeout_s: int | None = None

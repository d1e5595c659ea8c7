"""A run's workdir: only one the tool made, and one run in it at a time.

The marker file is also the lock: a run creates it before anything else and holds an exclusive
``flock`` on it until the process ends, so a folder holding anything without the marker is the
user's (refused: nothing of it may be deleted) and a second run in the same folder is refused
with the pid of the one that holds it.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

from sagelaunch.errors import UsageError

MARKER = ".sagelaunch-run"
RUNS_DIR = Path(".sagelaunch") / "runs"  # each run's folder, by job name (unless --workdir)


def claim(workdir: Path) -> IO[str]:
    """Lock ``workdir`` for this run; keep the returned file open for the run's whole life."""
    workdir.mkdir(parents=True, exist_ok=True)
    marker = workdir / MARKER
    if not marker.exists() and any(workdir.iterdir()):
        raise UsageError(
            f"--workdir {workdir} holds files sagelaunch did not create; a run clears its "
            "workdir, so it never uses a folder of yours",
            hint="pass a new or empty folder (or one an earlier `sagelaunch local` made)",
        )
    lock = marker.open("a+")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        holder = lock.read().strip() or "unknown"
        lock.close()
        raise UsageError(
            f"--workdir {workdir} is in use by another sagelaunch local run (pid {holder})",
            hint="wait for it to end, or pass another --workdir",
        ) from None
    lock.truncate(0)
    lock.write(str(os.getpid()))
    lock.flush()
    return lock

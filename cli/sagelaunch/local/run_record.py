"""A local run's record, `run.json` in its folder: what `status`, `wait`, `logs`, `stop` and
`list` with `--local` read, as they read a training job's description on SageMaker.

The run writes it when its hosts start (InProgress, with the pid of the sagelaunch process that
runs them) and again when it ends (Completed, Failed or Stopped, each host's exit code and
failure, as DescribeTrainingJob's FailureReason). A run whose process died without writing its
end (kill -9, a power cut) is told apart from a running one by the run folder's lock
(workdir.py): nobody holds it, so the record says InProgress of a run that is gone, and the
reader calls it Failed, saying why.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from pathlib import Path
from typing import Any

from sagelaunch import atomic
from sagelaunch.local.workdir import MARKER
from sagelaunch.statuses import JobStatus

RECORD = "run.json"
GONE = "the sagelaunch process running it ended without recording an end (killed?)"


def started(workdir: Path, job_name: str, hosts: list[str], launcher: str) -> None:
    """The hosts are about to start: InProgress, by this process."""
    record = {
        "job_name": job_name,
        "status": JobStatus.InProgress.value,
        "pid": os.getpid(),
        "started_at": time.time(),
        "ended_at": None,
        "launcher": launcher,
        "hosts": [{"host": host, "exit_code": None, "failure": None} for host in hosts],
        "failure_reason": None,
    }
    _write(workdir, record)


def ended(
    workdir: Path, status: JobStatus, hosts: list[dict[str, Any]], reason: str | None
) -> None:
    """The run's end: its status, each host's exit code and failure, and why it failed."""
    record = read(workdir)
    if record is None:  # written at the start; a folder cleared under the run
        return
    record |= {
        "status": status.value,
        "ended_at": time.time(),
        "hosts": hosts,
        "failure_reason": reason,
    }
    _write(workdir, record)


def read(workdir: Path) -> dict[str, Any] | None:
    """The record as the run last wrote it (None: no run wrote one here), with an InProgress
    record of a run nobody runs any more read as Failed."""
    try:
        record: dict[str, Any] = json.loads((workdir / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if record.get("status") == JobStatus.InProgress and not running(workdir):
        record |= {"status": JobStatus.Failed.value, "failure_reason": GONE}
    return record


def running(workdir: Path) -> bool:
    """A sagelaunch process holds the run folder's lock (its run is going on)."""
    try:
        with (workdir / MARKER).open("r") as marker:
            try:
                fcntl.flock(marker, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            return False
    except OSError:
        return False


def _write(workdir: Path, record: dict[str, Any]) -> None:
    atomic.write_text(workdir / RECORD, json.dumps(record, indent=2) + "\n")

"""SIGKILL a job's processes all at once, like a spot interruption.

Signals go out one process at a time, so killing them in turn lets a survivor run on for a moment
after its peer died: it sees the connection reset, raises, and writes ``output/failure`` as a
real failure would, which a killed job never gets to do. Every process is stopped first (SIGSTOP
cannot be caught; a stopped process runs no more of its own code and keeps its sockets open), and
only then killed.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterable


def kill_at_once(pids: Iterable[int]) -> None:
    targets = list(pids)
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        for pid in targets:
            with contextlib.suppress(ProcessLookupError):  # already gone
                os.kill(pid, sig)

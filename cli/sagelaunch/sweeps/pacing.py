"""How often a sweep on SageMaker looks at its trials, and how long it waits.

The scheduler polls at ``poll_s``, an interval that grows by ``growth`` (up to ``max_poll_s``)
while nothing changes and starts over when something does; with every slot held back by a quota
and nothing of ours running, it waits ``quota_retry_s`` before asking the quota again. No pause
runs past ``timeout_s`` (waiting then ends: exit code 5).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Pacing:
    """How often to look, and how long to back off when the quota is used up."""

    poll_s: float = 5.0
    max_poll_s: float = 60.0
    growth: float = 1.5
    quota_retry_s: float = 60.0
    timeout_s: float | None = None


class Beat:
    """One run's timing: its deadline, and the pause between two looks."""

    def __init__(
        self, pacing: Pacing, clock: Callable[[], float], sleep: Callable[[float], None]
    ) -> None:
        self.pacing, self.clock, self.sleep = pacing, clock, sleep
        self.deadline = None if pacing.timeout_s is None else clock() + pacing.timeout_s
        self.interval = pacing.poll_s

    def expired(self) -> bool:
        return self.deadline is not None and self.clock() >= self.deadline

    def pause(self, changed: bool, idle: bool) -> None:
        """Sleep until the next look: the poll interval (back to ``poll_s`` after a change,
        else grown), or the quota back-off when ``idle`` (no trial of ours will end)."""
        pacing = self.pacing
        self.interval = (
            pacing.poll_s if changed else min(self.interval * pacing.growth, pacing.max_poll_s)
        )
        pause = pacing.quota_retry_s if idle else self.interval
        if self.deadline is not None:
            pause = max(0.0, min(pause, self.deadline - self.clock()))
        self.sleep(pause)

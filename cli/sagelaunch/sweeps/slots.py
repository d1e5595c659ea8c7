"""A sweep's slots: at most ``max_parallel`` trials run at once, and a quota that refuses a trial
holds the rest back.

A refusal (ResourceLimitExceeded on create, or with ``check_quota`` the quota pre-flight of
services.quota_check) keeps the trial queued, noted "quota", and blocks filling until a running
trial ends (or, with none running, until the quota back-off of sweeps.pacing has passed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients
    from sagelaunch.errors import QuotaExceeded
    from sagelaunch.sweeps.planning import TrialPlan
    from sagelaunch.sweeps.results import TrialState


@dataclass
class Slots:
    aws: Clients
    max_parallel: int
    say: Callable[[str], None]
    check_quota: bool = False  # hold trials the account's quotas cannot take (quota_check)
    blocked: bool = False  # the last create hit a quota: wait for a trial to end

    def full(self, states: list[TrialState]) -> bool:
        return sum(s.active for s in states) >= self.max_parallel

    def idle(self, states: list[TrialState]) -> bool:
        """Blocked with nothing of ours running: no trial's end will free the quota."""
        return self.blocked and not any(s.active for s in states)

    def refusal(self, trial: TrialPlan) -> tuple[QuotaExceeded | None, bool]:
        """With check_quota: why the account's quotas cannot take this trial now, if so, and
        whether they never can (a quota below what the trial asks on its own)."""
        if not self.check_quota:
            return None, False
        from sagelaunch.services.quota_check import check, refusal_of, unchecked_warning

        report = check(self.aws, trial.plan.request)
        skipped = unchecked_warning(report, "trials are created")
        if skipped:  # said once; the rest of the sweep goes on without asking again
            self.say(f"warning: {skipped}")
            self.check_quota = False
        return refusal_of(report), report.never_fits

    def refused(self, state: TrialState, exc: QuotaExceeded) -> None:
        """The trial stays queued for quota, and filling stops."""
        self.blocked = True
        if not state.note:
            self.say(
                f"trial {state.index}: {exc.message}; it stays queued and is created when "
                "a running trial ends"
            )
        state.note = "quota"

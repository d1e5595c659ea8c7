"""One failover chain (`compute.fallback`) walked: which attempt comes next and under which key,
what ends an attempt so that the chain moves on, and how each new job joins the chain.

`submit` walks one (services/failover.py: each attempt planned from the config, sent, followed to
its end); a sweep walks one per trial (sweeps/scheduler.py: each attempt planned from the trial,
created and polled among the other trials'). Both walk it the same way:

- attempt 0 is the config itself, attempt n its n-th alternative (with
  `compute.spot.fallback_after`, an on-demand rerun of the config last);
- attempt n's job is named from the idempotency key + ``/attempt-n``, so a rerun walks the same
  chain and attaches to every job it already made;
- only a lack of capacity (the job found no instances), a spot job that gave way, or a quota
  that can never hold the attempt moves the chain on; the user's code failing ends it (the next
  instance type would fail the same way, and cost again);
- each new job is tagged with its place in the chain and the job before it (services.attempts),
  and the attempts the quota pre-flight refused since that job, for `status` to show the chain;
- where the walk is bound to one region (a sweep: one set of clients, one place to look for its
  jobs), an alternative in another region is passed over, and the walk says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients
    from sagelaunch.config.model import Compute, Fallback

MOVES_ON = ("capacity:", "spot:", "quota:")  # the endings after which the next attempt runs


@dataclass(frozen=True)
class Passed:
    """An alternative the walk passed over: its number and why."""

    number: int
    reason: str


@dataclass
class ChainWalk:
    fallbacks: list[Fallback]
    key: str | None = None
    region: str | None = None  # bound to this region: alternatives elsewhere are passed over
    made: tuple[Clients, str] | None = None  # the clients and ARN of the chain's last job
    refused: list[int] = field(default_factory=list)  # quota refusals since that job

    @classmethod
    def of(cls, compute: Compute, key: str | None = None, region: str | None = None) -> ChainWalk:
        return cls(chain_of(compute), key, region)

    def __bool__(self) -> bool:
        return bool(self.fallbacks)

    def alternatives(self) -> list[tuple[int, Fallback | None]]:
        """Every attempt in order: (0, None) for the config itself, then (n, alternative)."""
        return [(0, None), *enumerate(self.fallbacks, start=1)]

    def next_after(self, number: int) -> tuple[int, Fallback, list[Passed]] | None:
        """The first attempt after ``number`` this walk can run, with those passed over on the
        way (another region); None when the chain has no more."""
        passed: list[Passed] = []
        for later, alternative in self.alternatives()[number + 1 :]:
            assert alternative is not None  # only attempt 0 is the config itself
            if self.region and alternative.region and alternative.region != self.region:
                reason = (
                    f"region: a sweep runs in one region ({self.region}), not {alternative.region}"
                )
                passed.append(Passed(later, reason))
                continue
            return later, alternative, passed
        return None

    def key_for(self, number: int) -> str | None:
        """The idempotency key attempt ``number``'s job is named from."""
        return f"{self.key}/attempt-{number}" if self.key else None

    def quota_refused(self, number: int) -> None:
        """The quota pre-flight refused attempt ``number``: it made no job."""
        self.refused.append(number)

    def joined(self, aws: Clients, arn: str, number: int) -> None:
        """Attempt ``number`` made the job ``arn``: tag it with its place in the chain, after the
        last job made (services.attempts.link)."""
        from sagelaunch.services.attempts import link

        link(aws, arn, number, self.made, self.refused)
        self.attached(aws, arn)

    def attached(self, aws: Clients, arn: str) -> None:
        """The current attempt's job exists already (a rerun): the next one links after it."""
        self.made, self.refused = (aws, arn), []


def moves_on(reason: str) -> bool:
    """Whether an attempt that ended this way (services.attempts.ended_because, or a quota
    refusal) moves the chain to its next attempt."""
    return reason.startswith(MOVES_ON)


def capacity_ending(job: dict[str, Any]) -> str | None:
    """Why the job ended, when SageMaker found no instances for it (the chain moves on); None
    when it did not end that way (its code failing does not move it on)."""
    from sagelaunch.services.attempts import ended_because, is_capacity_failure

    return ended_because(job) if is_capacity_failure(job) else None


def chain_of(compute: Compute) -> list[Fallback]:
    """`compute.fallback`, and with `compute.spot.fallback_after` an on-demand rerun last."""
    from sagelaunch.config.model import Fallback

    chain = list(compute.fallback)
    if compute.spot and compute.spot.fallback_after and not any(f.on_demand for f in chain):
        chain.append(Fallback(on_demand=True))
    return chain

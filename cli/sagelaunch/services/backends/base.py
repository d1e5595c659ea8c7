"""The seam's vocabulary (see services/backends/__init__.py): the protocol every backend
implements, and the values that cross it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable

    from sagelaunch.aws.session import Clients
    from sagelaunch.bundle import BundleData
    from sagelaunch.job_events import LogEvent
    from sagelaunch.plan_model import Plan
    from sagelaunch.services.follow import Ending, Observer


@dataclass(frozen=True)
class DryRun:
    """What a backend would send for a plan: the operation, its request, and what sending it
    needs (the plan, its code bundle, whether the job may already exist)."""

    operation: str  # "CreateTrainingJob", "SubmitServiceJob", "local run"
    request: dict[str, Any]
    plan: Plan
    bundle: BundleData | None = None
    may_exist: bool = False  # a key or a saved plan's fixed name: look before creating


@dataclass(frozen=True)
class Sending:
    """How a send is carried out: the upload (a progress bar), the quota pre-flight, advice."""

    uploader: Callable[[Clients, str, BundleData], None] | None = None
    check_quota: bool = False
    warn: Callable[[str], None] | None = None


@dataclass(frozen=True)
class Described:
    """A job as its backend describes it: which kind of job ("training", "tuning", "queued",
    "local"), the description, and for a training job its console link and failover chain."""

    kind: str
    description: dict[str, Any]
    console_url: str | None = None
    chain: list[Any] | None = None  # services.attempts.ChainAttempt rows
    plans: dict[str, Any] | None = None  # the training plans it ran on, described (ARN ->)


@dataclass(frozen=True)
class Listing:
    """`list`'s filters (each backend reads those it has)."""

    status: str | None = None
    name_contains: str | None = None
    limit: int = 20
    tuning: bool = False


@dataclass(frozen=True)
class Listed:
    """`list`'s answer: which kind of rows, and the rows (or the queue's whole view)."""

    kind: str
    rows: Any = field(default_factory=list)


class NotStarted(Exception):
    """A job that has no logs yet because it has not started (a queued job that waits): the
    command says so, with how to follow it; not an error (exit 0)."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.message, self.hint = message, hint


class Backend(Protocol):
    name: str

    def dry_run(self, plan: Plan, bundle: BundleData | None, may_exist: bool) -> DryRun: ...

    def schedule(self, dry_run: DryRun, sending: Sending) -> Any: ...

    def describe(self, name: str) -> Described: ...

    def follow(
        self, name: str, timeout_s: float | None, observer: Observer, host: str | None = None
    ) -> Ending: ...

    def logs(self, name: str, host: str | None = None) -> list[LogEvent]: ...

    def stop(self, name: str) -> dict[str, Any]: ...

    def listing(self, filters: Listing) -> Listed: ...

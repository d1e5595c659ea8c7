"""How following a job looks, for `submit --wait`, `wait`, `logs --follow` and `tune --wait`:
transitions on stderr under a spinner, log lines on stdout, the cost at the end.

The protocol (polling, logs, the spot limit, the exit code) is `services.follow`'s.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sagelaunch import output as out
from sagelaunch.errors import UsageError
from sagelaunch.services.follow import Observer

if TYPE_CHECKING:
    from sagelaunch.job_events import Transition
    from sagelaunch.services.backends.base import Backend
    from sagelaunch.services.follow import Ending

TimeoutOption = Annotated[
    str | None,
    typer.Option("--timeout", help="Give up waiting after this long: seconds, or e.g. 90m, 2h."),
]


def timeout_seconds(value: str | None) -> float | None:
    """``--timeout`` as seconds (the config's duration syntax: 3600, 90m, 2h, 1h30m)."""
    if value is None:
        return None
    from sagelaunch.config.model import parse_duration

    try:
        return float(parse_duration(value))  # type: ignore[arg-type]
    except ValueError as exc:
        raise UsageError(f"--timeout: {exc}") from None


@contextmanager
def shown(
    name: str, with_logs: bool = False, as_json: bool = False, announce: bool = False
) -> Iterator[Observer]:
    """An observer that draws what `services.follow.follow` sees: each transition on stderr
    (under a spinner when no logs are streamed), with ``with_logs`` the log lines on stdout
    (``as_json``: as JSON lines), and each change of a queued job's wait in its queue.
    ``announce``: say which job is followed as each one begins (the attempts of a failover
    chain)."""
    from sagelaunch.commands.job_view import print_events, transition_line
    from sagelaunch.commands.queue_view import waiting_line

    following = [name]

    def on_start(job: str) -> None:
        following[0] = job
        if announce:
            out.stderr.print(f"following [bold]{job}[/bold]…")

    with out.stderr.status(f"waiting for {name}…", spinner="dots") as spinner:
        if with_logs:
            spinner.stop()  # log lines and a live spinner would fight over the terminal

        def on_change(transition: Transition) -> None:
            out.stderr.print(transition_line(transition), highlight=False)
            spinner.update(f"{following[0]}: {transition.status} · {transition.secondary}")

        yield Observer(
            on_start=on_start,
            on_change=on_change,
            on_logs=(lambda events: print_events(events, as_json)) if with_logs else None,
            on_stop=lambda reason: out.stderr.print(f"stopping {following[0]}: {reason}"),
            on_wait=lambda now: out.stderr.print(waiting_line(now), highlight=False),
        )


def followed(
    backend: Backend,
    name: str,
    timeout_s: float | None,
    with_logs: bool,
    as_json: bool = False,
    host: str | None = None,
) -> Ending:
    """A job followed to its end by its backend (services.backends), drawn by `shown`."""
    with shown(name, with_logs=with_logs, as_json=as_json) as observer:
        return backend.follow(name, timeout_s, observer, host)


def report_cost(end: Ending) -> None:
    """The ended job's cost, on stderr (billable seconds × the dated price table)."""
    from sagelaunch.commands.job_view import cost_line
    from sagelaunch.plan.cost import job_cost

    cost = job_cost(end.description, end.plans)
    if cost is not None:
        out.stderr.print(f"cost  {cost_line(cost)}", highlight=False)


def wait_summary(end: Ending) -> dict[str, Any]:
    """`wait --output json`: where the job ended up, and what it cost."""
    from sagelaunch.plan.cost import job_cost

    return {
        "job_name": end.name,
        "status": end.status,
        "secondary_status": end.description.get("SecondaryStatus"),
        "failure_reason": end.description.get("FailureReason"),
        "cost": job_cost(end.description, end.plans),
    }

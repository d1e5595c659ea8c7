"""How sweeps look: the trial table of a dry run (streamed: a row per trial as it is checked),
the live table while trials run, the final results table with the best trial marked, and the
dry run's JSON."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from sagelaunch.output import stderr
from sagelaunch.statuses import STYLE

if TYPE_CHECKING:
    from sagelaunch.checks.trials import Trial
    from sagelaunch.config.sweep import Sweep
    from sagelaunch.sweeps.planning import PlannedSweep
    from sagelaunch.sweeps.results import SweepResult, TrialState


class TrialRows:
    """--dry-run's trial table a line at a time: trial, its values, max $ and instances. The
    widths come from the sweep's block (its values, its size), known before any trial is
    built, so each row prints as soon as its trial is checked."""

    def __init__(self, name: str, sweep: Sweep) -> None:
        self.name, self.sweep = name, sweep
        self.keys = list(sweep.parameters)
        self.headers = short_names(self.keys)
        self.widths = [
            max(len(header), *(len(_value(v)) for v in values))
            for header, values in zip(self.headers, sweep.parameters.values(), strict=True)
        ]
        self.index_width = max(len("trial"), len(str(sweep.size)))

    def title(self) -> str:
        return (
            f"sweep {self.name}: {self.sweep.size_text()}, at most "
            f"{self.sweep.max_parallel} at once"
        )

    def header(self) -> str:
        return self._line("trial", self.headers, "max $", "instances")

    def row(self, trial: Trial) -> str:
        from sagelaunch.plan.cost import estimate

        config = trial.loaded.config
        cost = estimate(config)
        ceiling = f"{cost.max_usd:,.2f}" if cost.max_usd is not None else "?"
        values = [_value(trial.parameters[k]) for k in self.keys]
        instances = f"{config.compute.instance_count} × {config.compute.instance_type}"
        return self._line(str(trial.index), values, ceiling, instances)

    def _line(self, index: str, values: list[str], ceiling: str, instances: str) -> str:
        cells = [index.rjust(self.index_width)]
        cells += [value.ljust(width) for value, width in zip(values, self.widths, strict=True)]
        cells += [ceiling.rjust(MAX_USD_WIDTH), instances]
        return "  ".join(cells)


MAX_USD_WIDTH = 10  # 1,234,567.89


def dry_run_json(planned: PlannedSweep) -> dict[str, Any]:
    return {
        "sweep": planned.name,
        "method": planned.spec.sweep.method,
        "max_parallel": planned.spec.sweep.max_parallel,
        "idempotency_key": planned.key if planned.key_given else None,
        "trials": [
            {
                "trial": t.trial.index,
                "parameters": t.trial.parameters,
                "job_name": t.plan.job_name,
                "plan": t.plan.redacted().as_json(),
            }
            for t in planned.trials
        ],
    }


def results_table(result: SweepResult, final: bool = False) -> Table:
    """trial, parameters, job, status, elapsed, objective; the best trial marked (final)."""
    objective = result.objective
    title = f"sweep {result.name} ({result.where})"
    if objective:
        title += f": {objective.goal} {objective.metric}"
    table = Table(title=title, box=None, header_style="bold")
    keys = list(result.trials[0].parameters) if result.trials else []
    table.add_column("", no_wrap=True, width=1)
    table.add_column("trial", no_wrap=True, justify="right")
    for column in short_names(keys):
        table.add_column(column, no_wrap=True)
    table.add_column("job", overflow="fold", ratio=1)  # long names fold; the rest stays whole
    for column in ("status", "elapsed", "objective"):
        table.add_column(column, no_wrap=True)
    billed = any(trial.chain_cost_usd is not None for trial in result.trials)
    if billed:
        table.add_column("cost", no_wrap=True, justify="right")
    best = result.best if final else None
    for trial in result.trials:
        value = result.objective_of(trial)
        table.add_row(
            Text("★", style="bold green") if best is trial else "",
            str(trial.index),
            *(_value(trial.parameters[k]) for k in keys),
            trial.job_name,
            _status(trial),
            "" if trial.elapsed_s is None else f"{trial.elapsed_s:.0f}s",
            "" if value is None else f"{value:.6g}",
            *([_usd(trial.chain_cost_usd)] if billed else []),  # failover attempts included
        )
    captions = [f"★ best: trial {best.index} ({best.job_name})"] if best is not None else []
    if billed:
        captions.append(f"cost so far ${result.cost_usd or 0.0:,.2f}")
    table.caption = "; ".join(captions) or None
    return table


def _usd(amount: float | None) -> str:
    return "" if amount is None else f"${amount:,.2f}"


def short_names(keys: list[str]) -> list[str]:
    """Column headers: a swept key's last part (lr), unless two keys share it."""
    last = [key.rsplit(".", 1)[-1] for key in keys]
    return [short if last.count(short) == 1 else key for key, short in zip(keys, last, strict=True)]


def _status(trial: TrialState) -> Text:
    text = Text(trial.status, style=STYLE.get(trial.status, "dim"))
    if trial.attached:
        text.append(" (attached)", style="dim")
    if trial.attempt:
        text.append(f" · failover attempt {trial.attempt}", style="yellow")
    if trial.note:
        text.append(f" · {trial.note}", style="yellow")
    return text


def _value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


@contextmanager
def live_table(enabled: bool) -> Iterator[Callable[[SweepResult], None]]:
    """A callback that redraws the results table in place (on a terminal; else a no-op)."""
    if not enabled:
        yield lambda result: None
        return
    from rich.live import Live

    lock = threading.Lock()  # local trials report from their threads
    with Live(console=stderr, transient=True, refresh_per_second=4) as live:

        def update(result: SweepResult) -> None:
            with lock:
                live.update(results_table(result))

        yield update

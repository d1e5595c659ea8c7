"""Metric series from a local run's logs (`.sagelaunch/runs/JOB/logs/algo-N.log`).

The same metric definitions SageMaker applies to the job's logs are applied to each host's log:
the run's own (`metric_definitions.json`, written by `sagelaunch local`), else the defaults of our
entry points. The x axis is the step the line reports (`step=N`, XGBoost's `[N]`), else the
match's position in the log.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from sagelaunch.config.default_metrics import DEFAULT_METRICS
from sagelaunch.errors import UsageError
from sagelaunch.metrics.series import Point, Series

DEFINITIONS_FILE = "metric_definitions.json"
_STEP = re.compile(r"(?:\bstep=(\d+)|^\[(\d+)\])")


def run_dir_for(name: str, runs: Path) -> Path | None:
    """``name`` as a local run folder: a path to one, or a job name under ``runs``."""
    for candidate in (Path(name), runs / name):
        if (candidate / "logs").is_dir():
            return candidate
    return None


def definitions(run_dir: Path) -> list[dict[str, str]]:
    """The run's metric definitions, else every default of our entry points."""
    try:
        saved = json.loads((run_dir / DEFINITIONS_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        saved = None
    if isinstance(saved, list):
        return saved
    merged = {d["Name"]: d for defaults in DEFAULT_METRICS.values() for d in defaults}
    return list(merged.values())


def read(run_dir: Path) -> list[Series]:
    """Every metric's series on every host of the run (metrics no line matched are left out)."""
    logs = sorted((run_dir / "logs").glob("algo-*.log"), key=_host_order)
    if not logs:
        raise UsageError(f"{run_dir}: no host logs (logs/algo-N.log) in this run folder")
    patterns = [(d["Name"], re.compile(d["Regex"])) for d in definitions(run_dir)]
    found: list[Series] = []
    for log in logs:
        found += _parse(log.stem, log.read_text("utf-8", errors="replace").splitlines(), patterns)
    return found


def _parse(
    host: str, lines: list[str], patterns: list[tuple[str, re.Pattern[str]]]
) -> list[Series]:
    series = {name: Series(name, host, "step") for name, _ in patterns}
    for line in lines:
        step = _STEP.search(line)
        for name, pattern in patterns:
            match = pattern.search(line)
            if match is None:
                continue
            points = series[name].points
            x = float(next(g for g in step.groups() if g)) if step else float(len(points) + 1)
            try:
                points.append(Point(x, float(match.group(1))))
            except (IndexError, ValueError):
                continue  # a definition without a numeric group: SageMaker skips it too
    return [s for s in series.values() if s.points]


def _host_order(log: Path) -> int:
    digits = log.stem.rsplit("-", 1)[-1]
    return int(digits) if digits.isdigit() else 0

"""A sweep's results file (`sweep --results F.json`) as series: each trial's final metrics, with
the trial number as x, so the objective per trial tables and plots like any metric."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sagelaunch.metrics.series import Point, Series


def read_results(path: Path) -> dict[str, Any] | None:
    """The results document, or None when ``path`` is not a sweep results JSON file."""
    if path.suffix != ".json" or not path.is_file():
        return None
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("trials"), list) else None


def series(results: dict[str, Any]) -> list[Series]:
    """One series per metric the trials reported (the objective's first), x = trial."""
    objective = (results.get("objective") or {}).get("metric")
    by_metric: dict[str, Series] = {}
    if objective:
        by_metric[objective] = Series(objective, "sweep", "trial")
    for trial in results["trials"]:
        for name, value in (trial.get("metrics") or {}).items():
            if isinstance(value, (int, float)):
                target = by_metric.setdefault(name, Series(name, "sweep", "trial"))
                target.points.append(Point(float(trial["trial"]), float(value)))
    return [s for s in by_metric.values() if s.points]

"""A metric's values over steps (local runs) or time (SageMaker), per host: plain data."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Point:
    x: float  # the step (local runs), seconds since the first point (SageMaker), or the trial
    value: float
    timestamp: str | None = None  # ISO 8601, for points CloudWatch recorded


@dataclass
class Series:
    metric: str
    host: str
    x_label: str  # "step", "seconds" or "trial"
    points: list[Point] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "host": self.host,
            "x": self.x_label,
            "points": [_point_json(p, self.x_label) for p in self.points],
        }

    def summary(self) -> dict[str, Any]:
        values = [p.value for p in self.points]
        return {
            "metric": self.metric,
            "host": self.host,
            "points": len(values),
            "first": values[0] if values else None,
            "last": values[-1] if values else None,
            "min": min(values) if values else None,
            "max": max(values) if values else None,
        }


def _point_json(point: Point, x_label: str) -> dict[str, Any]:
    whole = x_label in ("step", "trial")
    data: dict[str, Any] = {x_label: int(point.x) if whole else point.x}
    if point.timestamp is not None:
        data["timestamp"] = point.timestamp
    data["value"] = point.value
    return data


def select(series: list[Series], metric: str | None) -> list[Series]:
    """The series of ``metric`` (all when None)."""
    return [s for s in series if metric is None or s.metric == metric]


def metric_names(series: list[Series]) -> list[str]:
    return list(dict.fromkeys(s.metric for s in series))

"""`sagelaunch metrics`: where a job's series come from — a local run's folder, or SageMaker."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sagelaunch.errors import UsageError
from sagelaunch.local.workdir import RUNS_DIR
from sagelaunch.metrics import local, sweep
from sagelaunch.metrics.series import Point, Series, metric_names, select

if TYPE_CHECKING:
    from sagelaunch.aws.session import Clients


@dataclass
class Found:
    source: str  # "local", "sagemaker" or "sweep" (a `sweep --results` file)
    name: str  # the run folder or the job name
    series: list[Series]

    def as_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "name": self.name,
            "metrics": metric_names(self.series),
            "series": [s.as_json() for s in self.series],
        }


def find(target: str, metric: str | None, connect: Any, runs: Path = RUNS_DIR) -> Found:
    """A sweep's results file, a local run folder (a path, or a job name under
    .sagelaunch/runs), else a SageMaker job.
    ``connect()`` gives the AWS clients, asked only for a job."""
    run_dir = local.run_dir_for(target, runs)
    results = sweep.read_results(Path(target))
    if results is not None:
        found = Found("sweep", target, sweep.series(results))
    elif run_dir is not None:
        found = Found("local", str(run_dir), local.read(run_dir))
    else:
        found = Found("sagemaker", target, _from_sagemaker(connect(), target, None))
    chosen = select(found.series, metric)
    if metric is not None and not chosen:
        names = ", ".join(metric_names(found.series)) or "none recorded yet"
        raise UsageError(f"no series named {metric!r} in {found.name}", hint=f"metrics: {names}")
    found.series = chosen
    return found


def _from_sagemaker(aws: Clients, job: str, metric: str | None) -> list[Series]:
    """CloudWatch's points as series; x is seconds since the earliest point of the job."""
    from sagelaunch.aws.cloudwatch_metrics import job_points

    points = job_points(aws.sagemaker, aws.client("cloudwatch"), job, metric)
    times = [t for series in points.values() for t, _ in series]
    if not times:
        return []
    origin = min(times)
    return [
        Series(
            name,
            host,
            "seconds",
            [Point((t - origin).total_seconds(), v, t.isoformat()) for t, v in series],
        )
        for (name, host), series in points.items()
    ]

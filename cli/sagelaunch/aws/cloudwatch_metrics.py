"""A training job's metric series from CloudWatch.

SageMaker applies the job's metric definitions to its logs and publishes each metric in the
`/aws/sagemaker/TrainingJobs` namespace with a `Host` dimension (`JOB/algo-N`); GetMetricData
reads every metric of every host in one paginated call.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from sagelaunch import resource_config
from sagelaunch.aws.errors import translated
from sagelaunch.aws.jobs import describe, missing

NAMESPACE = "/aws/sagemaker/TrainingJobs"
# Each (metric, host)'s points, as CloudWatch returned them: (timestamp, value), oldest first.
Points = dict[tuple[str, str], list[tuple[datetime, float]]]
PERIOD_S = 60  # SageMaker's training metrics are standard resolution (one point a minute)
MARGIN = timedelta(minutes=5)


def metric_names(job: dict[str, Any]) -> list[str]:
    definitions = job.get("AlgorithmSpecification", {}).get("MetricDefinitions", [])
    return [d["Name"] for d in definitions]


def queries(job_name: str, names: list[str], hosts: int) -> list[dict[str, Any]]:
    """One GetMetricData query per metric and host; ids map back to (metric, host)."""
    return [
        {
            "Id": f"m{m}h{h}",
            "Label": f"{name}|algo-{h}",
            "MetricStat": {
                "Metric": {
                    "Namespace": NAMESPACE,
                    "MetricName": name,
                    "Dimensions": [{"Name": "Host", "Value": f"{job_name}/algo-{h}"}],
                },
                "Period": PERIOD_S,
                "Stat": "Average",
            },
            "ReturnData": True,
        }
        for m, name in enumerate(names)
        for h in range(1, hosts + 1)
    ]


def window(job: dict[str, Any], now: datetime | None = None) -> tuple[datetime, datetime]:
    """From the job's start to its end (or now), with a margin for late points."""
    now = now or datetime.now(timezone.utc)
    start = job.get("TrainingStartTime") or job.get("CreationTime") or now - timedelta(days=1)
    end = job.get("TrainingEndTime") or now
    return start - MARGIN, min(end + MARGIN, now)


@translated
def job_points(sagemaker: Any, cloudwatch: Any, job_name: str, metric: str | None = None) -> Points:
    """Each metric (or only ``metric``) of each host, ordered by time, empty ones left out."""
    job = describe(sagemaker, job_name)
    if job is None:
        raise missing(job_name)
    names = [n for n in metric_names(job) if metric is None or n == metric]
    hosts = resource_config.running(job.get("ResourceConfig", {}))[1]  # preferences: selected
    if not names:
        return {}
    start, end = window(job)
    results = _get_metric_data(cloudwatch, queries(job_name, names, hosts), start, end)
    return _merged(results)


def _get_metric_data(
    cloudwatch: Any, metric_queries: list[dict[str, Any]], start: datetime, end: datetime
) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for first in range(0, len(metric_queries), 500):  # GetMetricData's limit per call
        request: dict[str, Any] = {
            "MetricDataQueries": metric_queries[first : first + 500],
            "StartTime": start,
            "EndTime": end,
            "ScanBy": "TimestampAscending",
        }
        while True:
            page = cloudwatch.get_metric_data(**request)
            found += page.get("MetricDataResults", [])
            if not page.get("NextToken"):
                break
            request["NextToken"] = page["NextToken"]
    return found


def _merged(results: list[dict[str, Any]]) -> Points:
    """The pages of one query merged, ordered by time."""
    merged: Points = {}
    for result in results:
        name, host = result["Label"].rsplit("|", 1)
        merged.setdefault((name, host), []).extend(
            zip(result.get("Timestamps", []), result.get("Values", []), strict=False)
        )
    return {key: sorted(points) for key, points in merged.items() if points}

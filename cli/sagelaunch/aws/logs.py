"""Training logs from CloudWatch: every host's stream of a job, interleaved in time order.

SageMaker writes one stream per host to `/aws/sagemaker/TrainingJobs`, named
`<job>/algo-<N>-<epoch>`. A `LogReader` keeps each stream's forward token, so polling it again
returns only what is new — the basis of both `logs` and `logs --follow`.
"""

from __future__ import annotations

import re
from typing import Any

from botocore.exceptions import ClientError

from sagelaunch.aws.errors import error_code, translated
from sagelaunch.job_events import LogEvent, host_index

GROUP = "/aws/sagemaker/TrainingJobs"
_HOST = re.compile(r"/(algo-(\d+))(?:-\d+)?$")


def host_of(stream: str) -> str:
    """``job/algo-2-1700000000`` -> ``algo-2`` (the stream name itself if it does not match)."""
    match = _HOST.search(stream)
    return match.group(1) if match else stream.rsplit("/", 1)[-1]


class LogReader:
    """The new log events of one job's hosts (or of one host), each poll in time order."""

    def __init__(self, logs: Any, job: str, host: str | None = None) -> None:
        self.logs = logs
        self.job = job
        self.host = host
        self._tokens: dict[str, str | None] = {}

    @translated
    def poll(self) -> list[LogEvent]:
        events: list[LogEvent] = []
        for stream in self.streams():
            events.extend(self._read(stream))
        # Stable sort: one host's lines with equal timestamps keep their order.
        return sorted(events, key=lambda e: (e.timestamp_ms, host_index(e.host)))

    def streams(self) -> list[str]:
        """The job's stream names ([] until SageMaker has created the log group or streams)."""
        query: dict[str, Any] = {"logGroupName": GROUP, "logStreamNamePrefix": f"{self.job}/"}
        names: list[str] = []
        try:
            while True:
                page = self.logs.describe_log_streams(**query)
                names.extend(s["logStreamName"] for s in page.get("logStreams", []))
                if not page.get("nextToken"):
                    break
                query["nextToken"] = page["nextToken"]
        except ClientError as exc:
            if error_code(exc) != "ResourceNotFoundException":
                raise
        return [n for n in names if self.host is None or host_of(n) == self.host]

    def _read(self, stream: str) -> list[LogEvent]:
        host = host_of(stream)
        token = self._tokens.get(stream)
        events: list[LogEvent] = []
        while True:
            query: dict[str, Any] = {
                "logGroupName": GROUP,
                "logStreamName": stream,
                "startFromHead": True,
            }
            if token:
                query["nextToken"] = token
            page = self.logs.get_log_events(**query)
            batch = page.get("events", [])
            token = page.get("nextForwardToken", token)
            events.extend(LogEvent(e["timestamp"], host, e["message"].rstrip("\n")) for e in batch)
            if not batch:  # at the end, AWS returns the same forward token and no events
                break
        self._tokens[stream] = token
        return events

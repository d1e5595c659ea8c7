"""What following a job yields: a change of its status, a line of its logs.

Plain data shared by the layers that read AWS (aws/), follow a job (services/) and draw it
(commands/): none of them owns it, so none has to import the other to name it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Transition:
    """One step of a job's life as the console shows it: status, detail, message. The detail
    of a training job is its SecondaryStatus; of a tuning job, its training jobs by status."""

    status: str
    secondary: str
    message: str = ""

    @classmethod
    def of(cls, job: dict[str, Any]) -> Transition:
        """A DescribeTrainingJob response's step."""
        history = job.get("SecondaryStatusTransitions") or []
        message = history[-1].get("StatusMessage", "") if history else ""
        return cls(job["TrainingJobStatus"], job.get("SecondaryStatus", ""), message)

    @classmethod
    def of_tuning(cls, job: dict[str, Any]) -> Transition:
        """A DescribeHyperParameterTuningJob response's step: "3 Completed, 1 InProgress"."""
        counts = job.get("TrainingJobStatusCounters") or {}
        shown = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no training jobs"
        return cls(job["HyperParameterTuningJobStatus"], shown)


@dataclass(frozen=True)
class LogEvent:
    timestamp_ms: int
    host: str
    message: str

    def as_json(self) -> dict[str, object]:
        return {"timestamp_ms": self.timestamp_ms, "host": self.host, "message": self.message}


def host_index(host: str) -> int:
    """``algo-3`` -> 3 (0 for a name that is not a SageMaker host's)."""
    match = re.fullmatch(r"algo-(\d+)", host)
    return int(match.group(1)) if match else 0

"""Training job statuses, as DescribeTrainingJob and ListTrainingJobs name them."""

from __future__ import annotations

from enum import Enum


class JobStatus(str, Enum):
    InProgress = "InProgress"
    Completed = "Completed"
    Failed = "Failed"
    Stopping = "Stopping"
    Stopped = "Stopped"


TERMINAL = (JobStatus.Completed.value, JobStatus.Failed.value, JobStatus.Stopped.value)
STYLE = {
    JobStatus.Completed.value: "green",
    JobStatus.Failed.value: "red",
    JobStatus.Stopped.value: "yellow",
    JobStatus.Stopping.value: "yellow",
    JobStatus.InProgress.value: "cyan",
}

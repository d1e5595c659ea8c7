"""Job statuses, as DescribeTrainingJob, ListTrainingJobs and DescribeHyperParameterTuningJob
name them: the one place their names are written (tests/cli/test_one_owner.py holds it)."""

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

# The SecondaryStatus of a spot job whose instances managed spot took away.
INTERRUPTED = "Interrupted"

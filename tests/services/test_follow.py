"""services.follow without Typer: what a job's end means for the exit code, for training jobs,
tuning jobs and sweeps alike."""

from __future__ import annotations

import pytest

from sagelaunch.errors import ExitCode, SagelaunchError
from sagelaunch.services.follow import TRAINING, TUNING, conclude, ending
from sagelaunch.statuses import JobStatus
from sagelaunch.sweeps.results import SweepResult, TrialState, conclude_sweep

CODES = {
    JobStatus.Completed: ExitCode.OK,
    JobStatus.Failed: ExitCode.JOB_FAILED,
    JobStatus.Stopped: ExitCode.JOB_STOPPED,
    JobStatus.InProgress: ExitCode.WAIT_TIMEOUT,
    JobStatus.Stopping: ExitCode.WAIT_TIMEOUT,
}


def exit_code(action) -> int:
    try:
        action()
    except SagelaunchError as exc:
        return exc.exit_code
    return ExitCode.OK


def training_job(status: JobStatus) -> dict[str, object]:
    return {
        "TrainingJobName": "bert-1",
        "TrainingJobStatus": status.value,
        "SecondaryStatus": "Training",
        "FailureReason": "AlgorithmError: boom" if status is JobStatus.Failed else None,
    }


def tuning_job(status: JobStatus) -> dict[str, object]:
    return {
        "HyperParameterTuningJobName": "bert-tune",
        "HyperParameterTuningJobStatus": status.value,
        "TrainingJobStatusCounters": {"Completed": 2, "InProgress": 1, "Failed": 0},
    }


@pytest.mark.parametrize("status", list(CODES))
def test_a_training_and_a_tuning_job_end_in_the_same_exit_codes(status: JobStatus) -> None:
    for kind, job in ((TRAINING, training_job(status)), (TUNING, tuning_job(status))):
        assert exit_code(lambda: conclude(ending(kind, job), 60.0)) == CODES[status]  # noqa: B023


def test_an_ending_names_what_it_saw() -> None:
    end = ending(TUNING, tuning_job(JobStatus.InProgress))
    assert (end.name, end.status, end.detail) == (
        "bert-tune",
        "InProgress",
        "2 Completed, 1 InProgress",
    )
    with pytest.raises(SagelaunchError, match=r"tuning job bert-tune is still InProgress after"):
        conclude(end, 90.0)
    failed = ending(TRAINING, training_job(JobStatus.Failed))
    with pytest.raises(SagelaunchError, match="job bert-1 failed: AlgorithmError: boom"):
        conclude(failed, None)


@pytest.mark.parametrize(
    ("statuses", "waited", "code"),
    [
        (["Completed", "Completed"], True, ExitCode.OK),
        (["Completed", "Failed", "Stopped"], True, ExitCode.JOB_FAILED),
        (["Completed", "Stopped"], True, ExitCode.JOB_STOPPED),
        (["Completed", "InProgress"], True, ExitCode.WAIT_TIMEOUT),
        (["Completed", "InProgress"], False, ExitCode.OK),
    ],
)
def test_a_sweep_ends_in_its_worst_trials_code(
    statuses: list[str], waited: bool, code: int
) -> None:
    trials = [TrialState(i, {"lr": i}, f"trial-{i}", status=s) for i, s in enumerate(statuses)]
    result = SweepResult("sweep", "key", trials)
    assert exit_code(lambda: conclude_sweep(result, waited)) == code

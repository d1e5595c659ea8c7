"""The skeleton around every SDK oracle: what the plain SDK sends for a job written by hand,
captured offline through botocore's Stubber on the session's own sagemaker client (a route
independent of sagelaunch's capture session), and the golden plan it is held to. A test is then
its SDK call and nothing else: one `Oracle` row per example, or one `fitted`/`tuned` call."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sagemaker
from botocore.stub import Stubber

from sagelaunch.aws.session import offline_session
from tests.conftest import EXAMPLES
from tests.golden.regenerate import JOB_NAME, ROLE, golden_plan

TUNING_JOB = "tuned-job-260101-0000"
OUT = "s3://sagelaunch-examples/output/"
# What launch_configs/bases/team.yaml sets, as the SDK's estimator arguments.
TEAM = {
    "role": ROLE,
    "volume_size": 100,
    "output_path": OUT,
    "environment": {"NCCL_DEBUG": "WARN"},
    "disable_profiler": True,
    "debugger_hook_config": False,
    "tags": [{"Key": "team", "Value": "ml-platform"}, {"Key": "cost-center", "Value": "4711"}],
}
PT_METRICS = [
    {"Name": "train:loss", "Regex": r"train_loss=([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"},
    {
        "Name": "train:samples_per_sec",
        "Regex": r"samples_per_sec=([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)",
    },
    {
        "Name": "train:tokens_per_sec",
        "Regex": r"tokens_per_sec=([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)",
    },
]
# The stub's answer to each operation an oracle captures: the client's method and its reply.
ANSWERS = {
    "CreateTrainingJob": ("create_training_job", {"TrainingJobArn": "arn:aws:sagemaker:x"}),
    "CreateHyperParameterTuningJob": (
        "create_hyper_parameter_tuning_job",
        {"HyperParameterTuningJobArn": "arn:x"},
    ),
}


def stubbed(
    operation: str,
    call: Callable[[sagemaker.Session], object],
    region: str = "us-east-1",
    default_bucket: str | None = None,
) -> dict:
    """The parameters of the one ``operation`` that ``call(session)`` sends, as botocore builds
    them; the stub answers it, so nothing leaves the machine."""
    session = sagemaker.Session(boto_session=offline_session(region), default_bucket=default_bucket)
    captured: dict = {}
    session.sagemaker_client.meta.events.register(
        f"before-parameter-build.sagemaker.{operation}",
        lambda params, **_: captured.update(params),
    )
    method, answer = ANSWERS[operation]
    with Stubber(session.sagemaker_client) as stub:
        stub.add_response(method, answer)
        call(session)
    return captured


def fitted(
    make_estimator: Callable[[sagemaker.Session], Any],
    inputs: object = None,
    *,
    job_name: str = JOB_NAME,
    region: str = "us-east-1",
    default_bucket: str | None = None,
    **fit_kwargs: Any,
) -> dict:
    """What a hand-written ``estimator.fit(inputs, **fit_kwargs)`` sends (CreateTrainingJob)."""
    return stubbed(
        "CreateTrainingJob",
        lambda s: make_estimator(s).fit(
            inputs, wait=False, logs=False, job_name=job_name, **fit_kwargs
        ),
        region,
        default_bucket,
    )


def tuned(
    make_tuner: Callable[[sagemaker.Session], Any],
    inputs: object = None,
    job_name: str = TUNING_JOB,
) -> dict:
    """What a hand-written ``tuner.fit(inputs)`` sends (CreateHyperParameterTuningJob)."""
    return stubbed(
        "CreateHyperParameterTuningJob",
        lambda s: make_tuner(s).fit(inputs, job_name=job_name, wait=False),
    )


def ours(example: str) -> tuple[dict, str | None]:
    """An example's golden request, and where its code bundle goes (None for a built-in
    algorithm): the location the hand-written estimator's source_dir names."""
    plan = golden_plan(EXAMPLES / f"{example}.yaml")
    return plan["request"], plan["upload"]["s3_uri"] if plan["upload"] else None


@dataclass(frozen=True)
class Oracle:
    """One example's job written by hand with the plain SDK: the estimator, given the session
    and the plan's code location, the inputs its fit() reads, and what else the example's
    request must hold (``also``, asserting on it: a fact the row is there for)."""

    estimator: Callable[[sagemaker.Session, str | None], Any]
    inputs: dict | None = None
    also: Callable[[dict], None] | None = None

    def holds(self, example: str) -> None:
        """The example's golden request is what the hand-written fit() sends."""
        request, code = ours(example)
        assert request == fitted(lambda s: self.estimator(s, code), self.inputs)
        if self.also is not None:
            self.also(request)

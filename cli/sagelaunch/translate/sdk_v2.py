"""A plan as a SageMaker SDK v2 script: the estimator `plan` shows, then ``fit(...)`` (or, for a
job sent to an AWS Batch job queue, the SDK's ``TrainingQueue(...).submit(...)``).

Rendered from the plan's `estimator` (sdk/estimator.py's EstimatorSpec, as data), never derived
again from the config: what the script builds is what planning built. The script's ``main(session,
wait)`` is what tests call under plan's offline capture to compare the two requests.
"""

from __future__ import annotations

from typing import Any

from sagelaunch.errors import UsageError
from sagelaunch.plan_model import Plan, QueuedPlan
from sagelaunch.translate import tuner_v2
from sagelaunch.translate.pysource import INDENT, call, hoist_shared, literal, sdk_modules

HEADER = '''\
#!/usr/bin/env python3
"""Training job {job} with the SageMaker Python SDK v2 (exported by `sagelaunch export` from
{source}).

It sends the CreateTrainingJob request `sagelaunch plan` showed for that config. Run it where
the SDK is installed (pip install "sagemaker>=2.257,<3") and AWS credentials are set up:
    python {script}

The job name is fixed (as planned): a second run would ask for the same name again, which
SageMaker refuses; change JOB_NAME (or pass a base_job_name) to train again.
{code_note}"""

from __future__ import annotations

import boto3
import sagemaker
{imports}

JOB_NAME = {job_literal}
REGION = {region}
'''

CODE_NOTE = """
The code: source_dir is the content-addressed bundle `sagelaunch submit` uploads
({files} files, sha256 {sha}). If nothing uploaded it yet, set source_dir to your
local code folder instead: the SDK then uploads it itself, under a key of its own.
"""

FOOTER = '''

def main(session: sagemaker.Session | None = None, wait: bool = True):
    """Create the training job (and follow its logs to the end unless ``wait`` is False)."""
    session = session or sagemaker.Session(boto_session=boto3.Session(region_name=REGION))
    estimator = make_estimator(session)
    estimator.fit({fit_args}, job_name=JOB_NAME, wait=wait{fit_kwargs})
    return estimator


if __name__ == "__main__":
    main()
'''

QUEUED_FOOTER = '''

def main(session: sagemaker.Session | None = None, wait: bool = True):
    """Put the training job on job queue {queue_name} (AWS Batch): the SDK's TrainingQueue builds
    the CreateTrainingJob request as fit() would and sends it as the service job's payload. Batch
    starts it when the queue has capacity; ``wait`` follows it to the end.

    The SDK sends no idempotency token: each run of this script queues another job (`sagelaunch
    submit` sends the job name as clientToken, so its reruns do not)."""
    session = session or sagemaker.Session(boto_session=boto3.Session(region_name=REGION))
    boto3.setup_default_session(region_name=session.boto_region_name)  # TrainingQueue's client
    estimator = make_estimator(session)
    queued = TrainingQueue(QUEUE).submit(
        estimator,
        {fit_args},
        job_name=JOB_NAME,{submit_kwargs}
    )
    if wait:
        queued.wait()
    return queued


if __name__ == "__main__":
    main()
'''

# compute.queue settings SubmitServiceJob takes that TrainingQueue.submit has no argument for.
_NOT_IN_THE_SDK = {"quota_share": "quotaShareName", "preemption": "preemptionConfiguration"}


def _refuse_what_the_estimator_cannot_build(request: dict[str, Any]) -> None:
    """The members the plan lays over the SDK's request (plan/service_fields.py): an SDK v2
    script would send the job without them."""
    members = [
        member
        for member, shape in (
            ("ResourceConfig.InstancePreferences", "ResourceConfig"),
            ("StoppingCondition.MaxPendingTimeInSeconds", "StoppingCondition"),
        )
        if member.split(".")[1] in request.get(shape, {})
    ]
    if members:
        raise UsageError(
            f"no SDK v2 estimator argument builds {' or '.join(members)}: the exported script "
            "would send the job without it",
            hint="export --sdk v3 (ModelTrainer's Compute and StoppingCondition have them), or "
            "send the planned request with `sagelaunch submit`",
        )


def render(plan: Plan, *, source: str, script: str) -> str:
    """The script for ``plan`` (``source``: the config it came from; ``script``: its file name)."""
    _refuse_what_the_estimator_cannot_build(plan.request)
    estimator = plan.estimator
    module, name = estimator.class_name.rsplit(".", 1)  # e.g. sagemaker.pytorch, PyTorch
    input_classes = sorted({_input_class(spec) for spec in estimator.fit_inputs.values()})
    imports = [f"import {m}" for m in sorted(sdk_modules(estimator.kwargs) - {"sagemaker"})]
    imports.append(f"from {module} import {name}")
    if plan.tuning is not None:
        imports += tuner_v2.imports(plan.tuning)
    if plan.queue is not None:
        _refuse_what_the_sdk_cannot_queue(plan.queue)
        imports.append("from sagemaker.aws_batch.training_queue import TrainingQueue")
    if input_classes:
        imports.insert(0, f"from sagemaker.inputs import {', '.join(input_classes)}")
    header = HEADER.format(
        job=plan.job_name,
        source=source,
        script=script,
        code_note=_code_note(plan),
        imports="\n".join(imports),
        job_literal=literal(plan.job_name) + _tuning_name(plan),
        region=literal(plan.region),
    )
    plain, shared = hoist_shared(dict(estimator.kwargs), "shared")
    kwargs = {**plain, "sagemaker_session": "session"}
    body = [
        "\n\ndef make_estimator(session: sagemaker.Session):",
        f'{INDENT}"""The estimator, with the keyword arguments `sagelaunch plan` showed."""',
        *(f"{INDENT}{var} = {literal(value, 1, len(var) + 3)}" for var, value in shared),
        f"{INDENT}estimator = " + call(name, kwargs, depth=1, raw=frozenset({"sagemaker_session"})),
    ]
    if estimator.set_hyperparameters is not None:  # built-in algorithms take them this way
        body.append(f"{INDENT}estimator.{_set_call(estimator.set_hyperparameters)}")
    body.append(f"{INDENT}return estimator")
    if plan.tuning is not None:
        body += tuner_v2.make_tuner(plan.tuning)
    if estimator.fit_inputs:
        body += ["\n", *_fit_inputs(estimator.fit_inputs)]
    fit_args = "fit_inputs()" if estimator.fit_inputs else "None"
    if plan.tuning is not None:
        return header + "\n".join(body) + "\n" + tuner_v2.main(fit_args)
    if plan.queue is not None:
        header += f"QUEUE = {literal(plan.queue.queue)}\n"
        return header + "\n".join(body) + "\n" + _queued_footer(plan.queue, plan, fit_args)
    fit_kwargs = "".join(
        f", {key}={literal(value, 1)}" for key, value in (estimator.fit_kwargs or {}).items()
    )
    return header + "\n".join(body) + "\n" + FOOTER.format(fit_args=fit_args, fit_kwargs=fit_kwargs)


def _input_class(spec: dict) -> str:
    return str(spec["class"]).rsplit(".", 1)[-1]


def _fit_inputs(inputs: dict[str, dict]) -> list[str]:
    channels = {
        name: call(_input_class(spec), spec["kwargs"], depth=2) for name, spec in inputs.items()
    }
    lines = [f"{INDENT * 2}{literal(name)}: {text}," for name, text in channels.items()]
    return [
        "def fit_inputs() -> dict:",
        f'{INDENT}"""The channels, as fit() takes them."""',
        f"{INDENT}return {{",
        *lines,
        f"{INDENT}}}",
    ]


def _code_note(plan: Plan) -> str:
    if plan.upload is None:
        return ""
    return CODE_NOTE.format(files=len(plan.upload.files), sha=plan.upload.sha256[:12])


def _set_call(hyperparameters: dict[str, Any]) -> str:
    """``set_hyperparameters(key=value, ...)``, or ``(**{...})`` for keys that are not names."""
    if all(key.isidentifier() for key in hyperparameters):
        return call("set_hyperparameters", hyperparameters, depth=1)
    return f"set_hyperparameters(**{literal(hyperparameters, 1, 30)})"


def _tuning_name(plan: Plan) -> str:
    if plan.tuning is None:
        return ""
    return f"\nTUNING_JOB_NAME = {literal(plan.tuning.job_name)}"


def _refuse_what_the_sdk_cannot_queue(queue: QueuedPlan) -> None:
    missing = [
        f"compute.queue.{key} ({field})"
        for key, field in _NOT_IN_THE_SDK.items()
        if queue.settings.get(key) is not None
    ]
    if missing:
        raise UsageError(
            f"the SDK's TrainingQueue.submit cannot send {', '.join(missing)}",
            "`sagelaunch submit` sends every compute.queue setting; drop these to export the job",
        )


def _queued_footer(queue: QueuedPlan, plan: Plan, fit_args: str) -> str:
    """``TrainingQueue.submit``'s arguments: those of the planned SubmitServiceJob request that the
    SDK does not derive itself (its retry strategy and timeout are passed as planned, so the
    script sends the plan's values whatever the SDK's defaults become)."""
    sent = queue.request
    kwargs: dict[str, Any] = {
        "retry_config": sent["retryStrategy"],
        "priority": sent.get("schedulingPriority"),
        "share_identifier": sent.get("shareIdentifier"),
        "timeout": sent["timeoutConfig"],
        "tags": queue.settings.get("tags") or None,
        "experiment_config": (plan.estimator.fit_kwargs or {}).get("experiment_config"),
    }
    given = "".join(
        f"\n{INDENT * 2}{key}={literal(value, 2)},"
        for key, value in kwargs.items()
        if value is not None
    )
    return QUEUED_FOOTER.format(queue_name=queue.queue, fit_args=fit_args, submit_kwargs=given)

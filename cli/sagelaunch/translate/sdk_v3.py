"""A plan as a SageMaker SDK v3 script: `ModelTrainer` (sagemaker-train) running the same code,
image, cluster, channels and limits.

v3 builds a different request from the same job (see docs/guide/export.md): its own drivers start
the entry point (an `sm_drivers` channel, `/bin/bash sm_train.sh`), the code arrives as a `code`
channel, hyperparameters are not JSON-quoted when they are strings, and no debugger/profiler
configs are added. What v3 cannot express is refused (exit 2), naming it.
"""

from __future__ import annotations

import re
from typing import Any

from sagelaunch import naming
from sagelaunch.errors import UsageError
from sagelaunch.plan_model import Plan
from sagelaunch.strategies import registry
from sagelaunch.strategies.base import V3Call
from sagelaunch.translate.pysource import INDENT, call, literal, source_list

HEADER = '''\
#!/usr/bin/env python3
"""Training job {base} with the SageMaker Python SDK v3 ModelTrainer (exported by
`sagelaunch export --sdk v3` from {source}).

The same code, image, cluster, channels and limits as `sagelaunch plan` (SDK v2) showed; the
request differs where v3 works differently (its drivers start the entry point, the code is a
channel, string hyperparameters are not JSON-quoted, no debugger/profiler configs).

Run it where sagemaker-train is installed (v3 cannot share a virtualenv with v2) and AWS
credentials are set up:
    python {script}
v3 names the job BASE_JOB_NAME plus a timestamp.
{code_note}"""

from __future__ import annotations

import boto3
from sagemaker.core.helper.session_helper import Session
from sagemaker.core.training.configs import (
{config_imports}
)
from sagemaker.train import ModelTrainer
{distributed_import}
BASE_JOB_NAME = {base_literal}
REGION = {region}
'''

CODE_NOTE = """
The code: source_dir is the bundle `sagelaunch submit` uploads (sha256 {sha}); if nothing
uploaded it yet, point source_dir at your local code folder and ModelTrainer uploads it.
"""

FOOTER = '''

def main(session: Session | None = None, wait: bool = True) -> ModelTrainer:
    """Create the training job (and follow it to the end unless ``wait`` is False)."""
    session = session or Session(boto_session=boto3.Session(region_name=REGION))
    trainer = make_trainer(session)
    trainer.train(input_data_config=input_data(), wait=wait)
    return trainer


if __name__ == "__main__":
    main()
'''


def render(plan: Plan, *, source: str, script: str) -> str:
    """The ModelTrainer script for ``plan``; UsageError naming what v3 lacks."""
    if plan.tuning is not None:
        raise UsageError(
            "export --sdk v3 writes a ModelTrainer (one training job); this config's tuning: "
            "block would be lost",
            hint="export --sdk v2 writes its HyperparameterTuner",
        )
    if "InstanceGroups" in plan.request["ResourceConfig"]:
        raise UsageError(
            "export --sdk v3 does not write instance groups (compute.groups) yet: the "
            "heterogeneous cluster would be lost",
            hint="export --sdk v2 writes them as InstanceGroup objects",
        )
    kwargs = plan.estimator.kwargs
    distributed = _distributed(kwargs.get("distribution") or {})
    trainer = _trainer_kwargs(plan, distributed)
    used = _classes(trainer, plan)
    base = naming.base_of(plan.job_name)
    header = HEADER.format(
        base=base,
        source=source,
        script=script,
        code_note=CODE_NOTE.format(sha=plan.upload.sha256[:12]) if plan.upload else "",
        config_imports="\n".join(f"{INDENT}{name}," for name in sorted(used - DISTRIBUTED)),
        distributed_import=_distributed_import(used),
        base_literal=literal(base),
        region=literal(plan.region),
    )
    raw = frozenset(k for k, v in trainer.items() if isinstance(v, Source))
    make = [
        "\n\ndef make_trainer(session: Session) -> ModelTrainer:",
        f'{INDENT}"""The trainer: what the planned estimator set, in v3\'s terms."""',
        f"{INDENT}trainer = "
        + call("ModelTrainer", {k: str(v) if k in raw else v for k, v in trainer.items()}, 1, raw),
        *_with_calls(plan),
        f"{INDENT}return trainer",
    ]
    return header + "\n".join(make) + "\n\n\n" + _input_data(plan) + FOOTER


class Source(str):
    """Python source text (a constructor call), not data."""


DISTRIBUTED = frozenset({"Torchrun", "MPI", "SMP"})


def _distributed(distribution: dict[str, Any]) -> Source | None:
    """Torchrun / MPI / Torchrun(smp=SMP(...)) for the distribution dict (its strategy's v3
    piece), or UsageError naming what v3 cannot express."""
    found = registry.owner_of(distribution).export_v3(distribution)
    return None if found is None else Source(_v3_call(found, depth=2))


def _v3_call(found: V3Call, depth: int) -> str:
    nested = {k: _v3_call(v, depth + 1) for k, v in found.kwargs.items() if isinstance(v, V3Call)}
    return call(found.name, {**found.kwargs, **nested}, depth=depth, raw=frozenset(nested))


def _trainer_kwargs(plan: Plan, distributed: Source | None) -> dict[str, Any]:
    request, kwargs = plan.request, plan.estimator.kwargs
    trainer: dict[str, Any] = {
        "sagemaker_session": Source("session"),
        "role": request["RoleArn"],
        "base_job_name": Source("BASE_JOB_NAME"),
        "training_image": request["AlgorithmSpecification"]["TrainingImage"],
    }
    if "entry_point" in kwargs:
        code = {"source_dir": kwargs["source_dir"], "entry_script": kwargs["entry_point"]}
        trainer["source_code"] = Source(call("SourceCode", code, depth=2))
    if distributed is not None:
        trainer["distributed"] = distributed
    trainer["compute"] = Source(call("Compute", _compute(request), depth=2))
    trainer["stopping_condition"] = Source(
        call("StoppingCondition", _snake(request["StoppingCondition"]), depth=2)
    )
    trainer["output_data_config"] = Source(call("OutputDataConfig", _output(request), depth=2))
    if "CheckpointConfig" in request:
        checkpoint = _snake(request["CheckpointConfig"])
        trainer["checkpoint_config"] = Source(call("CheckpointConfig", checkpoint, depth=2))
    networking = _networking(request)
    if networking:
        trainer["networking"] = Source(call("Networking", networking, depth=2))
    hyperparameters = plan.estimator.set_hyperparameters or kwargs.get("hyperparameters")
    if hyperparameters:
        trainer["hyperparameters"] = dict(hyperparameters)
    if request.get("Environment"):
        trainer["environment"] = dict(request["Environment"])
    if request.get("Tags"):
        tags = [
            f"Tag(key={literal(t['Key'])}, value={literal(t['Value'])})" for t in request["Tags"]
        ]
        trainer["tags"] = Source(source_list(tags, depth=2, used=len("tags=")))
    trainer["training_input_mode"] = request["AlgorithmSpecification"]["TrainingInputMode"]
    return trainer


def _compute(request: dict[str, Any]) -> dict[str, Any]:
    resources = request["ResourceConfig"]
    compute: dict[str, Any] = {}
    if "InstancePreferences" in resources:  # exclusive of instance_type (v3 checks it too)
        compute["instance_preferences"] = [_snake(p) for p in resources["InstancePreferences"]]
    else:
        compute["instance_type"] = resources["InstanceType"]
        compute["instance_count"] = resources["InstanceCount"]
    compute["volume_size_in_gb"] = resources["VolumeSizeInGB"]
    if resources.get("TrainingPlanArn"):
        compute["training_plan_arn"] = resources["TrainingPlanArn"]
    if resources.get("InstancePlacementConfig"):
        compute["instance_placement_config"] = _snake(resources["InstancePlacementConfig"])
    if resources.get("VolumeKmsKeyId"):
        compute["volume_kms_key_id"] = resources["VolumeKmsKeyId"]
    if resources.get("KeepAlivePeriodInSeconds"):
        compute["keep_alive_period_in_seconds"] = resources["KeepAlivePeriodInSeconds"]
    if request.get("EnableManagedSpotTraining"):
        compute["enable_managed_spot_training"] = True
    return compute


def _output(request: dict[str, Any]) -> dict[str, Any]:
    return _snake(request["OutputDataConfig"])


def _networking(request: dict[str, Any]) -> dict[str, Any]:
    vpc = request.get("VpcConfig", {})
    networking: dict[str, Any] = {}
    if vpc:
        networking["subnets"] = list(vpc["Subnets"])
        networking["security_group_ids"] = list(vpc["SecurityGroupIds"])
    if request.get("EnableNetworkIsolation"):
        networking["enable_network_isolation"] = True
    if request.get("EnableInterContainerTrafficEncryption"):
        networking["enable_inter_container_traffic_encryption"] = True
    return networking


def _snake(shape: Any) -> Any:
    """An AWS shape's keys in v3's snake_case (S3Uri -> s3_uri, KmsKeyId -> kms_key_id), its
    nested shapes' too (v3's pydantic shapes take them as dicts)."""
    if isinstance(shape, list):
        return [_snake(item) for item in shape]
    if not isinstance(shape, dict):
        return shape
    return {_snake_key(key): _snake(value) for key, value in shape.items()}


def _snake_key(key: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key).lower()


def _with_calls(plan: Plan) -> list[str]:
    """What v3 sets through `with_*` rather than the constructor."""
    lines = []
    definitions = plan.request["AlgorithmSpecification"].get("MetricDefinitions")
    if definitions:
        items = [
            call("MetricDefinition", {"name": d["Name"], "regex": d["Regex"]}, depth=3)
            for d in definitions
        ]
        listed = source_list(items, depth=2)
        lines.append(
            f"{INDENT}trainer = trainer.with_metric_definitions(\n{INDENT * 2}{listed}\n{INDENT})"
        )
    retries = plan.request.get("RetryStrategy", {}).get("MaximumRetryAttempts")
    if retries:
        lines.append(
            f"{INDENT}trainer = trainer.with_retry_strategy("
            f"RetryStrategy(maximum_retry_attempts={retries}))"
        )
    return lines


def _input_data(plan: Plan) -> str:
    channels = [_channel(name, spec) for name, spec in plan.estimator.fit_inputs.items()]
    body = "".join(f"{INDENT * 2}{channel},\n" for channel in channels)
    listed = f"[\n{body}{INDENT}]" if channels else "[]"
    return (
        "def input_data() -> list:\n"
        f'{INDENT}"""The channels (fit() inputs in v2)."""\n'
        f"{INDENT}return {listed}\n"
    )


def _channel(name: str, spec: dict[str, Any]) -> str:
    kwargs = spec["kwargs"]
    if str(spec["class"]).endswith("FileSystemInput"):
        source = {
            "file_system_id": kwargs["file_system_id"],
            "file_system_type": kwargs["file_system_type"],
            "directory_path": kwargs["directory_path"],
            "file_system_access_mode": kwargs["file_system_access_mode"],
        }
        data_source: Any = Source(call("FileSystemDataSource", source, depth=3))
    elif kwargs.get("distribution", "FullyReplicated") != "FullyReplicated":
        source = {
            "s3_data_type": "S3Prefix",
            "s3_uri": kwargs["s3_data"],
            "s3_data_distribution_type": kwargs["distribution"],
        }
        data_source = Source(call("S3DataSource", source, depth=3))
    else:
        data_source = kwargs["s3_data"]
    mode = kwargs.get("input_mode")
    # ModelTrainer sends InputMode File itself for a channel given as an S3 URI string.
    if mode and (mode != "File" or isinstance(data_source, Source)):
        raise UsageError(
            f"channel {name}: SDK v3's InputData has no per-channel input_mode "
            f"({kwargs['input_mode']})",
            hint="export --sdk v2, or set the job-wide input_mode instead",
        )
    channel: dict[str, Any] = {"channel_name": name, "data_source": data_source}
    if kwargs.get("content_type"):
        channel["content_type"] = kwargs["content_type"]
    raw = frozenset({"data_source"}) if isinstance(data_source, Source) else frozenset()
    return call("InputData", channel, depth=2, raw=raw)


def _classes(trainer: dict[str, Any], plan: Plan) -> set[str]:
    """The names the script imports: every constructor its text calls."""
    text = " ".join(str(v) for v in trainer.values() if isinstance(v, Source))
    text += " ".join(_with_calls(plan)) + _input_data(plan)
    names = {
        "SourceCode", "Compute", "StoppingCondition", "OutputDataConfig", "CheckpointConfig",
        "Networking", "Tag", "MetricDefinition", "RetryStrategy", "InputData", "S3DataSource",
        "FileSystemDataSource", "Torchrun", "MPI", "SMP",
    }  # fmt: skip
    return {name for name in names if f"{name}(" in text}


def _distributed_import(used: set[str]) -> str:
    names = sorted(used & DISTRIBUTED)
    return f"from sagemaker.train.distributed import {', '.join(names)}\n" if names else ""

"""Compute, spot, data, locations, role and job-name rules (the CreateTrainingJob API's limits)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from sagelaunch import naming
from sagelaunch.catalog import facts
from sagelaunch.checks import request_limits
from sagelaunch.checks.rules.registry import error, rule, warning
from sagelaunch.config import placeholders
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.errors import Problem

# StoppingCondition.MaxRuntimeInSeconds: "The maximum value is 28 days" (the member's documentation
# in botocore's model and the SageMaker API reference, StoppingCondition). The model's shape states
# no max, only its minimum, 1 (api_request_limits checks that), so the service's 28 days are kept
# here: tests/config/test_rule_bounds.py holds MAX_RUN_DAYS to the sentence in botocore's model and
# fails when the shape gains a max. Every bound the shapes state (keep-alive 0-21600, retries
# 1-30, ...) is read from data/api_limits.json, never copied.
MAX_RUN_DAYS = 28
MAX_RUN_SECONDS = MAX_RUN_DAYS * 86400
# The API's patterns (botocore's sagemaker service model).
ROLE_ARN = re.compile(r"^arn:aws[a-z\-]*:iam::\d{12}:role/?[a-zA-Z_0-9+=,.@\-_/]+$")
S3_URI = re.compile(r"^(https|s3)://([^/]+)/?(.*)$")
CHANNEL_NAME = re.compile(r"^[A-Za-z0-9\.\-_]{1,64}$")
INSTANCE_TYPE = re.compile(r"^ml\.[a-z0-9-]+\.[a-z0-9-]+$")


@rule
def instance_type_known(loaded: LoadedConfig) -> Iterator[Problem]:
    """SageMaker training instance types are ml.<family>.<size>; others are refused by the API.
    Advice for a well-formed type sagelaunch has no facts for."""
    instance_type = loaded.config.compute.instance_type
    if not INSTANCE_TYPE.match(instance_type):
        yield error(
            loaded,
            ("compute", "instance_type"),
            f"{instance_type!r} is not a SageMaker instance type (e.g. ml.p4d.24xlarge)",
        )
    elif facts.instance(instance_type) is None:
        yield warning(loaded, ("compute", "instance_type"), _not_in_catalog(instance_type))


def _not_in_catalog(instance_type: str) -> str:
    """The catalog holds every type of botocore's TrainingInstanceType enum (the API's own list,
    which the service enforces), so a type outside it is one this botocore does not know."""
    from sagelaunch.nearest import nearest

    catalog = facts.catalog()
    if instance_type in catalog["excluded"]:
        why = catalog["excluded"][instance_type]
        return (
            f"{instance_type} is not in sagelaunch's catalog ({why}): its accelerators per host, "
            "cost and limits are not checked"
        )
    close = nearest(instance_type, catalog["instances"], cutoff=0.85)
    botocore = catalog["sources"]["types"].split(":")[0]
    return (
        f"{instance_type} is not a training instance type of {botocore}'s SageMaker model "
        "(CreateTrainingJob's TrainingInstanceType): the service refuses a type it does not offer"
        + (f"; did you mean {' or '.join(close)}?" if close else "")
        + " (a type newer than this botocore: upgrade sagelaunch)"
    )


@rule
def run_time_ranges(loaded: LoadedConfig) -> Iterator[Problem]:
    """The service refuses MaxRuntimeInSeconds over 28 days (the model's documentation and the
    API reference; the model's minimum, 1 s, is api_request_limits')."""
    compute = loaded.config.compute
    if compute.max_run > MAX_RUN_SECONDS:
        yield error(
            loaded,
            ("compute", "max_run"),
            f"{compute.max_run} s is over {MAX_RUN_DAYS} days ({MAX_RUN_SECONDS} s), the most "
            "SageMaker runs a training job (StoppingCondition.MaxRuntimeInSeconds, API reference)",
        )


@rule
def spot_max_wait(loaded: LoadedConfig) -> Iterator[Problem]:
    """The API refuses a spot job whose MaxWaitTimeInSeconds is below MaxRuntimeInSeconds."""
    compute = loaded.config.compute
    if compute.spot and compute.spot.max_wait < compute.max_run:
        yield error(
            loaded,
            ("compute", "spot", "max_wait"),
            f"max_wait ({compute.spot.max_wait}s) must be >= max_run ({compute.max_run}s): "
            "the API refuses it",
        )


@rule
def one_max_wait(loaded: LoadedConfig) -> Iterator[Problem]:
    """compute.max_wait is the on-demand job's; a spot job's is spot.max_wait (two would leave
    the request's one MaxWaitTimeInSeconds ambiguous)."""
    compute = loaded.config.compute
    if compute.spot and compute.max_wait is not None:
        yield error(
            loaded,
            ("compute", "max_wait"),
            "a spot job waits for spot.max_wait: move this value there",
        )


@rule
def spot_without_checkpoint(loaded: LoadedConfig) -> Iterator[Problem]:
    """Advice: an interrupted spot job without checkpoints restarts from the beginning."""
    config = loaded.config
    if config.compute.spot and not config.checkpoint:
        yield warning(
            loaded,
            ("compute", "spot"),
            "spot without checkpoint: an interrupted job restarts from step 0; "
            "add checkpoint.s3_uri",
        )


@rule
def sharded_single_instance(loaded: LoadedConfig) -> Iterator[Problem]:
    """Advice: ShardedByS3Key on one instance gives that instance everything."""
    config = loaded.config
    if config.compute.instance_count > 1:
        return
    for name, channel in config.inputs.items():
        if channel.distribution == "sharded":
            yield warning(
                loaded,
                ("inputs", name, "distribution"),
                "sharded with one instance is the same as replicated",
            )


@rule
def xgboost_dask_gpu(loaded: LoadedConfig) -> Iterator[Problem]:
    """The XGBoost container's Dask GPU training fails on sharded data across hosts ("Dask
    distributed training requires FullyReplicated data") and needs a GPU."""
    config = loaded.config
    if str(config.hyperparameters.get("use_dask_gpu_training", "")).lower() != "true":
        return
    if config.compute.instance_count > 1:
        for name, channel in config.inputs.items():
            if channel.distribution != "replicated":
                yield error(
                    loaded,
                    ("inputs", name, "distribution"),
                    "Dask GPU training requires FullyReplicated data: use distribution: replicated",
                )
    if facts.instance_kind(config.compute.instance_type) != "gpu":
        yield error(
            loaded, ("compute", "instance_type"), "use_dask_gpu_training needs a GPU instance"
        )


@rule
def channels_well_formed(loaded: LoadedConfig) -> Iterator[Problem]:
    """Channel names and S3 URIs as the API accepts them; FSx/EFS channels need the job in the
    file system's VPC (the service refuses them otherwise)."""
    config = loaded.config
    for name, channel in config.inputs.items():
        if not CHANNEL_NAME.match(name):
            yield error(
                loaded, ("inputs", name), "channel names use letters, digits, '.', '-', '_'"
            )
        if channel.uri and channel.uri.startswith("file://"):
            yield warning(
                loaded, ("inputs", name, "uri"), "file:// inputs work for local runs only"
            )
        elif channel.uri and not S3_URI.match(channel.uri):
            yield error(loaded, ("inputs", name, "uri"), f"not an S3 URI: {channel.uri!r}")
        if channel.file_system and not config.network.subnets:
            yield error(
                loaded,
                ("inputs", name, "file_system"),
                "FSx/EFS inputs need network.subnets and network.security_group_ids in its VPC",
            )
    for name in config.local.inputs:
        if name not in config.inputs:
            yield error(loaded, ("local", "inputs", name), f"no input channel named {name!r}")


@rule
def s3_uris_well_formed(loaded: LoadedConfig) -> Iterator[Problem]:
    """Output, code and checkpoint locations as the API's S3Uri pattern accepts them."""
    config = loaded.config
    uris = {
        ("output_path",): config.output_path,
        ("code_location",): config.code_location,
        ("checkpoint", "s3_uri"): config.checkpoint.s3_uri if config.checkpoint else None,
    }
    for path, uri in uris.items():
        if uri is not None and not S3_URI.match(uri):
            yield error(loaded, path, f"not an S3 URI: {uri!r} (expected s3://bucket/prefix)")


@rule
def placeholder_bucket(loaded: LoadedConfig) -> Iterator[Problem]:
    """A location still in the starter configs' placeholder bucket: a plan shows the request, but
    `submit` would send the code and the model to someone else's bucket (or none)."""
    for path, uri in placeholders.locations(loaded.document.data):
        yield warning(
            loaded,
            path,
            f"{uri} is the starter config's placeholder: put a bucket of yours in place of "
            f"{placeholders.PLACEHOLDER_BUCKET} before `submit`",
        )


@rule
def role_is_arn(loaded: LoadedConfig) -> Iterator[Problem]:
    """CreateTrainingJob takes a role ARN. The SDK turns a bare role name into one with an IAM
    call; an offline plan cannot, so the config must carry the ARN it will send."""
    role = loaded.config.role
    if role is None:
        return
    if role.startswith("$"):
        yield error(
            loaded,
            ("role",),
            "environment references are not expanded; leave role unset to use $SAGELAUNCH_ROLE",
        )
    elif not ROLE_ARN.match(role):
        yield error(
            loaded,
            ("role",),
            f"{role!r} is not an IAM role ARN (arn:aws:iam::<account>:role/<name>): plans are "
            "made offline and send the ARN as written",
        )


@rule
def job_name_truncated(loaded: LoadedConfig) -> Iterator[Problem]:
    """Advice: like the SDK's name_from_base, a base too long for the timestamp is shortened."""
    config = loaded.config
    if config.job_name is None and naming.is_truncated(config.name):
        kept = naming.trimmed_base(config.name)
        yield warning(
            loaded,
            ("name",),
            f"{len(config.name)} characters: job names keep the first {len(kept)} ({kept!r}) "
            "before the 24-character timestamp, as the SDK does; set job_name for an exact name",
        )


@rule
def tuning_base_name_truncated(loaded: LoadedConfig) -> Iterator[Problem]:
    """Advice: like the SDK's tuner, a tuning base longer than 20 characters is cut to them."""
    tuning = loaded.config.tuning
    if tuning is None or tuning.job_name is not None:
        return
    base = naming.tuning_base_for(loaded.config)
    kept = naming.trimmed_tuning_base(base)
    if kept != base:
        where = ("tuning", "base_name") if tuning.base_name else ("name",)
        yield warning(
            loaded,
            where,
            f"{len(base)} characters: tuning job names keep the first {len(kept)} ({kept!r}) "
            "before the -yymmdd-HHMM timestamp, within the API's 32, as the SDK's tuner does; "
            "set tuning.job_name for an exact name",
        )


@rule
def api_map_limits(loaded: LoadedConfig) -> Iterator[Problem]:
    """CreateTrainingJob's limits on hyperparameters and environment (entries, key and value
    lengths and patterns, from botocore's model): the service refuses a request over any."""
    yield from request_limits.config_problems(loaded)


@rule
def api_request_limits(loaded: LoadedConfig) -> Iterator[Problem]:
    """Every other length, pattern and member count of CreateTrainingJob and
    CreateHyperParameterTuningJob a config writes (tags, metrics, channels, VPC, KMS keys,
    Debugger, TensorBoard, experiments, tuning ranges; botocore's model, read as data), and the
    reserved aws: tag prefix: the service refuses a request over any."""
    yield from request_limits.limit_problems(loaded)

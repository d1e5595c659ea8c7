"""The launch-config model: strict pydantic models, every field described.

The descriptions become `sagelaunch schema` and launch_configs/schema.json, so editors autocomplete
and explain each key. Only shape and ranges live here; cross-field compatibility (strategy ×
instance × version) lives in rules.py, where each rule has a name, a test and a fix-it message.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import (
    BeforeValidator,
    Field,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from sagelaunch import naming
from sagelaunch.catalog.api_limits import field_bounds, number_range, queue_range
from sagelaunch.config.debugger_settings import (
    DebuggerSetting,
    Experiment,
    ProfilerSetting,
    TensorBoard,
)
from sagelaunch.config.instance_groups import (
    ChannelGroups,
    InstanceGroup,
    derive_compute,
)
from sagelaunch.config.instance_preferences import (
    PREFERENCES_BOUNDS,
    InstancePreference,
    Placement,
    derive_from_preferences,
)
from sagelaunch.config.sweep import Sweep, Tuning
from sagelaunch.strategies import registry
from sagelaunch.strategies.base import DistributionSettings, Strategy
from sagelaunch.strict import Strict

_DURATION = re.compile(r"^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$")
# Numeric bounds of the request members the config writes: botocore's model's
# (data/api_limits.json), never a copy.
_TRAINING = "CreateTrainingJob."
_UNIT_SECONDS = (86400, 3600, 60, 1)


def parse_duration(value: object) -> object:
    """Seconds as an int, or a string like ``90m``, ``24h``, ``2d``, ``1h30m``."""
    if isinstance(value, bool):
        raise ValueError("expected a duration such as 3600, 90m, 24h or 2d")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        if text.isdigit():
            return int(text)
        match = _DURATION.match(text)
        if text and match:
            return sum(
                int(n or 0) * unit for n, unit in zip(match.groups(), _UNIT_SECONDS, strict=True)
            )
    raise ValueError(f"{value!r} is not a duration: use seconds or e.g. 90m, 24h, 2d, 1h30m")


Duration = Annotated[
    int,
    BeforeValidator(parse_duration),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 0},
                {"type": "string", "pattern": r"^(\d+d)?(\d+h)?(\d+m)?(\d+s)?$"},
            ],
            "description": "seconds, or a string such as 90m, 24h, 2d",
        }
    ),
]

# SageMaker's own names are accepted too; the model stores the short form.
_DATA_DISTRIBUTIONS = {
    "sharded": "sharded",
    "shardedbys3key": "sharded",
    "replicated": "replicated",
    "fullyreplicated": "replicated",
}


@dataclass(frozen=True)
class FallbackAfter:
    """When a spot job gives way to an on-demand rerun: after ``interruptions`` spot
    interruptions, or ``seconds`` after the job was created. One value in YAML: a number or a
    duration (so the config reference lists one key)."""

    interruptions: int | None = None
    seconds: int | None = None

    def __str__(self) -> str:
        if self.interruptions is not None:
            return f"{self.interruptions} interruptions"
        return f"{self.seconds}s"


def parse_fallback_after(value: object) -> object:
    """A number is interruptions (3); a duration has a unit (90m, 2h, 1d)."""
    if value is None or isinstance(value, FallbackAfter):
        return value
    if isinstance(value, dict):  # a dumped config
        value = value.get("interruptions") or f"{value.get('seconds')}s"
    if isinstance(value, str) and not value.strip().isdigit():
        seconds = parse_duration(value)
        if not isinstance(seconds, int) or seconds < 1:
            raise ValueError("a duration of at least 1s, e.g. 90m or 2h")
        return FallbackAfter(seconds=seconds)
    if isinstance(value, int | str) and not isinstance(value, bool) and int(value) >= 1:
        return FallbackAfter(interruptions=int(value))
    raise ValueError("a number of interruptions (>= 1), or a duration such as 90m or 2h")


class Spot(Strict):
    max_wait: Duration = Field(
        description="Longest the job may wait for spot capacity plus run (>= max_run)."
    )
    fallback_after: Annotated[
        FallbackAfter | None,
        BeforeValidator(parse_fallback_after),
        WithJsonSchema(
            {
                "anyOf": [
                    {"type": "integer", "minimum": 1},
                    {"type": "string", "pattern": r"^(\d+d)?(\d+h)?(\d+m)?(\d+s)?$"},
                    {"type": "null"},
                ],
                "description": "interruptions (3), or a duration (90m, 2h, 1d)",
            }
        ),
    ] = Field(
        None,
        description="`submit --wait`: after this many spot interruptions (a number), or this "
        "long after the job was created without it ending (a duration: 90m, 2h), stop the job "
        "and resubmit it on demand (it resumes from checkpoint.s3_uri).",
    )


class Fallback(Strict):
    """One alternative of a failover chain: what differs from the main config."""

    instance_type: str | None = Field(
        None, description="Instance type of this alternative, e.g. ml.p4d.24xlarge."
    )
    instance_count: int | None = Field(
        None, ge=1, description="Number of instances of this alternative."
    )
    region: str | None = Field(None, description="Region of this alternative, e.g. us-west-2.")
    on_demand: bool = Field(
        False, description="true: run this alternative on demand (without compute.spot)."
    )

    def overrides(self) -> list[str]:
        """The alternative as `--set` overrides of the main config."""
        sets = [f"compute.instance_type={self.instance_type}"] if self.instance_type else []
        if self.instance_count is not None:
            sets.append(f"compute.instance_count={self.instance_count}")
        if self.region:
            sets.append(f"region={self.region}")
        if self.on_demand:
            sets.append("compute.spot=null")
        return [*sets, "compute.fallback=[]"]


def _queue_by_name(value: object) -> object:
    """``queue: ml-queue`` is ``queue: {name: ml-queue}``."""
    return {"name": value} if isinstance(value, str) else value


_PRIORITY = queue_range("schedulingPriority")
_ATTEMPTS = queue_range("retryStrategy.attempts")


class Queue(Strict):
    """An AWS Batch job queue for SageMaker training (AWS Batch's SubmitServiceJob): the job
    waits there for capacity instead of failing, in the queue's priority and fair-share order."""

    name: str = Field(min_length=1, description="The job queue's name or ARN (SAGEMAKER_TRAINING).")
    priority: int | None = Field(
        None,
        ge=_PRIORITY[0],
        le=_PRIORITY[1],
        description="schedulingPriority: higher runs first on a queue with a fair-share policy.",
    )
    share: str | None = Field(
        None,
        min_length=1,
        description="shareIdentifier: this job's share of a fair-share queue (required there).",
    )
    quota_share: str | None = Field(
        None, min_length=1, description="quotaShareName, on a queue with quota shares."
    )
    preemption: int | None = Field(
        None,
        ge=0,
        description="preemptionConfiguration.preemptionRetriesBeforeTermination: how often a "
        "preempted job goes back to the queue before it is ended (unset: always).",
    )
    retries: int = Field(
        0,
        ge=_ATTEMPTS[0] - 1,
        le=(_ATTEMPTS[1] or 1) - 1,
        description="Batch retries of a job that ended with SageMaker's internal error "
        "(retryStrategy.attempts = retries + 1; capacity waits cost no attempt).",
    )
    timeout: Duration | None = Field(
        None,
        description="timeoutConfig.attemptDurationSeconds: Batch ends an attempt after this "
        "long (unset: the SDK's default, one day).",
    )
    tags: dict[str, str] = Field(
        default_factory=dict,
        description="Tags of the service job only (the config's tags go on both, as the SDK "
        "sends them).",
    )


class Compute(Strict):
    instance_type: str = Field(
        description="SageMaker training instance type, e.g. ml.p4d.24xlarge (with groups or "
        "instance_preferences: omit it; it then reads as the training group's or the first "
        "preference's)."
    )
    # At least 1: a job runs on its instances (the model's minimum is 0; with instance groups
    # the member is not sent). No most: the model states none, and how many instances an account
    # may run is its service quotas' (adjustable), not the API's.
    instance_count: int = Field(1, ge=1, description="Number of instances (with groups: omit it).")
    groups: list[InstanceGroup] | None = Field(
        None,
        min_length=1,
        description="Heterogeneous cluster: instance groups [{name, instance_type, "
        "instance_count}] instead of instance_type/instance_count.",
    )
    instance_preferences: list[InstancePreference] | None = Field(
        None,
        **PREFERENCES_BOUNDS,
        description="Flexible instance selection: [{instance_type, instance_count, "
        "training_plans}] in priority order; SageMaker starts the job on the first with "
        "capacity (ResourceConfig.InstancePreferences) instead of instance_type/instance_count.",
    )
    training_plan: str | None = Field(
        None, description="SageMaker training plan ARN to run on (ResourceConfig.TrainingPlanArn)."
    )
    placement: Placement | None = Field(
        None,
        description="UltraServer placement (ResourceConfig.InstancePlacementConfig, the API's "
        "names): {EnableMultipleJobs, PlacementSpecifications: [{UltraServerId, InstanceCount}]}.",
    )
    volume_size_gb: int = Field(
        30,
        **field_bounds(_TRAINING + "ResourceConfig.VolumeSizeInGB"),
        description="EBS volume per instance, in GB.",
    )
    max_run: Duration = Field(86400, description="Stopping condition: longest run (max 28 days).")
    keep_alive: Duration = Field(
        0,
        description="Warm-pool keep-alive in seconds (0 = off, at most "
        f"{number_range(_TRAINING + 'ResourceConfig.KeepAlivePeriodInSeconds')[1]}).",
    )
    spot: Spot | None = Field(None, description="Presence enables managed spot training.")
    max_pending: Duration | None = Field(
        None,
        description="StoppingCondition.MaxPendingTimeInSeconds: stop the job after waiting "
        "this long for capacity (the wait for a Scheduled training plan's start does not count).",
    )
    max_wait: Duration | None = Field(
        None,
        description="On demand (no spot): StoppingCondition.MaxWaitTimeInSeconds, as the SDK "
        "sends max_wait without use_spot_instances; with spot, set spot.max_wait instead.",
    )
    retries: int = Field(
        0,
        ge=0,  # 0: no RetryStrategy sent (the model's minimum attempts, 1, is api_request_limits')
        le=number_range(_TRAINING + "RetryStrategy.MaximumRetryAttempts")[1],
        description="RetryStrategy.MaximumRetryAttempts (0 = no retries).",
    )
    queue: Annotated[Queue | None, BeforeValidator(_queue_by_name)] = Field(
        None,
        description="Wait for capacity in an AWS Batch job queue (a name, or {name, priority, "
        "share, quota_share, preemption, retries, timeout, tags}) instead of creating the "
        "training job directly.",
    )
    fallback: list[Fallback] = Field(
        default_factory=list,
        description="Failover chain: ordered alternatives (instance_type, instance_count, "
        "region, on_demand) that `submit --wait` moves to when a job fails for lack of "
        "capacity (CapacityError, InsufficientCapacityError) or quota; never on a code failure.",
    )


# The config's ``distribution``: one model per registered strategy (strategies/registry.py),
# told apart by ``strategy``; statically, what every strategy's model offers.
if TYPE_CHECKING:
    Distribution: TypeAlias = DistributionSettings
else:
    Distribution = registry.distribution_union()


class FileSystem(Strict):
    type: Literal["FSxLustre", "EFS"] = Field(description="FSxLustre or EFS.")
    id: str = Field(description="File system id, e.g. fs-0123456789abcdef0.")
    path: str = Field(
        description="Directory path on the file system (FSx: starts with mount name)."
    )
    access_mode: Literal["ro", "rw"] = Field("ro", description="ro or rw.")


class Channel(ChannelGroups, Strict):
    """One input channel: an S3 (or file://) URI, or a file system. A bare string is a URI."""

    uri: str | None = Field(None, description="s3://bucket/prefix/ (or file:// for local runs).")
    file_system: FileSystem | None = Field(None, description="FSx for Lustre or EFS input.")
    distribution: Literal["sharded", "replicated"] = Field(
        "replicated",
        description="sharded (ShardedByS3Key: each host ~1/n of the objects) or replicated "
        "(FullyReplicated); SageMaker's names are accepted too.",
    )
    content_type: str | None = Field(None, description="MIME type, e.g. text/csv.")
    input_mode: Literal["File", "FastFile", "Pipe"] | None = Field(
        None,
        description="This channel's input mode (TrainingInput(input_mode=...)): sent when set, "
        "even when it equals the job's input_mode, as the SDK sends it; unset, the channel "
        "takes the job's. S3 channels only (the SDK's FileSystemInput has none).",
    )
    compression: Literal["Gzip"] | None = Field(
        None, description="Gzip: the channel's data is gzip-compressed (Pipe mode)."
    )
    record_wrapping: Literal["RecordIO"] | None = Field(
        None, description="RecordIO: wrap each record (Pipe mode)."
    )
    shuffle_seed: int | None = Field(
        None, description="Shuffle the S3 objects with this seed (ShuffleConfig)."
    )

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        return {"uri": data} if isinstance(data, str) else data

    @field_validator("distribution", mode="before")
    @classmethod
    def _sagemaker_names(cls, value: Any) -> Any:
        if isinstance(value, str):
            return _DATA_DISTRIBUTIONS.get(value.lower(), value)
        return value

    @model_validator(mode="after")
    def _one_source(self) -> Channel:
        if (self.uri is None) == (self.file_system is None):
            raise ValueError("give exactly one of uri or file_system")
        if self.file_system is not None and self.input_mode is not None:
            raise ValueError(
                "input_mode: a file_system channel has none of its own (the SDK's "
                "FileSystemInput sends none); set the job's input_mode instead"
            )
        return self


class Checkpoint(Strict):
    s3_uri: str = Field(description="S3 prefix SageMaker syncs the checkpoint dir with.")
    local_path: str | None = Field(
        None,
        description="Checkpoint dir in the container (default: the service's, /opt/ml/checkpoints;"
        " sent only when set, as the SDK does).",
    )


class Metric(Strict):
    name: str = Field(description="Metric name, e.g. train:loss.")
    regex: str = Field(description="Regex with one group, matched against the job's log lines.")


class Network(Strict):
    subnets: list[str] = Field(default_factory=list, description="VPC subnet ids.")
    security_group_ids: list[str] = Field(default_factory=list, description="VPC security groups.")
    isolation: bool = Field(False, description="Network isolation (no outbound network).")
    encrypt_inter_container_traffic: bool = Field(
        False, description="Encrypt traffic between hosts (slower distributed training)."
    )


class Kms(Strict):
    volume_key_id: str | None = Field(None, description="KMS key for the training volume.")
    output_key_id: str | None = Field(None, description="KMS key for the model artifacts.")


class LocalRun(Strict):
    hosts: int | None = Field(
        None, ge=1, le=16, description="Emulated hosts (default: min(instance_count, 2))."
    )
    processes_per_host: int = Field(1, ge=1, le=64, description="Processes per emulated host.")
    inputs: dict[str, str] = Field(
        default_factory=dict, description="Channel -> local path (or s3://) replacing its URI."
    )
    hyperparameters: dict[str, Any] = Field(
        default_factory=dict, description="Merged over hyperparameters for quick local runs."
    )
    framework: Literal["installed", "match"] = Field(
        "installed",
        description="installed: run this venv's framework (a warning when its major.minor is "
        "not framework_version's); match: install framework_version's major.minor from the "
        "package index into a cached overlay (XGBoost, TensorFlow; not PyTorch).",
    )
    software: Literal["image", "machine"] = Field(
        "image",
        description="image: the job imports what its framework image holds (its definition's "
        "packages and their dependencies), not the rest of this venv (a PyTorch job cannot import "
        "TensorFlow); machine: everything this venv has. A custom image_uri is run as machine.",
    )
    sandbox: Literal["auto", "namespace", "off"] = Field(
        "auto",
        description="auto: each host's processes in a user + mount namespace where /opt/ml is "
        "that host's tree and nothing outside the run folder is writable, where this machine "
        "allows one (else as off, with a warning for literal /opt/ml paths); namespace: refuse "
        "to run without one; off: no namespace, SM_* paths point into the run folder.",
    )


class LaunchConfig(Strict):
    """A SageMaker training job, as one YAML file."""

    extends: str | None = Field(
        None, description="Base config to deep-merge under this one (path relative to this file)."
    )
    name: str = Field(
        pattern=naming.JOB_NAME_PATTERN,
        max_length=naming.MAX_JOB_NAME,
        description="Base job name: letters, digits, '-'; the tool adds a timestamp (the base is "
        "shortened like the SDK's name_from_base when both would exceed 63 characters).",
    )
    job_name: str | None = Field(
        None,
        pattern=naming.JOB_NAME_PATTERN,
        max_length=naming.MAX_JOB_NAME,
        description="Exact training job name (as the SDK's fit(job_name=...)); default: name + "
        "timestamp.",
    )
    framework: Literal["pytorch", "xgboost", "tensorflow", "huggingface"] = Field(
        description="pytorch, xgboost, tensorflow or huggingface (the SDK's HuggingFace "
        "estimator: transformers_version with pytorch_version or tensorflow_version)."
    )
    entry_point: str | None = Field(
        None,
        description="Script relative to source_dir; for xgboost, omit it to use the built-in "
        "algorithm.",
    )
    source_dir: str | None = Field(
        None,
        description="Code directory, relative to this file (default: this file's folder, as the "
        "SDK looks beside its script; a shipped script's name not found there means "
        "sagelaunch's entry points).",
    )
    dependencies: list[str] = Field(
        default_factory=list,
        description="Extra files or folders (relative to this file) uploaded with the code, at "
        "the bundle's top level under their own names, as the SDK's dependencies=[...].",
    )
    respect_gitignore: bool = Field(
        True,
        description="false: .gitignore files do not shape the code bundle (.sagelaunchignore "
        "and the credentials never uploaded still do).",
    )
    sdk: Literal["v2", "v3"] = Field(
        "v2",
        description="The SDK that launches the job: v2 (Estimator, the default) or v3 "
        "(ModelTrainer: its hyperparameter encoding under local, a .tar.gz source_dir allowed).",
    )
    framework_version: str | None = Field(
        None,
        description='Framework version, e.g. pytorch "2.2.0" or "2.2", xgboost "1.7-1" or '
        '"latest": any version or alias the installed SDK lists. Optional with image_uri.',
    )
    transformers_version: str | None = Field(
        None,
        description="framework huggingface: the Transformers version of the Hugging Face image, "
        'e.g. "4.36.0" or "4.36" (any the installed SDK\'s huggingface.json lists).',
    )
    pytorch_version: str | None = Field(
        None,
        description="framework huggingface: the image's PyTorch version for that Transformers "
        'version, e.g. "2.1.0" (full or short, as transformers_version is).',
    )
    tensorflow_version: str | None = Field(
        None,
        description="framework huggingface: the image's TensorFlow version instead of "
        'pytorch_version, e.g. "2.6.3".',
    )
    py_version: str | None = Field(
        None, description="Python version of the image, e.g. py310 (default: from the version)."
    )
    image_uri: str | None = Field(None, description="Training image override.")
    model_dir: str | Literal[False] | None = Field(
        None,
        description="TensorFlow: the estimator's model_dir, passed to the script as --model_dir "
        "(default: the SDK's s3://OUTPUT_PATH/JOB_NAME/model, /opt/ml/model under MPI; false: "
        "none).",
    )
    input_mode: Literal["File", "FastFile", "Pipe"] = Field(
        "File", description="The job's default input mode (channels may override it)."
    )
    role: str | None = Field(
        None, description="IAM role ARN for the job (default: $SAGELAUNCH_ROLE)."
    )
    region: str | None = Field(None, description="AWS region (default: --region, $AWS_REGION).")
    compute: Compute = Field(description="Instances, volume, stopping condition, spot.")
    distribution: Distribution = Field(
        default_factory=registry.default_distribution,  # none when the key is absent
        description="Distributed training launcher; `strategy` picks which keys apply.",
    )
    hyperparameters: dict[str, Any] = Field(
        default_factory=dict, description="Passed to the entry point as --key value."
    )
    inputs: dict[str, Channel] = Field(
        default_factory=dict, description="Input channels by name (train, validation, ...)."
    )
    checkpoint: Checkpoint | None = Field(None, description="Checkpoint sync with S3.")
    output_path: str | None = Field(None, description="S3 prefix for model artifacts.")
    code_location: str | None = Field(
        None, description="S3 prefix for the code bundle (default: under output_path)."
    )
    output_compression: bool = Field(True, description="false disables output compression.")
    environment: dict[str, str] = Field(
        default_factory=dict,
        description="Environment variables in the container; a value ${env:NAME} is read from "
        "$NAME when planning (keeps secrets out of the config).",
    )
    tags: dict[str, str] = Field(default_factory=dict, description="Tags on the training job.")
    metrics: list[Metric] | None = Field(
        None, description="Metric definitions (default: ones matching our entry points' logs)."
    )
    metrics_time_series: bool | Literal["sdk-default", "unsent"] = Field(
        "sdk-default",
        description="EnableSageMakerMetricsTimeSeries: sdk-default (the SDK turns it on for "
        "PyTorch >= 1.3 and TensorFlow >= 1.15 given by framework_version), true, false, or "
        "unsent (no field in the request).",
    )
    profiler: ProfilerSetting = Field(
        True,
        description="SageMaker profiler: true (SDK default), false, or {rules, interval_ms, "
        "s3_output_path}.",
    )
    debugger: DebuggerSetting = Field(
        True,
        description="SageMaker debugger hook: true (SDK default), false, or {rules, hook}.",
    )
    tensorboard: TensorBoard | None = Field(
        None, description="TensorBoard output: {s3_uri, local_path}."
    )
    experiment: Experiment | None = Field(
        None,
        description="SageMaker Experiments: {name, trial, trial_component_display_name, "
        "run_name} (fit(experiment_config=...)).",
    )
    remote_debug: bool = Field(False, description="Allow remote debugging into the container.")
    infra_check: bool = Field(False, description="Run SageMaker's infrastructure health check.")
    session_tag_chaining: bool = Field(
        False, description="Chain the role's session tags into the job (SessionChainingConfig)."
    )
    network: Network = Field(default_factory=Network, description="VPC and traffic settings.")
    kms: Kms = Field(default_factory=Kms, description="KMS keys.")
    local: LocalRun = Field(
        default_factory=LocalRun, description="Settings used only by `sagelaunch local`."
    )
    sweep: Sweep | None = Field(
        None, description="`sagelaunch sweep`: one job per combination of swept config keys."
    )
    tuning: Tuning | None = Field(
        None, description="`sagelaunch tune`: SageMaker automatic model tuning of this job."
    )

    @model_validator(mode="before")
    @classmethod
    def _groups(cls, data: Any) -> Any:
        return derive_compute(derive_from_preferences(data))

    @field_validator("environment", "tags", mode="before")
    @classmethod
    def _stringify(cls, value: Any) -> Any:
        # YAML turns `true` and `1` into bool/int; the API takes strings.
        if isinstance(value, dict):
            return {k: _yaml_scalar_text(v) for k, v in value.items()}
        return value

    @model_validator(mode="after")
    def _version_or_image(self) -> LaunchConfig:
        # The SDK's estimators need a framework version unless an image is given (XGBoost's
        # script-mode estimator always does).
        needs_version = self.image_uri is None or (
            self.framework == "xgboost" and self.entry_point is not None
        )
        if self.framework == "huggingface":  # its versions: checks/rules/huggingface.py
            needs_version = False
        if needs_version and not self.framework_version:
            raise ValueError(
                "framework_version is required" + ("" if self.image_uri else " (or give image_uri)")
            )
        return self

    @property
    def is_builtin_algorithm(self) -> bool:
        return self.framework == "xgboost" and self.entry_point is None

    @property
    def base_framework(self) -> str:
        """The framework the image runs: a Hugging Face job's PyTorch or TensorFlow."""
        if self.framework != "huggingface":
            return self.framework
        return "tensorflow" if self.tensorflow_version else "pytorch"

    @property
    def base_framework_version(self) -> str | None:
        """That framework's version (a Hugging Face job's pytorch_version or tensorflow_version),
        as the SDK's HuggingFace estimator checks its distribution against it."""
        if self.framework != "huggingface":
            return self.framework_version
        return self.tensorflow_version or self.pytorch_version


def _yaml_scalar_text(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return value


@contextmanager
def registered(strategy: Strategy) -> Iterator[Strategy]:
    """``strategy`` registered, and the config model rebuilt with it, until the block ends (a
    test's toy strategy; the built-in ones register with the registry, before this model is
    built). Here, above the registry, so the registry never imports the model."""
    registry.register(strategy)
    rebuild_distribution()
    try:
        yield strategy
    finally:
        registry.unregister(strategy.name)
        rebuild_distribution()


def rebuild_distribution() -> None:
    """Rebuild the ``distribution`` field from the registry (registry.registered: a strategy
    registered after this module was imported, as a test's toy one)."""
    from pydantic.fields import FieldInfo

    fields = LaunchConfig.__pydantic_fields__
    old = fields["distribution"]
    again = Field(default_factory=old.default_factory, description=old.description)
    fields["distribution"] = FieldInfo.from_annotated_attribute(
        registry.distribution_union(), again
    )
    LaunchConfig.model_rebuild(force=True)

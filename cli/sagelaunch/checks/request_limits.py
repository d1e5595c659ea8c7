"""The service's limits on what a launch config writes into CreateTrainingJob and
CreateHyperParameterTuningJob, located in the config: lengths and patterns of strings, ranges of
numbers, the number of members of lists and maps (catalog.api_limits reads them from botocore's
model, as data).

botocore checks none of them client-side; the service refuses the whole request
(ValidationException) for any one, so each is an error. `validate` sees the config, which is a
lower bound of the request (the SDK adds its own `sagemaker_*` hyperparameters and JSON-encodes
string values); `plan` checks the maps of the request itself, and names what the SDK added.

Every limit of the two requests is accounted for here (tests/config/test_api_limits.py holds
it): checked by `CHECKS` below, checked by a named rule of its own (`ELSEWHERE`), the same limit
as a CreateTrainingJob field the tuning job copies (`twin`), or out of a launch config's reach
(`UNREACHABLE`, with the reason).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sagelaunch.catalog.api_limits import (
    NUMBERS,
    Limit,
    MapLimits,
    limit,
    map_limits,
    map_violations,
    matches,
)
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.errors import Problem
from sagelaunch.hyperparameters import as_text, encode

if TYPE_CHECKING:
    from sagelaunch.config.model import LaunchConfig

MAPS = {"HyperParameters": "hyperparameters", "Environment": "environment"}  # request: config


def config_problems(loaded: LoadedConfig) -> Iterator[Problem]:
    """What the config alone breaks (the model is read only for a config that sets a map)."""
    for member, key in MAPS.items():
        written: dict[str, Any] = getattr(loaded.config, key)
        if not written:
            continue
        limits = map_limits(member)
        if len(written) > limits.entries:
            note = (
                " and the SDK adds its own sagemaker_* ones" if member == "HyperParameters" else ""
            )
            message = (
                f"{_too_many(limits, len(written))}{note}; move the rest into a file in source_dir"
            )
            yield loaded.problem((key,), message)
        sent = {str(name): as_text(value) for name, value in written.items()}
        for name, message in map_violations(limits, sent):
            yield loaded.problem((key, name), message)


def request_problems(loaded: LoadedConfig, request: Mapping[str, Any]) -> list[Problem]:
    """What the planned request breaks: its counts include the SDK's own entries."""
    found = []
    for member, key in MAPS.items():
        sent: dict[str, str] = request.get(member) or {}
        if not sent:
            continue
        limits = map_limits(member)
        added = sorted(set(sent) - set(getattr(loaded.config, key)))
        if len(sent) > limits.entries:
            note = f": {len(sent) - len(added)} from the config, {len(added)} the SDK adds"
            note += f" ({', '.join(added)})" if added else ""
            found.append(loaded.problem((key,), _too_many(limits, len(sent)) + note))
        for name, message in map_violations(limits, sent):
            where = (key, name) if name not in added else (key,)
            found.append(
                loaded.problem(
                    where, message if name not in added else f"{name} (the SDK's): {message}"
                )
            )
    return found


def _too_many(limits: MapLimits, count: int) -> str:
    return (
        f"{count} {limits.member} entries: CreateTrainingJob takes at most {limits.entries} "
        "(the service refuses the job)"
    )


# --- Every other string, list and map limit a launch config reaches ---

KeyPath = tuple[Any, ...]
Found = Iterator[tuple[KeyPath, Any]]  # (where the config writes it, the value as sent)
Where = Callable[["LaunchConfig"], Found]

TRAINING = "CreateTrainingJob."
TUNING = "CreateHyperParameterTuningJob."


def _get(value: Any, keys: KeyPath) -> Any:
    """``value``'s attribute, map entry or list element at each of ``keys`` in turn (None when
    one is unset, or the setting is a bare true/false such as `debugger: true`)."""
    for key in keys:
        if value is None or isinstance(value, bool):
            return None
        if isinstance(value, Mapping):
            value = value.get(key)
        elif isinstance(value, list):
            value = value[key] if isinstance(key, int) and key < len(value) else None
        else:
            value = getattr(value, key, None)
    return None if isinstance(value, bool) else value


def _members(collection: Any) -> list[tuple[Any, Any]]:
    if isinstance(collection, Mapping):
        return list(collection.items())
    if isinstance(collection, list):
        return list(enumerate(collection))
    return []


def at(*keys: Any) -> Where:
    """The value at ``keys``, when set."""

    def found(config: LaunchConfig) -> Found:
        value = _get(config, keys)
        if value is not None:
            yield keys, value

    return found


def each(collection: KeyPath, *inner: Any) -> Where:
    """Each member (a map's value, a list's element) of the collection at ``collection``, then
    its ``inner`` value, when set."""

    def found(config: LaunchConfig) -> Found:
        for key, item in _members(_get(config, collection)):
            value = _get(item, inner)
            if value is not None:
                yield (*collection, key, *inner), value

    return found


def each_of_each(collection: KeyPath, inner: Any) -> Where:
    """Each member of the list at ``inner`` of each member of ``collection``."""

    def found(config: LaunchConfig) -> Found:
        for key, item in _members(_get(config, collection)):
            for index, value in _members(_get(item, (inner,))):
                yield (*collection, key, inner, index), value

    return found


def _maps(config: LaunchConfig, collection: KeyPath, inner: KeyPath, nested: bool) -> Found:
    """The map at ``collection``, or (``nested``) the map at ``inner`` of each of its members."""
    found = _get(config, collection)
    if not nested:
        yield collection, found
        return
    for key, item in _members(found):
        yield (*collection, key, *inner), _get(item, inner)


def keys_of(collection: KeyPath, *inner: Any, nested: bool = False) -> Where:
    """Each key of the map at ``collection`` (``nested``: of the map at ``inner`` of each of its
    members), located at the key."""

    def found(config: LaunchConfig) -> Found:
        for where, mapping in _maps(config, collection, inner, nested):
            if isinstance(mapping, Mapping):
                for key in mapping:
                    yield (*where, key), str(key)

    return found


def values_of(collection: KeyPath, *inner: Any, nested: bool = False) -> Where:
    """Each value of those maps, located at its key."""

    def found(config: LaunchConfig) -> Found:
        for where, mapping in _maps(config, collection, inner, nested):
            if isinstance(mapping, Mapping):
                for key, value in mapping.items():
                    if value is not None:
                        yield (*where, key), value

    return found


def s3_inputs(config: LaunchConfig) -> Found:
    """The channels' S3 URIs (file:// ones are for local runs, never sent)."""
    for name, channel in config.inputs.items():
        if channel.uri and not channel.uri.startswith("file://"):
            yield ("inputs", name, "uri"), channel.uri


def max_wait(config: LaunchConfig) -> Found:
    """StoppingCondition.MaxWaitTimeInSeconds: spot.max_wait, or the on-demand compute.max_wait."""
    compute = config.compute
    if compute.spot is not None:
        yield ("compute", "spot", "max_wait"), compute.spot.max_wait
    elif compute.max_wait is not None:
        yield ("compute", "max_wait"), compute.max_wait


def retries(config: LaunchConfig) -> Found:
    """RetryStrategy.MaximumRetryAttempts, sent only for retries > 0."""
    if config.compute.retries:
        yield ("compute", "retries"), config.compute.retries


def ranges(kind: str) -> Where:
    """The names of the tuning ranges of one kind (the request lists each kind apart)."""

    def found(config: LaunchConfig) -> Found:
        names = [name for name, _ in _ranges(config, kind)]
        if names:
            yield ("tuning", "ranges"), names

    return found


def range_names(kind: str) -> Where:
    def found(config: LaunchConfig) -> Found:
        for name, _ in _ranges(config, kind):
            yield ("tuning", "ranges", name), name

    return found


def range_bounds(kind: str, bound: str) -> Where:
    """A numeric range's bound as the SDK sends it: ``str()`` of the number."""

    def found(config: LaunchConfig) -> Found:
        for name, spec in _ranges(config, kind):
            yield ("tuning", "ranges", name, bound), str(getattr(spec, bound))

    return found


def categorical_values(config: LaunchConfig) -> Found:
    for name, spec in _ranges(config, "categorical"):
        yield ("tuning", "ranges", name, "values"), spec.values


def categorical_value(config: LaunchConfig) -> Found:
    """Each value as the SDK sends it: text, JSON-encoded for a framework's script (the
    tuner's ``as_json_range``), as it is for a built-in algorithm."""
    for name, spec in _ranges(config, "categorical"):
        for index, value in enumerate(spec.values):
            sent = str(value) if config.is_builtin_algorithm else encode(str(value))
            yield ("tuning", "ranges", name, "values", index), sent


def _ranges(config: LaunchConfig, kind: str) -> list[tuple[str, Any]]:
    from sagelaunch.config.sweep import CategoricalRange, ContinuousRange, IntegerRange

    if config.tuning is None:
        return []
    types = {
        "integer": IntegerRange,
        "continuous": ContinuousRange,
        "categorical": CategoricalRange,
    }
    return [(n, r) for n, r in config.tuning.ranges.items() if isinstance(r, types[kind])]


def when_tuned(where: Where) -> Where:
    """``where``, for a config with a `tuning:` block (what only the tuning request carries)."""

    def found(config: LaunchConfig) -> Found:
        if config.tuning is not None:
            yield from where(config)

    return found


@dataclass(frozen=True)
class Check:
    """One limit of the model (``path``), against where the config writes it."""

    path: str  # the request member (catalog.api_limits)
    noun: str  # one value, as the message names it ("tag key"); a list's or map's members
    where: Where
    pattern: bool = True  # False: a rule of its own checks the pattern, with its own message
    unit: str = ""  # a number's, as the message writes it (" s", " GB")
    fix: str = ""  # what the user likely meant, after the refusal


RANGE_KINDS = {
    "integer": "IntegerParameterRanges",
    "continuous": "ContinuousParameterRanges",
    "categorical": "CategoricalParameterRanges",
}
_RANGES = "HyperParameterTuningJobConfig.ParameterRanges."
_COLLECTIONS = ("debugger", "hook", "collections")
_RULES = ("debugger", "rules")

# A plan's name where its ARN belongs is the likely slip: `capacity reserve` is given the name.
PLAN_ARN_FIX = "write the plan's ARN, not its name: `sagelaunch capacity describe NAME` prints it"

CHECKS: tuple[Check, ...] = (
    Check(TRAINING + "Tags", "tags", at("tags")),
    Check(TRAINING + "Tags[].Key", "tag key", keys_of(("tags",))),
    Check(TRAINING + "Tags[].Value", "tag value", values_of(("tags",))),
    Check(TRAINING + "AlgorithmSpecification.TrainingImage", "image URI", at("image_uri")),
    Check(TRAINING + "AlgorithmSpecification.MetricDefinitions", "metrics", at("metrics")),
    Check(
        TRAINING + "AlgorithmSpecification.MetricDefinitions[].Name",
        "metric name",
        each(("metrics",), "name"),
    ),
    Check(
        TRAINING + "AlgorithmSpecification.MetricDefinitions[].Regex",
        "metric regex",
        each(("metrics",), "regex"),
    ),
    Check(TRAINING + "RoleArn", "role ARN", at("role"), pattern=False),
    Check(TRAINING + "InputDataConfig", "input channels", at("inputs")),
    Check(
        TRAINING + "InputDataConfig[].DataSource.S3DataSource.S3Uri",
        "S3 URI",
        s3_inputs,
        pattern=False,
    ),
    Check(
        TRAINING + "InputDataConfig[].ContentType",
        "content type",
        each(("inputs",), "content_type"),
    ),
    Check(
        TRAINING + "InputDataConfig[].DataSource.FileSystemDataSource.FileSystemId",
        "file system id",
        each(("inputs",), "file_system", "id"),
    ),
    Check(
        TRAINING + "InputDataConfig[].DataSource.FileSystemDataSource.DirectoryPath",
        "file system path",
        each(("inputs",), "file_system", "path"),
    ),
    Check(TRAINING + "OutputDataConfig.KmsKeyId", "KMS key id", at("kms", "output_key_id")),
    Check(TRAINING + "OutputDataConfig.S3OutputPath", "S3 URI", at("output_path"), pattern=False),
    Check(TRAINING + "ResourceConfig.VolumeKmsKeyId", "KMS key id", at("kms", "volume_key_id")),
    Check(
        TRAINING + "ResourceConfig.TrainingPlanArn",
        "training plan ARN",
        at("compute", "training_plan"),
        fix=PLAN_ARN_FIX,
    ),
    Check(
        TRAINING + "ResourceConfig.InstancePreferences",
        "instance preferences",
        at("compute", "instance_preferences"),
    ),
    Check(
        TRAINING + "ResourceConfig.InstancePreferences[].InstanceCount",
        "instance count",
        each(("compute", "instance_preferences"), "instance_count"),
    ),
    Check(
        TRAINING + "ResourceConfig.InstancePreferences[].TrainingPlanArns",
        "training plans",
        each(("compute", "instance_preferences"), "training_plans"),
    ),
    Check(
        TRAINING + "ResourceConfig.InstancePreferences[].TrainingPlanArns[]",
        "training plan ARN",
        each_of_each(("compute", "instance_preferences"), "training_plans"),
        fix=PLAN_ARN_FIX,
    ),
    Check(
        TRAINING + "ResourceConfig.InstancePlacementConfig.PlacementSpecifications",
        "placement specifications",
        at("compute", "placement", "PlacementSpecifications"),
    ),
    Check(
        TRAINING + "ResourceConfig.InstancePlacementConfig.PlacementSpecifications[].UltraServerId",
        "UltraServer id",
        each(("compute", "placement", "PlacementSpecifications"), "UltraServerId"),
    ),
    Check(
        TRAINING + "ResourceConfig.InstanceCount", "instance count", at("compute", "instance_count")
    ),
    Check(
        TRAINING + "ResourceConfig.InstanceGroups[].InstanceCount",
        "instance count",
        each(("compute", "groups"), "instance_count"),
    ),
    Check(
        TRAINING + "ResourceConfig.InstancePlacementConfig.PlacementSpecifications[].InstanceCount",
        "instance count",
        each(("compute", "placement", "PlacementSpecifications"), "InstanceCount"),
    ),
    Check(
        TRAINING + "ResourceConfig.VolumeSizeInGB",
        "volume",
        at("compute", "volume_size_gb"),
        unit=" GB",
    ),
    Check(
        TRAINING + "ResourceConfig.KeepAlivePeriodInSeconds",
        "keep-alive",
        at("compute", "keep_alive"),
        unit=" s",
    ),
    Check(
        TRAINING + "StoppingCondition.MaxRuntimeInSeconds",
        "max_run",
        at("compute", "max_run"),
        unit=" s",
    ),
    Check(TRAINING + "StoppingCondition.MaxWaitTimeInSeconds", "max_wait", max_wait, unit=" s"),
    Check(
        TRAINING + "StoppingCondition.MaxPendingTimeInSeconds",
        "max_pending",
        at("compute", "max_pending"),
        unit=" s",
    ),
    Check(TRAINING + "RetryStrategy.MaximumRetryAttempts", "retry count", retries),
    Check(TRAINING + "VpcConfig.Subnets", "subnets", at("network", "subnets")),
    Check(TRAINING + "VpcConfig.Subnets[]", "subnet id", each(("network", "subnets"))),
    Check(
        TRAINING + "VpcConfig.SecurityGroupIds",
        "security groups",
        at("network", "security_group_ids"),
    ),
    Check(
        TRAINING + "VpcConfig.SecurityGroupIds[]",
        "security group id",
        each(("network", "security_group_ids")),
    ),
    Check(TRAINING + "CheckpointConfig.S3Uri", "S3 URI", at("checkpoint", "s3_uri"), pattern=False),
    Check(TRAINING + "CheckpointConfig.LocalPath", "path", at("checkpoint", "local_path")),
    Check(
        TRAINING + "DebugHookConfig.S3OutputPath",
        "S3 URI",
        at("debugger", "hook", "s3_output_path"),
    ),
    Check(TRAINING + "DebugHookConfig.CollectionConfigurations", "collections", at(*_COLLECTIONS)),
    Check(
        TRAINING + "DebugHookConfig.CollectionConfigurations[].CollectionName",
        "collection name",
        keys_of(_COLLECTIONS),
    ),
    Check(
        TRAINING + "DebugHookConfig.CollectionConfigurations[].CollectionParameters",
        "collection parameters",
        each(_COLLECTIONS),
    ),
    Check(
        TRAINING + "DebugHookConfig.CollectionConfigurations[].CollectionParameters{key}",
        "parameter name",
        keys_of(_COLLECTIONS, nested=True),
    ),
    Check(
        TRAINING + "DebugHookConfig.CollectionConfigurations[].CollectionParameters{value}",
        "parameter value",
        values_of(_COLLECTIONS, nested=True),
    ),
    Check(
        TRAINING + "DebugRuleConfigurations[].RuleParameters",
        "rule parameters",
        each(_RULES, "parameters"),
    ),
    Check(
        TRAINING + "DebugRuleConfigurations[].RuleParameters{key}",
        "parameter name",
        keys_of(_RULES, "parameters", nested=True),
    ),
    Check(
        TRAINING + "DebugRuleConfigurations[].RuleParameters{value}",
        "parameter value",
        values_of(_RULES, "parameters", nested=True),
    ),
    Check(
        TRAINING + "ProfilerRuleConfigurations[].RuleParameters",
        "rule parameters",
        each(("profiler", "rules"), "parameters"),
    ),
    Check(
        TRAINING + "ProfilerRuleConfigurations[].RuleParameters{key}",
        "parameter name",
        keys_of(("profiler", "rules"), "parameters", nested=True),
    ),
    Check(
        TRAINING + "ProfilerRuleConfigurations[].RuleParameters{value}",
        "parameter value",
        values_of(("profiler", "rules"), "parameters", nested=True),
    ),
    Check(TRAINING + "TensorBoardOutputConfig.S3OutputPath", "S3 URI", at("tensorboard", "s3_uri")),
    Check(TRAINING + "TensorBoardOutputConfig.LocalPath", "path", at("tensorboard", "local_path")),
    Check(TRAINING + "ExperimentConfig.ExperimentName", "name", at("experiment", "name")),
    Check(TRAINING + "ExperimentConfig.TrialName", "name", at("experiment", "trial")),
    Check(
        TRAINING + "ExperimentConfig.TrialComponentDisplayName",
        "name",
        at("experiment", "trial_component_display_name"),
    ),
    Check(TRAINING + "ExperimentConfig.RunName", "name", at("experiment", "run_name")),
    Check(TRAINING + "ProfilerConfig.S3OutputPath", "S3 URI", at("profiler", "s3_output_path")),
    Check(
        TUNING + "HyperParameterTuningJobConfig.ResourceLimits.MaxNumberOfTrainingJobs",
        "training job count",
        at("tuning", "max_jobs"),
    ),
    Check(
        TUNING + "HyperParameterTuningJobConfig.ResourceLimits.MaxParallelTrainingJobs",
        "parallel training job count",
        at("tuning", "max_parallel_jobs"),
    ),
    Check(
        TUNING + "HyperParameterTuningJobConfig.ResourceLimits.MaxRuntimeInSeconds",
        "tuning max_runtime",
        at("tuning", "max_runtime"),
        unit=" s",
    ),
    Check(TUNING + "HyperParameterTuningJobConfig.RandomSeed", "seed", at("tuning", "random_seed")),
    Check(
        TUNING + "HyperParameterTuningJobConfig.StrategyConfig.HyperbandStrategyConfig.MinResource",
        "minimum resource",
        at("tuning", "hyperband", "min_resource"),
    ),
    Check(
        TUNING + "HyperParameterTuningJobConfig.StrategyConfig.HyperbandStrategyConfig.MaxResource",
        "maximum resource",
        at("tuning", "hyperband", "max_resource"),
    ),
    Check(
        TUNING + "HyperParameterTuningJobConfig.HyperParameterTuningJobObjective.MetricName",
        "metric name",
        at("tuning", "objective", "metric"),
    ),
    *(
        Check(TUNING + _RANGES + member, f"{kind} ranges", ranges(kind))
        for kind, member in RANGE_KINDS.items()
    ),
    *(
        Check(TUNING + _RANGES + member + "[].Name", "hyperparameter name", range_names(kind))
        for kind, member in RANGE_KINDS.items()
    ),
    *(
        Check(
            TUNING + _RANGES + RANGE_KINDS[kind] + f"[].{bound.capitalize()}Value",
            "bound",
            range_bounds(kind, bound),
        )
        for kind in ("integer", "continuous")
        for bound in ("min", "max")
    ),
    Check(TUNING + _RANGES + "CategoricalParameterRanges[].Values", "values", categorical_values),
    Check(TUNING + _RANGES + "CategoricalParameterRanges[].Values[]", "value", categorical_value),
    Check(
        TUNING + "TrainingJobDefinition.Environment",
        "environment variables",
        when_tuned(at("environment")),
    ),
    Check(
        TUNING + "WarmStartConfig.ParentHyperParameterTuningJobs[].HyperParameterTuningJobName",
        "tuning job name",
        each(("tuning", "warm_start", "parents")),
    ),
)


# Limits checked by a rule of their own (rule name), or by the config model ("model: ...", where
# tests/config/test_api_limits.py holds the model's numbers and patterns to botocore's).
ELSEWHERE: dict[str, str] = {
    TRAINING + "TrainingJobName": "model: name, job_name (naming.JOB_NAME_PATTERN)",
    TRAINING + "HyperParameters": "api_map_limits",
    TRAINING + "HyperParameters{key}": "api_map_limits",
    TRAINING + "HyperParameters{value}": "api_map_limits",
    TRAINING + "Environment": "api_map_limits",
    TRAINING + "Environment{key}": "api_map_limits",
    TRAINING + "Environment{value}": "api_map_limits",
    TRAINING + "InputDataConfig[].ChannelName": "channels_well_formed",
    TRAINING + "InputDataConfig[].DataSource.S3DataSource.InstanceGroupNames": "channel_groups",
    TRAINING + "InputDataConfig[].DataSource.S3DataSource.InstanceGroupNames[]": "channel_groups",
    TRAINING + "ResourceConfig.InstanceGroups": "instance_group_count",
    TRAINING + "ResourceConfig.InstanceGroups[].InstanceGroupName": "instance_group_names",
    TRAINING + "DebugRuleConfigurations": "rule_count",
    TRAINING + "ProfilerRuleConfigurations": "rule_count",
    TRAINING + "DebugRuleConfigurations[].RuleConfigurationName": "builtin_rule_names",
    TRAINING + "ProfilerRuleConfigurations[].RuleConfigurationName": "builtin_rule_names",
    TUNING + "HyperParameterTuningJobName": "model: tuning.job_name (exact), tuning.base_name "
    "(cut to 20 characters and timestamped, naming.tuning_job_name)",
    TUNING + "WarmStartConfig.ParentHyperParameterTuningJobs": "model: tuning.warm_start.parents",
}

_SDK_RULE = "set by the SDK for a built-in rule (its evaluator image, its output under the job's)"
_MULTI = (
    "sent only by a tuner of several estimators; a config tunes one, whose ranges and objective "
    "go in HyperParameterTuningJobConfig"
)

# Request members no launch-config key reaches (with their members), and why.
UNREACHABLE: dict[str, str] = {
    TRAINING + "AlgorithmSpecification.AlgorithmName": (
        "no config key: sagelaunch sends an image (TrainingImage), never an algorithm resource"
    ),
    TRAINING + "AlgorithmSpecification.ContainerEntrypoint": "no config key sets it",
    TRAINING + "AlgorithmSpecification.ContainerArguments": "no config key sets it",
    TRAINING + "AlgorithmSpecification.TrainingImageConfig": (
        "no config key: images come from ECR, not a private registry"
    ),
    TRAINING + "InputDataConfig[].DataSource.S3DataSource.AttributeNames": (
        "no config key (augmented manifest channels are not offered)"
    ),
    TRAINING + "InputDataConfig[].DataSource.S3DataSource.HubAccessConfig": "no config key",
    TRAINING + "InputDataConfig[].DataSource.DatasetSource": "no config key",
    TRAINING + "ResourceConfig.SelectedInstanceCount": (
        "the service's answer (DescribeTrainingJob), not something a request sets"
    ),
    TRAINING + "DebugRuleConfigurations[].VolumeSizeInGB": _SDK_RULE,
    TRAINING + "ProfilerRuleConfigurations[].VolumeSizeInGB": _SDK_RULE,
    TUNING + "HyperParameterTuningJobConfig.TuningJobCompletionCriteria": (
        "no config key (completion criteria are not offered)"
    ),
    TRAINING + "DebugHookConfig.LocalPath": "no config key: the SDK's default path is sent",
    TRAINING + "DebugHookConfig.HookParameters": (
        "no config key: the hook is set through its collections (debugger.hook.collections)"
    ),
    TRAINING + "DebugRuleConfigurations[].LocalPath": _SDK_RULE,
    TRAINING + "DebugRuleConfigurations[].S3OutputPath": _SDK_RULE,
    TRAINING + "DebugRuleConfigurations[].RuleEvaluatorImage": _SDK_RULE,
    TRAINING + "ProfilerRuleConfigurations[].LocalPath": _SDK_RULE,
    TRAINING + "ProfilerRuleConfigurations[].S3OutputPath": _SDK_RULE,
    TRAINING + "ProfilerRuleConfigurations[].RuleEvaluatorImage": _SDK_RULE,
    TRAINING + "ProfilerConfig.ProfilingParameters": (
        "no config key: the SDK's framework profiling is not offered (profiler.interval_ms is "
        "ProfilingIntervalInMilliseconds)"
    ),
    TRAINING + "ServerlessJobConfig": "no SDK v2 estimator argument builds it",
    TRAINING + "MlflowConfig": "no SDK v2 estimator argument builds it",
    TRAINING + "ModelPackageConfig": "no SDK v2 estimator argument builds it",
    TUNING + "HyperParameterTuningJobConfig.ParameterRanges.AutoParameters": (
        "no config key (automatic ranges, Autotune, are not offered)"
    ),
    TUNING + "TrainingJobDefinition.DefinitionName": _MULTI,
    TUNING + "TrainingJobDefinition.TuningObjective": _MULTI,
    TUNING + "TrainingJobDefinition.HyperParameterRanges": _MULTI,
    TUNING + "TrainingJobDefinitions": _MULTI,
    TUNING + "TrainingJobDefinition.HyperParameterTuningResourceConfig.InstanceConfigs": (
        "no config key: the tuner's instance_configs (several instance types) are not offered"
    ),
}


def twin(path: str) -> str | None:
    """The CreateTrainingJob member that a tuning-request member carries the same config key
    into (tags; the training job definition's fields), when there is one."""
    if not path.startswith(TUNING):
        return None
    rest = path.removeprefix(TUNING)
    if rest.startswith("Tags"):
        return TRAINING + rest
    if not rest.startswith("TrainingJobDefinition."):
        return None
    rest = rest.removeprefix("TrainingJobDefinition.")
    for tuning_name, training_name in (
        ("StaticHyperParameters", "HyperParameters"),
        ("HyperParameterTuningResourceConfig.", "ResourceConfig."),
    ):
        if rest.startswith(tuning_name):
            rest = training_name + rest.removeprefix(tuning_name)
    return TRAINING + rest


def classify(path: str) -> tuple[str, str]:
    """How a limit of the model is accounted for: ("checked", noun), ("elsewhere", rule),
    ("unreachable", why), ("twin", the CreateTrainingJob path), or ("unaccounted", "")."""
    for check in CHECKS:
        if check.path == path:
            return "checked", check.noun
    if path in ELSEWHERE:
        return "elsewhere", ELSEWHERE[path]
    for prefix, why in UNREACHABLE.items():
        if path == prefix or path.startswith((prefix + ".", prefix + "[", prefix + "{")):
            return "unreachable", why
    found = twin(path)
    if found is not None:
        return "twin", found
    return "unaccounted", ""


_REFUSED = {
    "CreateTrainingJob": "the service refuses the job",
    "CreateHyperParameterTuningJob": "the service refuses the tuning job",
}
# "Do not use aws:, AWS:, or any upper or lowercase combination of such as a prefix for either
# keys or values as it is reserved for AWS use" (AWS General Reference, "Tagging AWS resources",
# https://docs.aws.amazon.com/tag-editor/latest/userguide/tagging.html); the model's pattern
# does not say it. Keys only: SageMaker refuses such a key (its tags API: "aws:" keys are
# reserved for system tags), and a value is not known to be refused.
RESERVED_TAG_PREFIX = "aws:"


def limit_problems(loaded: LoadedConfig) -> Iterator[Problem]:
    """What the config writes beyond the service's limits (`CHECKS`), and tag keys in the
    reserved ``aws:`` namespace; each an error, at the key that writes it."""
    config = loaded.config
    for check in CHECKS:
        for where, value in check.where(config):
            message = violation(limit(check.path), check, value)
            if message is not None:
                yield loaded.problem(where, message)
    for key in config.tags:
        if str(key).lower().startswith(RESERVED_TAG_PREFIX):
            yield loaded.problem(
                ("tags", key),
                f"a tag key beginning with {str(key)[:4]!r}: AWS reserves the aws: prefix, in any "
                "case, for its own tags (Tagging AWS resources, AWS General Reference); "
                "the service refuses the job",
            )


def violation(found: Limit, check: Check, value: Any) -> str | None:
    """What the service refuses in ``value`` (the first thing), or None; with the check's fix."""
    refused = _refusal(found, check, value)
    return f"{refused}; {check.fix}" if refused and check.fix else refused


def _refusal(found: Limit, check: Check, value: Any) -> str | None:
    cite = f"({found.operation} {found.member}: {_REFUSED[found.operation]})"
    if found.type in NUMBERS:
        shown = f"{_a(check.noun)} of {value}{check.unit}"
        if value < found.min:
            return f"{shown}: at least {found.min}{check.unit} {cite}"
        if found.max is not None and value > found.max:
            return f"{shown}: at most {found.max}{check.unit} {cite}"
        return None
    if found.type in ("list", "map"):
        count = len(value)
        if found.max is not None and count > found.max:
            return f"{count} {check.noun}: at most {found.max} {cite}"
        if 0 < count < found.min:  # none at all: the SDK leaves the member out
            return f"{count} {check.noun}: at least {found.min} {cite}"
        return None
    text = str(value)
    if found.max is not None and len(text) > found.max:
        return f"{_a(check.noun)} of {len(text)} characters: at most {found.max} {cite}"
    if len(text) < found.min:
        return f"{_a(check.noun)} of {len(text)} characters: at least {found.min} {cite}"
    if check.pattern and found.pattern and not matches(found, text):
        shown = text if len(text) <= 60 else text[:57] + "..."
        return (
            f"{_a(check.noun)} must match the API's pattern {found.pattern}: {shown!r} does "
            f"not {cite}"
        )
    return None


def _a(noun: str) -> str:
    return ("an " if noun[0].lower() in "aeiou" or noun.startswith("S3") else "a ") + noun

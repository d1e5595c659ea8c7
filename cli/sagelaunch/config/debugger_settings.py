"""`debugger:`, `profiler:`, `tensorboard:`, `experiment:` — the SageMaker Debugger, Profiler,
TensorBoard and Experiments settings of a training job.

Rule names are the installed SDK's ``sagemaker.debugger.rule_configs`` (the
``smdebug_rulesconfig`` package the SDK re-exports under that name). `validate` must not import
the SDK, so the names are read from that package's ``__init__`` as data (``ast``): the functions
it takes from ``debugger_rules`` are Debugger rules (``Rule.sagemaker``), the classes it takes
from ``profiler_rules`` are Profiler rules (``ProfilerRule.sagemaker``). tests/sdk checks the two
lists against the imported module.
"""

from __future__ import annotations

import ast
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    Discriminator,
    Field,
    Tag,
    WithJsonSchema,
    field_validator,
)

from sagelaunch.strict import Strict

RULES_PACKAGE = "smdebug_rulesconfig"
# ProfilerConfig.ProfilingIntervalInMilliseconds: the values the API documents.
PROFILING_INTERVALS = (100, 200, 500, 1000, 5000, 60000)


def _text(value: Any) -> Any:
    """The API takes rule and collection parameters as strings; YAML gives numbers and bools."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return value


class DebuggerRule(Strict):
    """A built-in Debugger rule: ``Rule.sagemaker(rule_configs.<name>(), rule_parameters=...)``."""

    name: str = Field(
        description="A Debugger rule of sagemaker.debugger.rule_configs, e.g. "
        "loss_not_decreasing, vanishing_gradient, create_xgboost_report."
    )
    parameters: dict[str, str] = Field(
        default_factory=dict,
        description="RuleParameters (strings, as the API takes them; numbers become text).",
    )

    @field_validator("parameters", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> Any:
        return {k: _text(v) for k, v in value.items()} if isinstance(value, dict) else value


class ProfilerRule(Strict):
    """A built-in Profiler rule: ``ProfilerRule.sagemaker(rule_configs.<Name>(**parameters))``."""

    name: str = Field(
        description="A Profiler rule of sagemaker.debugger.rule_configs, e.g. "
        "ProfilerReport, CPUBottleneck, LowGPUUtilization."
    )
    parameters: dict[str, Annotated[Any, WithJsonSchema({"type": "number"})]] = Field(
        default_factory=dict,
        description="Constructor arguments of the rule class (numbers), e.g. for ProfilerReport "
        "CPUBottleneck_threshold: 90.",
    )

    @field_validator("parameters")
    @classmethod
    def _numbers(cls, value: dict[str, Any]) -> dict[str, Any]:
        wrong = [
            k for k, v in value.items() if isinstance(v, bool) or not isinstance(v, (int, float))
        ]
        if wrong:
            raise ValueError(
                f"Profiler rule parameters are the rule class's constructor arguments and must be "
                f"numbers: {', '.join(f'{k}={value[k]!r}' for k in wrong)}"
            )
        return value


def _rule_entry(value: Any) -> Any:
    """A bare rule name is shorthand for {name: NAME}."""
    return {"name": value} if isinstance(value, str) else value


class Collection(Strict):
    """Hook collection settings: ``CollectionConfig(name, parameters)``."""

    parameters: dict[str, str] = Field(
        default_factory=dict, description="e.g. save_interval: 100 (written as text)."
    )


class DebuggerHook(Strict):
    """``DebuggerHookConfig(s3_output_path, collection_configs=[...])``."""

    s3_output_path: str | None = Field(
        None, description="Where the hook writes tensors (default: the job's output_path)."
    )
    collections: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="Collection name -> parameters, e.g. losses: {save_interval: 10}.",
    )

    @field_validator("collections", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        return {
            name: {k: _text(v) for k, v in (params or {}).items()}
            if isinstance(params, dict) or params is None
            else params
            for name, params in value.items()
        }


class Debugger(Strict):
    """SageMaker Debugger: built-in rules and the tensor hook."""

    rules: list[DebuggerRule] = Field(
        default_factory=list, description="Built-in Debugger rules (a name, or {name, parameters})."
    )
    hook: DebuggerHook | None = Field(None, description="The debugger hook configuration.")

    @field_validator("rules", mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        return [_rule_entry(v) for v in value] if isinstance(value, list) else value


class Profiler(Strict):
    """SageMaker Profiler: system monitoring and built-in Profiler rules."""

    rules: list[ProfilerRule] = Field(
        default_factory=list, description="Built-in Profiler rules (a name, or {name, parameters})."
    )
    interval_ms: Literal[100, 200, 500, 1000, 5000, 60000] | None = Field(
        None, description="System monitor interval in ms (100, 200, 500, 1000, 5000 or 60000)."
    )
    s3_output_path: str | None = Field(
        None, description="Where profiling data goes (default: the job's output_path)."
    )

    @field_validator("rules", mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        return [_rule_entry(v) for v in value] if isinstance(value, list) else value


class TensorBoard(Strict):
    """``TensorBoardOutputConfig(s3_output_path, container_local_output_path)``."""

    s3_uri: str = Field(description="S3 prefix SageMaker uploads TensorBoard output to.")
    local_path: str | None = Field(
        None, description="TensorBoard dir in the container (default /opt/ml/output/tensorboard)."
    )


class Experiment(Strict):
    """``fit(experiment_config={...})``: SageMaker Experiments."""

    name: str | None = Field(None, description="ExperimentName (an existing experiment).")
    trial: str | None = Field(None, description="TrialName.")
    trial_component_display_name: str | None = Field(None, description="TrialComponentDisplayName.")
    run_name: str | None = Field(None, description="RunName.")


@cache
def builtin_rules() -> dict[str, list[str]]:
    """{"debugger": [...], "profiler": [...]}: the names ``rule_configs`` exports."""
    from sagelaunch.catalog.sdk_data import package_dir

    source = (package_dir(RULES_PACKAGE) / "__init__.py").read_text(encoding="utf-8")
    found: dict[str, list[str]] = {"debugger": [], "profiler": []}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and node.module:
            kind = _rule_kind(node.module)
            if kind:
                found[kind] += [alias.asname or alias.name for alias in node.names]
    return found


def _rule_kind(module: str) -> str | None:
    if module.startswith("debugger_rules.builtin_rules"):
        return "debugger"
    if module.startswith("profiler_rules.rules"):
        return "profiler"
    return None


@cache
def debugger_rule_functions() -> dict[str, str]:
    """RuleConfigurationName -> the rule_configs function that builds it (``LossNotDecreasing``
    -> ``loss_not_decreasing``), read from the rules package's source."""
    from sagelaunch.catalog.sdk_data import package_dir

    path = package_dir(RULES_PACKAGE) / "debugger_rules" / "builtin_rules.py"
    found: dict[str, str] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for call in ast.walk(node):
            if isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.Constant):
                found[str(call.args[0].value)] = node.name
                break
    return found


@cache
def debugger_rule_configs() -> dict[str, Any]:
    """The base configuration of every Debugger rule (the package's ruleConfigs.json)."""
    import json

    from sagelaunch.catalog.sdk_data import package_dir

    folder = package_dir(RULES_PACKAGE) / "debugger_rules" / "rule_config_jsons"
    return dict(json.loads((folder / "ruleConfigs.json").read_text(encoding="utf-8")))


# `true | false | {...}`: a discriminated union, so an error names the branch the value took
# (a mapping is judged as settings, a scalar as the switch) and the loader drops the tag.
SWITCH, SETTINGS = "switch", "settings"


def _switch_or_settings(value: Any) -> str:
    return SETTINGS if isinstance(value, (dict, BaseModel)) else SWITCH


DebuggerSetting = Annotated[
    Annotated[bool, Tag(SWITCH)] | Annotated[Debugger, Tag(SETTINGS)],
    Discriminator(_switch_or_settings),
]
ProfilerSetting = Annotated[
    Annotated[bool, Tag(SWITCH)] | Annotated[Profiler, Tag(SETTINGS)],
    Discriminator(_switch_or_settings),
]

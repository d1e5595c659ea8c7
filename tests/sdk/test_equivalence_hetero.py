"""Instance groups, Debugger/Profiler rules, TensorBoard and experiments: `plan` sends what the
SDK sends for the same estimator written by hand (captured through botocore's Stubber). The one
deliberate difference, the training group for torchrun, is asserted as exactly that."""

from __future__ import annotations

import json

import yaml
from sagemaker.debugger import (
    CollectionConfig,
    DebuggerHookConfig,
    ProfilerConfig,
    ProfilerRule,
    Rule,
    TensorBoardOutputConfig,
    rule_configs,
)
from sagemaker.inputs import TrainingInput
from sagemaker.instance_group import InstanceGroup
from sagemaker.pytorch import PyTorch

from tests.conftest import EXAMPLES
from tests.golden.regenerate import golden_plan, unordered
from tests.sdk.oracles import PT_METRICS, TEAM, ours

GPT = {"model": "gpt", "n_layer": 12, "n_embd": 768, "n_head": 12, "max_steps": 5000}


def test_heterogeneous_torchrun_adds_only_the_training_group(sdk_request):
    request, code = ours("hetero-c5-p4d")
    data = InstanceGroup("data_group", "ml.c5.9xlarge", 1)
    dnn = InstanceGroup("dnn_group", "ml.p4d.24xlarge", 2)
    expected = sdk_request(
        lambda s: PyTorch(
            entry_point="train_pytorch.py",
            source_dir=code,
            framework_version="2.2.0",
            py_version="py310",
            instance_groups=[data, dnn],
            max_run=86400,
            sagemaker_session=s,
            distribution={"torch_distributed": {"enabled": True}, "instance_groups": [dnn]},
            hyperparameters={**GPT, "batch_size": 16, "data": "channel"},
            metric_definitions=PT_METRICS,
            **TEAM,
        ),
        {
            "train": TrainingInput(
                "s3://sagelaunch-examples/tokens/train/", instance_groups=["data_group"]
            )
        },
    )
    # The SDK drops the training group for torch_distributed; sagelaunch writes it, as the SDK
    # writes it for mpi. Nothing else differs.
    assert "sagemaker_distribution_instance_groups" not in expected["HyperParameters"]
    added = request["HyperParameters"].pop("sagemaker_distribution_instance_groups")
    assert json.loads(added) == ["dnn_group"]
    assert request == expected


def test_heterogeneous_mpi_equals_the_sdk(sdk_request, tmp_path):
    config = {
        "extends": str(EXAMPLES / "bases" / "team.yaml"),
        "name": "hetero-mpi",
        "framework": "pytorch",
        "entry_point": "train_pytorch.py",
        "framework_version": "2.2.0",
        "source_dir": str(EXAMPLES.parent / "tests" / "golden" / "source"),
        "compute": {
            "groups": [
                {"name": "cpu", "instance_type": "ml.c5.xlarge", "instance_count": 2},
                {"name": "gpu", "instance_type": "ml.g5.12xlarge", "instance_count": 2},
            ]
        },
        "distribution": {"strategy": "mpi", "processes_per_host": 4, "groups": ["gpu"]},
        "inputs": {"train": {"uri": "s3://b/train/", "groups": ["cpu", "gpu"]}},
    }
    path = tmp_path / "mpi.yaml"
    path.write_text(yaml.safe_dump(config))
    plan = golden_plan(path)
    cpu = InstanceGroup("cpu", "ml.c5.xlarge", 2)
    gpu = InstanceGroup("gpu", "ml.g5.12xlarge", 2)
    mpi = {"enabled": True, "processes_per_host": 4, "custom_mpi_options": ""}
    expected = sdk_request(
        lambda s: PyTorch(
            entry_point="train_pytorch.py",
            source_dir=plan["upload"]["s3_uri"],
            framework_version="2.2.0",
            py_version="py310",
            instance_groups=[cpu, gpu],
            max_run=86400,
            sagemaker_session=s,
            distribution={"mpi": mpi, "instance_groups": [gpu]},
            hyperparameters={},
            metric_definitions=PT_METRICS,
            **TEAM,
        ),
        {"train": TrainingInput("s3://b/train/", instance_groups=["cpu", "gpu"])},
    )
    assert plan["request"] == expected
    assert not [w for w in plan["warnings"] if w["source"] == "tool"]


def test_profiler_report_debugger_rules_tensorboard_and_experiment(sdk_request):
    request, code = ours("profiler-report")
    team = {**TEAM}
    del team["disable_profiler"], team["debugger_hook_config"]
    expected = sdk_request(
        lambda s: PyTorch(
            entry_point="train_pytorch.py",
            source_dir=code,
            framework_version="2.2.0",
            py_version="py310",
            instance_type="ml.g5.12xlarge",
            instance_count=1,
            max_run=86400,
            sagemaker_session=s,
            distribution={"torch_distributed": {"enabled": True}},
            hyperparameters={"model": "gpt", "batch_size": 8, "max_steps": 2000},
            metric_definitions=PT_METRICS,
            rules=[
                Rule.sagemaker(rule_configs.loss_not_decreasing()),
                Rule.sagemaker(
                    rule_configs.vanishing_gradient(), rule_parameters={"threshold": "0.0001"}
                ),
                ProfilerRule.sagemaker(
                    rule_configs.ProfilerReport(
                        CPUBottleneck_threshold=90, GPUMemoryIncrease_increase=10
                    )
                ),
            ],
            debugger_hook_config=DebuggerHookConfig(
                s3_output_path="s3://sagelaunch-examples/debug/",
                collection_configs=[
                    CollectionConfig("losses", {"save_interval": "10"}),
                    CollectionConfig("gradients", {"save_interval": "100"}),
                ],
            ),
            profiler_config=ProfilerConfig(
                s3_output_path="s3://sagelaunch-examples/profiler/",
                system_monitor_interval_millis=500,
            ),
            tensorboard_output_config=TensorBoardOutputConfig(
                "s3://sagelaunch-examples/tensorboard/", "/opt/ml/output/tensorboard"
            ),
            **team,
        ),
        None,
        experiment_config={
            "ExperimentName": "gpt-sizing",
            "TrialName": "profiled-baseline",
            "RunName": "run-1",
        },
    )
    # The SDK gathers the hook's collections in a set: their order is the set's, not the config's.
    assert unordered(request) == unordered(expected)
    assert len(request["DebugHookConfig"]["CollectionConfigurations"]) >= 2


def test_rule_names_read_as_data_are_the_sdks(monkeypatch):
    """validate reads rule_configs' names without importing the SDK: the same names it exports."""
    from smdebug_rulesconfig.debugger_rules import builtin_rules as debugger_module
    from smdebug_rulesconfig.profiler_rules import rules as profiler_module

    from sagelaunch.config.debugger_settings import builtin_rules

    names = builtin_rules()
    for name in names["debugger"]:
        assert getattr(rule_configs, name).__module__ == debugger_module.__name__
    for name in names["profiler"]:
        assert getattr(rule_configs, name).__module__ == profiler_module.__name__
    exported = {
        n
        for n in dir(rule_configs)
        if getattr(getattr(rule_configs, n), "__module__", "")
        in {debugger_module.__name__, profiler_module.__name__}
        and not n.startswith("_")
        and n != "ProfilerRuleBase"
    }
    assert exported >= set(names["debugger"]) | set(names["profiler"])
    assert "loss_not_decreasing" in names["debugger"] and "ProfilerReport" in names["profiler"]

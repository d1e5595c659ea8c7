"""`recommend --zero-stage`: DeepSpeed's own estimators are the oracle for the model states."""

from __future__ import annotations

import json

import pytest
import yaml

from sagelaunch.checks.validation import validate_file
from sagelaunch.recommend import zero
from tests.recommend.test_command import recommend_json

# (stage, offload, DeepSpeed's keyword arguments)
CASES = [
    (2, "none", {"cpu_offload": False}),
    (2, "optimizer", {"cpu_offload": True}),
    (3, "none", {"cpu_offload": False, "cpu_offload_params": False}),
    (3, "optimizer", {"cpu_offload": True, "cpu_offload_params": False}),
    (3, "all", {"cpu_offload": True, "cpu_offload_params": True}),
]


def deepspeed_estimate(stage: int, params: int, largest: int, per_node: int, nodes: int, **kw):
    """(cpu bytes per node, gpu bytes) from DeepSpeed itself."""
    if stage == 2:
        from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs

        return estimate_zero2_model_states_mem_needs(params, per_node, nodes, **kw)
    from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs

    cpu, gpu, _ = estimate_zero3_model_states_mem_needs(params, largest, per_node, nodes, **kw)
    return cpu, gpu


@pytest.mark.parametrize(("stage", "offload", "kwargs"), CASES)
@pytest.mark.parametrize(("params", "nodes"), [(1_300_000_000, 1), (70_000_000_000, 4)])
def test_model_states_match_deepspeeds_estimator(stage, offload, kwargs, params, nodes):
    largest = 32_000 * 8192
    plan = zero.Zero(stage, offload)
    ours_gpu = sum(zero.model_states_bytes(params, largest, plan, 8, nodes))
    ours_cpu = zero.host_bytes(params, largest, plan, 8, nodes)
    cpu, gpu = deepspeed_estimate(stage, params, largest, 8, nodes, **kwargs)
    assert ours_gpu == pytest.approx(gpu, rel=0.05)
    assert ours_cpu == pytest.approx(cpu, rel=0.05)


@pytest.mark.parametrize(("stage", "offload", "kwargs"), CASES)
def test_recommend_reports_deepspeeds_model_states_per_gpu(cli, stage, offload, kwargs):
    args = ["--params", "13B", "--layers", "40", "--hidden", "5120"]
    args += ["--instance-type", "ml.p4d.24xlarge", "--instance-count", "2"]
    body = recommend_json(cli, *args, "--zero-stage", str(stage), "--offload", offload)
    assert body["parallelism"] == "deepspeed" and body["instance_count"] == 2
    gb = body["per_device_gb"]
    states = (gb["weights"] + gb["gradients"] + gb["optimizer"]) * 1e9
    largest = max(32_000 * 5120, 4 * 5120 * 5120)
    cpu, gpu = deepspeed_estimate(stage, 13_000_000_000, largest, 8, 2, **kwargs)
    assert states == pytest.approx(gpu, rel=0.05)
    assert body["host_memory_gb_per_instance"] * 1e9 == pytest.approx(cpu, rel=0.05)
    section = body["deepspeed_config"]["zero_optimization"]
    assert section["stage"] == stage
    assert ("offload_optimizer" in section) == (offload != "none")
    assert ("offload_param" in section) == (offload == "all")


def test_zero3_needs_less_gpu_memory_than_zero2_and_offload_less_again(cli):
    args = ["--params", "7B", "--instance-type", "ml.p4d.24xlarge", "--instance-count", "1"]
    totals = [
        recommend_json(cli, *args, "--zero-stage", stage, "--offload", off)["per_device_gb"][
            "total"
        ]
        for stage, off in (("1", "none"), ("2", "none"), ("3", "none"), ("3", "optimizer"))
    ]
    assert totals == sorted(totals, reverse=True) and len(set(totals)) == 4


def test_emitted_configs_run_deepspeed(cli, tmp_path):
    launch, ds = tmp_path / "job.yaml", tmp_path / "ds_zero3.json"
    args = ["--params", "7B", "--instance-type", "ml.p4d.24xlarge", "--zero-stage", "3"]
    result = cli("recommend", *args, "--offload", "optimizer", "--emit-config", str(launch),
                 "--emit-deepspeed-config", str(ds))  # fmt: skip
    assert result.exit_code == 0, result.output
    config = yaml.safe_load(launch.read_text())
    assert config["distribution"] == {"strategy": "torchrun"}
    hp = config["hyperparameters"]
    assert hp["zero_stage"] == 3 and hp["offload_optimizer"] == "cpu" and hp["parallel"] == "ddp"
    report = validate_file(launch)
    assert report.ok, [p.message for p in report.errors]
    written = json.loads(ds.read_text())
    assert written["zero_optimization"]["offload_optimizer"]["device"] == "cpu"
    assert written["gradient_accumulation_steps"] == "auto"


def test_offload_without_a_zero_stage_is_a_usage_error(cli):
    result = cli("recommend", "--params", "7B", "--instance-type", "ml.p4d.24xlarge",
                 "--offload", "all")  # fmt: skip
    assert result.exit_code == 2 and "--zero-stage" in result.output

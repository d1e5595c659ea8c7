"""`plan` shows recommend's memory and step time for the GPT that `recommend --emit-config`
wrote, in the table view only; the plan JSON (the request) is unchanged."""

from __future__ import annotations

import dataclasses
import json
import sys

import pytest
import yaml

from tests.conftest import ENTRYPOINTS
from tests.recommend.test_command import emit, recommend_json

ROLE = "arn:aws:iam::111122223333:role/SagelaunchDemo"
# two instances: FSDP over 16 GPUs (on one, the entry point's TP 4 with sequence parallelism)
ARGS = ("--params", "13B", "--instance-type", "ml.p4d.24xlarge", "--instance-count", "2")


@pytest.fixture
def offline(monkeypatch):
    monkeypatch.setenv("SAGELAUNCH_ROLE", ROLE)
    monkeypatch.setenv("AWS_REGION", "us-east-1")


def test_plan_shows_the_emitted_layouts_memory_and_step(cli, tmp_path, offline):
    path, _ = emit(cli, tmp_path, *ARGS)
    chosen = recommend_json(cli, *ARGS)
    result = cli("plan", path)
    assert result.exit_code == 0, result.output
    (line,) = [text for text in result.stdout.splitlines() if text.startswith("memory ")]
    total = float(line.split()[1])
    # the emitted shape has 12.9B parameters where --params said 13B
    assert total == pytest.approx(chosen["per_device_gb"]["total"], abs=0.3)
    assert (
        "of 42.5 GB per GPU" in line
    )  # 39.59 GiB, what CUDA reports for an A100 40 GB and "tokens per dollar" in line


def test_plan_json_carries_no_recommend_figures(cli, tmp_path, offline):
    path, _ = emit(cli, tmp_path, *ARGS)
    result = cli("plan", path, "--output", "json")
    assert result.exit_code == 0, result.output
    assert "tokens_per_dollar" not in json.dumps(json.loads(result.stdout))


def test_no_figures_without_the_whole_shape(cli, tmp_path, offline):
    path, config = emit(cli, tmp_path, *ARGS)
    text = path.read_text().replace(
        f"  vocab_size: {config['hyperparameters']['vocab_size']}\n", ""
    )
    path.write_text(text)
    result = cli("plan", path)
    assert result.exit_code == 0, result.output
    assert not [text for text in result.stdout.splitlines() if text.startswith("memory ")]


# --- every layout kind recommend emits, read back by plan ----------------------------------------


def _gpt_params(layers: int, hidden: int, seq_len: int = 2048, vocab: int = 32000) -> str:
    """The entry point's GPT with this shape, exactly (what plan counts from n_layer, n_embd,
    seq_len and vocab_size), so that recommend plans the very model the config trains."""
    return str(layers * (12 * hidden**2 + 13 * hidden) + (2 * vocab + seq_len + 2) * hidden)


def _shape(layers: int, hidden: int, seq_len: int = 2048) -> tuple[str, ...]:
    return (
        *("--params", _gpt_params(layers, hidden, seq_len), "--layers", str(layers)),
        *("--hidden", str(hidden), "--seq-len", str(seq_len)),
    )


# (what recommend should choose, its arguments); ml.p4d.24xlarge: 8 A100 40 GB per instance
ROUND_TRIPS = {
    "ddp": _shape(12, 768),
    "fsdp": (*_shape(32, 4096), "--instance-count", "1"),
    "fsdp-hybrid": (*_shape(32, 4096), "--instance-count", "2"),
    "smp-hybrid": (*_shape(40, 5120), "--instance-count", "4"),
    "torchrun-tp-sp": (*_shape(40, 5120), "--instance-count", "1"),
    "torchrun-tp": (*_shape(40, 5120, seq_len=2047), "--instance-count", "1"),
    "torchrun-tp-sp-checkpointed": (
        *_shape(80, 8192),
        *("--instance-count", "4", "--activation-checkpointing", "--micro-batch", "2"),
    ),
}


def _kind(chosen: dict) -> str:
    sp = "-sp" if chosen["sequence_parallel"] else ""
    if chosen["parallelism"] == "torchrun" and chosen["pipeline_parallel_degree"] > 1:
        return f"torchrun-pp{sp}"
    if chosen["parallelism"] == "torchrun":
        return f"torchrun-tp{sp}"
    hybrid = "-hybrid" if "hybrid" in chosen["layout"] else ""
    return chosen["parallelism"] + hybrid


def _plan_figures(cli, path, instance_type: str, hosts: int) -> tuple[dict, str]:
    """recommend's figures as plan computes them from the request it would send, and the line
    plan prints."""
    from sagelaunch.recommend.from_hyperparameters import job_figures

    result = cli("plan", path, "--output", "json")
    assert result.exit_code == 0, result.output
    request = json.loads(result.stdout)["request"]
    found = job_figures(request["HyperParameters"], instance_type, hosts)
    assert found is not None
    shown = cli("plan", path)
    assert shown.exit_code == 0, shown.output
    (line,) = [text for text in shown.stdout.splitlines() if text.startswith("memory ")]
    return found.memory.as_json(), line


@pytest.mark.parametrize("kind", ROUND_TRIPS)
def test_plan_reads_back_what_recommend_planned(cli, tmp_path, offline, kind):
    """recommend --emit-config, then plan on the config: the same GB per GPU, category by
    category, for each layout kind recommend writes."""
    args = (*ROUND_TRIPS[kind], "--instance-type", "ml.p4d.24xlarge")
    chosen = recommend_json(cli, *args)
    assert _kind(chosen) == (kind.removesuffix("-checkpointed")), chosen["layout"]
    path, _ = emit(cli, tmp_path, *args)
    figures, line = _plan_figures(cli, path, "ml.p4d.24xlarge", chosen["instance_count"])
    assert figures == chosen["per_device_gb"]
    assert line.startswith(f"memory {figures['total']:.1f} of ")


def _entry_point_accepts(hyperparameters: dict, world: int) -> None:
    """train_pytorch.py's own checks of its flags and mesh (torch_config: the standard library
    only), as the job would run them; a UsageError names what it refuses."""
    folder = str(ENTRYPOINTS / "pytorch")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    import torch_config

    cfg = torch_config.TrainConfig(**hyperparameters)
    layout = torch_config.resolve_layout(cfg, world, hybrid_shard=8)
    assert layout.world_size == world


@pytest.mark.parametrize(
    "family",
    [
        "pp-tp8",  # pipeline stages × TP: chosen where nothing else fits on its instances
        "zero1-tp4",  # TP beside ZeRO-1: bf16 weights, the fp32 master in the optimizer
    ],
)
def test_plan_reads_back_a_native_layout(tmp_path, offline, cli, family):
    """recommend's own TP layouts, written as --emit-config writes them (the vocabulary-parallel
    loss, ZeRO-1, a pipeline's micro-batches), then read back by plan."""
    from sagelaunch.recommend import layouts, planner
    from sagelaunch.recommend.emit import launch_config
    from sagelaunch.recommend.workload import Shape, Workload

    work = Workload(params=int(_gpt_params(40, 5120)), shape=Shape(40, 5120, 40, estimated=False))
    rec = planner.recommend(work, layouts.device("ml.p4d.24xlarge"), 2)
    picked = next(c for c in rec.alternatives if c.family == family and c.fits)
    assert picked.sharding.sequence_parallel and picked.sharding.loss_parallel
    pinned = dataclasses.replace(rec, chosen=picked)
    path = tmp_path / f"{family}.yaml"
    path.write_text(launch_config(pinned, "sagelaunch recommend ..."), encoding="utf-8")
    hyperparameters = yaml.safe_load(path.read_text(encoding="utf-8"))["hyperparameters"]
    assert hyperparameters["loss_parallel"] is True
    assert hyperparameters.get("zero1", False) == (picked.sharding.optimizer_over > 1)
    _entry_point_accepts(hyperparameters, world=16)
    figures, line = _plan_figures(cli, path, "ml.p4d.24xlarge", 2)
    assert figures == picked.memory.as_json()
    assert line.startswith(f"memory {figures['total']:.1f} of ")


def test_an_emitted_compile_flag_enters_plans_step_time(cli, tmp_path, offline):
    """--compile becomes the entry point's `compile: true`, which plan reads as recommend's
    compiled kernels: the same tokens per second as recommend showed, faster than eager."""

    def plan_tokens_per_s(path) -> float:
        result = cli("plan", path)
        assert result.exit_code == 0, result.output
        (line,) = [text for text in result.stdout.splitlines() if text.startswith("memory ")]
        return float(line.split(" tokens/s")[0].split()[-1].replace(",", ""))

    compiled = recommend_json(cli, *ARGS, "--compile")
    path, config = emit(cli, tmp_path, *ARGS, "--compile")
    assert config["hyperparameters"]["compile"] is True
    with_compile = plan_tokens_per_s(path)
    # the emitted shape has 12.9B parameters where --params said 13B
    assert with_compile == pytest.approx(compiled["step_time"]["tokens_per_s"], rel=0.03)
    path, _ = emit(cli, tmp_path, *ARGS)
    assert plan_tokens_per_s(path) < 0.95 * with_compile

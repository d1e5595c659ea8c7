"""`sagelaunch recommend` through the Typer app: JSON contract, emitted configs, errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from sagelaunch.checks.validation import validate_file
from tests.aws.price_list import priced

KEYS = {
    "parallelism",
    "instance_type",
    "instance_count",
    "per_device_gb",
    "device_memory_gb",
    "fits",
    "alternatives",
    "reason",
}
GB_KEYS = {"weights", "gradients", "optimizer", "activations", "total"}
HEAVY = {"sagemaker", "boto3", "botocore", "torch", "xgboost", "numpy"}


def recommend_json(cli, *args: str) -> dict:
    result = cli("recommend", *args, "--output", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_json_contract(cli):
    out = recommend_json(cli, "--params", "7B")
    assert set(out) >= KEYS
    assert out["parallelism"] in {"fsdp", "smp"}
    assert (out["instance_type"], out["instance_count"], out["fits"]) == (
        "ml.p4d.24xlarge",
        1,
        True,
    )
    assert out["device_memory_gb"] == 42.51  # 39.59 GiB, what CUDA reports for an A100 40 GB
    gb = out["per_device_gb"]
    assert set(gb) >= GB_KEYS
    parts = sum(value for key, value in gb.items() if key != "total")
    assert gb["total"] == pytest.approx(parts, abs=0.05) and gb["total"] <= 36
    assert out["model"]["states_gb"] == 112.0 and out["model"]["state_bytes_per_param"] == 16
    assert out["alternatives"], "alternatives are listed"
    for alt in out["alternatives"]:
        assert (KEYS - {"alternatives"}) <= set(alt) and "alternatives" not in alt
        assert set(alt["per_device_gb"]) >= GB_KEYS
    assert any(alt["parallelism"] == "ddp" and not alt["fits"] for alt in out["alternatives"])


def test_json_known_points(cli):
    small = recommend_json(cli, "--params", "125M")
    assert (small["parallelism"], small["instance_count"]) == ("ddp", 1)
    big = recommend_json(cli, "--params", "70B")
    assert big["fits"] and big["instance_count"] >= 4
    assert big["tensor_parallel_degree"] > 1


def test_options_reach_the_model(cli):
    base = recommend_json(cli, "--params", "7B", "--instance-count", "2")
    fp32 = recommend_json(cli, "--params", "7B", "--instance-count", "2", "--precision", "fp32")
    ckpt = recommend_json(
        cli, "--params", "7B", "--instance-count", "2", "--activation-checkpointing"
    )
    sgd = recommend_json(cli, "--params", "7B", "--optimizer", "sgd")
    longer = recommend_json(cli, "--params", "7B", "--instance-count", "2", "--seq-len", "4096")
    assert fp32["per_device_gb"]["activations"] > base["per_device_gb"]["activations"]
    assert ckpt["per_device_gb"]["activations"] < base["per_device_gb"]["activations"] / 3
    assert sgd["model"]["states_gb"] == 84.0
    assert longer["per_device_gb"]["activations"] > base["per_device_gb"]["activations"]
    shaped = recommend_json(cli, "--params", "7B", "--layers", "40", "--hidden", "4096")
    assert (shaped["model"]["layers"], shaped["model"]["shape_estimated"]) == (40, False)


def test_table_view(cli):
    result = cli("recommend", "--params", "70B")
    assert result.exit_code == 0, result.output
    assert "recommend torchrun on" in result.stdout and "ml.p4d.24xlarge" in result.stdout
    assert "TP8 SP + shard" in result.stdout  # the entry point's TP with sequence parallelism
    for column in ("parallelism", "weights", "grads", "optim", "activ", "total", "fits?"):
        assert column in result.stdout
    assert "1120.0 GB of states" in result.stdout
    assert "tokens per dollar" in result.stdout
    for column in ("comp", "comm", "mem", "step s", "bound", "tok/s", "Mtok/$"):
        assert column in result.stdout


def test_layouts_ranked_by_tokens_per_dollar_with_memory_by_category(cli, monkeypatch):
    priced(monkeypatch, {("us-east-1", "ml.p5.48xlarge"): "64.0"})  # ships no p5 price
    body = recommend_json(cli, "--params", "70B", "--instance-type", "ml.p5.48xlarge")
    fitting = [alt for alt in body["alternatives"] if alt["fits"]]
    assert len(fitting) >= 3
    per_dollar = [alt["step_time"]["tokens_per_dollar"] for alt in fitting]
    assert per_dollar == sorted(per_dollar, reverse=True)
    for alt in fitting:
        assert set(alt["per_device_gb"]) >= {"weights", "gradients", "optimizer", "activations"}
        assert alt["step_time"]["step_s"] > 0
        total = alt["per_device_gb"]["total"]
        assert alt["margin_gb"] == pytest.approx(alt["device_memory_gb"] - total, abs=0.02)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--params", "7Q"), "not a parameter count"),
        (("--params", "7B", "--instance-type", "ml.p9.48xlarge"), "unknown instance type"),
        (("--params", "7B", "--instance-type", "ml.m5.xlarge"), "no GPU or Trainium"),
    ],
)
def test_usage_errors_exit_2_cleanly(cli, args, message):
    result = cli("recommend", *args)
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output
    assert result.stdout == ""


def emit(cli, tmp_path: Path, *args: str):
    # A sibling entrypoints/ is the default source_dir, as in the repo layout (SPEC §1).
    (tmp_path / "entrypoints").mkdir(exist_ok=True)
    (tmp_path / "entrypoints" / "train_pytorch.py").write_text("print('train')\n")
    target = tmp_path / "configs" / "job.yaml"
    target.parent.mkdir(exist_ok=True)  # --emit-config writes into a folder that exists
    result = cli("recommend", *args, "--emit-config", target, "--force")
    assert result.exit_code == 0, result.output
    return target, yaml.safe_load(target.read_text())


def assert_valid(path: Path) -> None:
    report = validate_file(path)
    assert report.ok, [str(p) for p in report.errors]
    # The one warning: the output path is the starter configs' placeholder bucket, to replace.
    assert [(p.path, "placeholder" in p.message) for p in report.warnings] == [
        ("output_path", True)
    ], [str(p) for p in report.warnings]


def test_emit_fsdp_config_validates(cli, tmp_path):
    path, config = emit(cli, tmp_path, "--params", "7B")
    assert_valid(path)
    assert config["distribution"] == {"strategy": "torchrun"}
    assert config["entry_point"] == "train_pytorch.py"  # its version: assert_valid holds it
    assert config["compute"]["instance_count"] == 1
    assert config["hyperparameters"]["parallel"] == "fsdp"
    assert (config["hyperparameters"]["n_layer"], config["hyperparameters"]["n_embd"]) == (32, 4096)
    assert config["output_path"] == "s3://my-sagemaker-bucket/sagelaunch/"
    assert path.read_text().startswith("# Written by `sagelaunch recommend --params 7B`")


def test_emit_ddp_and_hybrid_configs_validate(cli, tmp_path):
    path, config = emit(cli, tmp_path, "--params", "125M")
    assert_valid(path)
    assert config["hyperparameters"]["parallel"] == "ddp"
    path, config = emit(cli, tmp_path, "--params", "7B", "--instance-count", "4")
    assert_valid(path)
    assert config["hyperparameters"]["sharding"] == "hybrid"


def test_emit_smp_config_validates(cli, tmp_path):
    """13B on 4 p4d: one instance's 8 GPUs are too few to shard over, SMP v2 shards over 16 and
    replicates twice; the entry point takes SMP's shard group under --sharding hybrid."""
    path, config = emit(cli, tmp_path, "--params", "13B", "--instance-count", "4")
    assert_valid(path)
    distribution = config["distribution"]
    assert distribution["strategy"] == "smp" and distribution["smp"]["version"] == 2
    params = distribution["smp"]["parameters"]
    assert (params["hybrid_shard_degree"], params["tensor_parallel_degree"]) == (16, 1)
    hps = config["hyperparameters"]
    assert (hps["parallel"], hps["sharding"]) == ("fsdp", "hybrid")
    assert "tensor_parallel_degree" not in hps


def test_emit_tensor_parallel_with_sequence_parallel(cli, tmp_path):
    """70B on p4d: the entry point's TP 8 with --sequence_parallel, under torchrun."""
    path, config = emit(cli, tmp_path, "--params", "70B")
    assert_valid(path)
    assert config["distribution"] == {"strategy": "torchrun"}
    hps = config["hyperparameters"]
    assert (hps["tensor_parallel_degree"], hps["sequence_parallel"]) == (8, True)
    assert hps["seq_len"] % hps["tensor_parallel_degree"] == 0
    # a sequence TP 8 cannot split evenly: TP without sequence parallelism
    path, config = emit(cli, tmp_path, "--params", "70B", "--seq-len", "2047", "--force")
    assert "sequence_parallel" not in config["hyperparameters"]


def test_emit_trainium_config_validates(cli, tmp_path):
    path, config = emit(cli, tmp_path, "--params", "1.3B", "--instance-type", "ml.trn1.32xlarge")
    assert_valid(path)
    assert config["framework_version"] == "2.1.2"
    assert config["distribution"] == {"strategy": "torchrun"}
    assert config["compute"]["instance_type"] == "ml.trn1.32xlarge"


def test_emit_trainium_pipeline_names_its_stages(cli, tmp_path):
    """A model no TP degree fits on Trainium: the emitted config's comment gives the NxD layout
    to set in the user's script, pipeline_parallel_size included."""
    args = ("--params", "70B", "--instance-type", "ml.trn1.32xlarge", "--instance-count", "32")
    path, _ = emit(cli, tmp_path, *args, "--seq-len", "8192")
    assert_valid(path)
    comment = " ".join(line.lstrip("# ") for line in path.read_text().splitlines() if "#" in line)
    chosen = re.search(r"pipeline (\d+) stages × tensor parallel (\d+)", comment)
    assert chosen, comment
    pp, tp = chosen.groups()
    assert f"tensor_parallel_size={tp}, pipeline_parallel_size={pp}," in comment, comment
    assert "kv_size_multiplier" not in comment  # a GPT shape: as many key/value heads as heads


def test_emit_trainium_names_the_key_value_replicas_its_tp_needs(cli, tmp_path):
    """Llama 3 70B's 8 key/value heads over more TP ranks than that: neuronx-distributed needs
    each replicated (its kv_size_multiplier, the Llama samples' --kv_replicator) until every
    rank holds a whole one, and the emitted comment says how many times."""
    args = ("--model", "llama3-70b", "--instance-type", "ml.trn1.32xlarge")
    path, _ = emit(cli, tmp_path, *args, "--instance-count", "32", "--seq-len", "8192")
    comment = " ".join(line.lstrip("# ") for line in path.read_text().splitlines() if "#" in line)
    tp = int(re.search(r"tensor_parallel_size=(\d+)", comment).group(1))
    assert tp > 8, comment
    assert f"kv_size_multiplier={tp // 8} " in comment, comment


def test_emit_refuses_to_overwrite_without_force(cli, tmp_path):
    target = tmp_path / "job.yaml"
    target.write_text("keep me\n")
    result = cli("recommend", "--params", "7B", "--emit-config", target)
    assert result.exit_code == 2 and "--force" in result.output
    assert target.read_text() == "keep me\n"
    assert cli("recommend", "--params", "7B", "--emit-config", target, "--force").exit_code == 0
    assert "name: llm-7b-fsdp" in target.read_text()


def test_emit_refuses_a_layout_that_does_not_fit(cli, tmp_path):
    target = tmp_path / "job.yaml"
    result = cli("recommend", "--params", "70B", "--instance-count", "1", "--emit-config", target)
    assert result.exit_code == 2 and "does not fit" in result.output
    assert not target.exists()


def test_recommend_imports_no_heavy_sdk():
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "sagelaunch", "recommend", "--params", "7B"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "recommend" in proc.stdout
    lines = [line for line in proc.stderr.splitlines() if line.startswith("import time:")]
    modules = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in lines}
    assert "sagelaunch" in modules
    assert not modules & HEAVY, sorted(modules & HEAVY)


def test_emit_native_tensor_parallel_config_validates(cli, tmp_path):
    path, config = emit(
        cli,
        tmp_path,
        "--params",
        "7B",
        "--instance-type",
        "ml.g5.48xlarge",
        "--instance-count",
        "1",
        "--seq-len",
        "2048",
    )
    assert_valid(path)
    hps = config["hyperparameters"]
    assert hps["tensor_parallel_degree"] > 1 and hps["parallel"] == "fsdp"  # TP × FSDP
    assert config["framework_version"] == "2.8.0"
    assert config["distribution"] == {"strategy": "torchrun"}


def test_activation_offload_enters_the_memory_model_and_the_emitted_config(cli, tmp_path):
    plain = recommend_json(cli, "--params", "13B", "--seq-len", "8192", "--micro-batch", "4")
    offload = recommend_json(
        cli, "--params", "13B", "--seq-len", "8192", "--micro-batch", "4", "--activation-offload"
    )
    assert offload["model"]["activation_offload"] is True
    assert not plain["model"]["activation_offload"]
    assert offload["per_device_gb"]["activations"] < plain["per_device_gb"]["activations"] / 4
    path, config = emit(cli, tmp_path, "--params", "7B", "--activation-offload")
    assert_valid(path)
    assert config["hyperparameters"]["activation_offload"] is True
    assert "--activation-offload" in path.read_text().splitlines()[0]
    _, config = emit(cli, tmp_path, "--params", "7B")
    assert "activation_offload" not in config["hyperparameters"]


def test_named_model_shows_each_term_of_the_step_and_what_dominates(cli):
    body = recommend_json(cli, "--model", "llama3-70b", "--instance-type", "ml.p5.48xlarge")
    assert body["model"]["params"] == 70_553_706_496 and body["model"]["layers"] == 80
    step = body["step_time"]
    for term in ("compute_s", "communication_s", "memory_s", "bubble_s"):
        assert step[term] >= 0
    assert step["dominant"] in {"compute", "communication", "memory", "bubble"}
    assert any(note.startswith("step ") and "dominates" in note for note in body["notes"])


def test_model_config_reads_a_hugging_face_config(cli, tmp_path):
    config = tmp_path / "config.json"
    config.write_text(
        '{"model_type": "llama", "num_hidden_layers": 32, "hidden_size": 4096,'
        ' "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,'
        ' "vocab_size": 128256, "hidden_act": "silu", "tie_word_embeddings": false}'
    )
    body = recommend_json(cli, "--model-config", str(config))
    named = recommend_json(cli, "--model", "llama3-8b")
    assert body["model"]["params"] == named["model"]["params"] == 8_030_261_248


def test_model_config_attention_dropout_counts_under_eager_attention(cli, tmp_path):
    """GPT-2's attn_pdrop: unfused attention keeps its dropout's mask and output besides the
    probabilities (5 bytes a score, not 2); a fused kernel keeps neither, whatever the config."""
    gpt2 = {"model_type": "gpt2", "n_layer": 12, "n_embd": 768, "n_head": 12, "vocab_size": 50257}
    plain, dropped = tmp_path / "plain.json", tmp_path / "dropped.json"
    plain.write_text(json.dumps({**gpt2, "attn_pdrop": 0.0}))
    dropped.write_text(json.dumps({**gpt2, "attn_pdrop": 0.1}))

    def activations(config: Path, *more: str) -> float:
        run = ("--model-config", str(config), "--instance-type", "ml.g5.2xlarge", *more)
        return recommend_json(cli, *run)["per_device_gb"]["activations"]

    assert activations(dropped) == activations(plain)
    assert activations(dropped, "--eager-attention") > activations(plain, "--eager-attention")


def test_one_of_params_model_and_model_config(cli):
    result = cli("recommend", "--params", "7B", "--model", "llama3-8b")
    assert result.exit_code != 0 and "one of --params" in result.output
    result = cli("recommend")
    assert result.exit_code != 0 and "one of --params" in result.output


def test_selective_policy_ops_keeps_what_torchtitans_per_op_policy_keeps(cli):
    """--selective-policy ops (torchtitan's selective_ac_option 'op') keeps about half of what
    the default policy keeps of a Llama block, and says so in the model section; the shared
    options first."""
    run = ("--model", "llama3-8b", "--instance-type", "ml.p5.48xlarge", "--seq-len", "8192")
    run += ("--micro-batch", "2", "--activation-checkpointing", "--selective-checkpointing")
    keeps = recommend_json(cli, *run)
    ops = recommend_json(cli, *run, "--selective-policy", "ops")
    assert (keeps["model"]["selective_checkpointing"], ops["model"]["selective_checkpointing"]) == (
        "activations",
        "ops",
    )
    plain = recommend_json(cli, *run[:6])
    assert plain["model"]["selective_checkpointing"] is None
    # FSDP's activations per GPU (the same at any shard group), where each plan lists FSDP
    fsdp = [
        next(c for c in [body, *body["alternatives"]] if c["layout"].startswith("FSDP full shard"))
        for body in (keeps, ops)
    ]
    assert fsdp[1]["per_device_gb"]["activations"] < 0.7 * fsdp[0]["per_device_gb"]["activations"]


@pytest.mark.parametrize(
    ("options", "hint"),
    [
        (("--selective-policy", "ops"), "add --activation-checkpointing --selective-checkpointing"),
        (("--selective-checkpointing",), "add --activation-checkpointing"),
    ],
)
def test_a_checkpointing_option_without_the_one_it_refines_is_refused(cli, options, hint):
    result = cli("recommend", "--model", "llama3-8b", *options)
    assert result.exit_code == 2
    assert hint in result.output


def test_what_the_emitted_job_cannot_run_is_said_in_it_and_on_stderr(cli, tmp_path):
    """train_pytorch.py trains its own GPT in bf16 or fp32 and checkpoints whole blocks: a plan
    for Llama 3 at fp8 with selective checkpointing emits that GPT, and says what it left out, in
    the config's header and as warnings; --compile is the entry point's own flag and is kept."""
    path, config = emit(
        cli,
        tmp_path,
        *("--model", "llama3-8b", "--instance-type", "ml.p5.48xlarge", "--precision", "fp8"),
        *("--activation-checkpointing", "--selective-checkpointing", "--compile"),
    )
    assert_valid(path)
    text = " ".join(line.lstrip("# ") for line in path.read_text().splitlines() if line[:1] == "#")
    assert (
        "Not in this job (train_pytorch.py has no flag for it): the model's grouped-query" in text
    )
    for left_out in ("SwiGLU", "rotary positions", "fp8 (bf16 instead)", "selective checkpointing"):
        assert left_out in text
    hp = config["hyperparameters"]
    assert (hp["model"], hp["precision"], hp["activation_checkpointing"]) == ("gpt", "bf16", True)
    assert hp["compile"] is True
    result = cli("recommend", "--model", "llama3-8b", "--precision", "fp8", "--emit-config", path,
                 "--force")  # fmt: skip
    assert "warning: not in" in result.stderr and "fp8 (bf16 instead)" in result.stderr
    # a GPT plan emits a job that runs what was planned: nothing said
    path, config = emit(cli, tmp_path, "--params", "7B")
    assert "Not in this job" not in path.read_text() and "compile" not in config["hyperparameters"]


def test_pick_takes_another_layout_of_the_tables_as_the_plan(cli, tmp_path):
    """--pick N: the Nth row of the tables (1: the recommendation) becomes what the output and
    --emit-config describe; here a ZeRO-1 layout beside TP, which the ladder never chooses
    first, emitted as the entry point's flags and named in the config's header."""
    args = ("--model", "llama3-8b", "--instance-type", "ml.p5.48xlarge", "--instance-count", "8")
    args += ("--seq-len", "4096", "--micro-batch", "4", "--grad-accum", "2")
    shown = [recommend_json(cli, *args)] + recommend_json(cli, *args)["alternatives"]
    number = next(
        i
        for i, c in enumerate(shown, 1)
        if c["fits"] and c["pipeline_parallel_degree"] == 1 and "ZeRO-1" in c["layout"]
    )
    assert number > 1
    picked = recommend_json(cli, *args, "--pick", str(number))
    assert picked["layout"] == shown[number - 1]["layout"]
    assert f"picked with --pick {number}" in picked["reason"]
    assert shown[0]["layout"] in [alt["layout"] for alt in picked["alternatives"]]
    path, config = emit(cli, tmp_path, *args, "--pick", str(number))
    hyperparameters = config["hyperparameters"]
    assert hyperparameters["zero1"] is True
    assert hyperparameters["tensor_parallel_degree"] == shown[number - 1]["tensor_parallel_degree"]
    assert hyperparameters["loss_parallel"] is True and hyperparameters["grad_accum"] == 2
    header = " ".join(
        line.removeprefix("# ") for line in path.read_text().splitlines() if line.startswith("#")
    )
    assert f"--pick {number}`" in header  # the invocation the config quotes
    assert_valid(path)
    refused = cli("recommend", *args, "--pick", "99")
    assert refused.exit_code == 2 and f"the tables show {len(shown)} layouts" in refused.output


def test_global_batch_holds_the_sequences_per_step_whatever_the_layout(cli, tmp_path):
    """--global-batch N: every layout runs N sequences a step, each data-parallel rank its share
    as accumulated micro-batches (a pipeline's as its micro-batches), rounded up; the emitted
    config accumulates what the chosen layout needs; with --grad-accum it is refused."""
    args = ("--model", "llama3-70b", "--instance-type", "ml.p5.48xlarge", "--instance-count", "16")
    body = recommend_json(cli, *args, "--global-batch", "1024")
    assert body["model"]["global_batch"] == 1024
    world = 16 * 8
    for layout in [body, *body["alternatives"]]:
        if not layout["fits"]:
            continue
        dp = world // (layout["tensor_parallel_degree"] * layout["pipeline_parallel_degree"])
        step = layout["step_time"]
        assert step["micro_batches"] == -(-1024 // dp), layout["layout"]
        assert step["global_batch"] == dp * step["micro_batches"] >= 1024
    # without it each rank runs one micro-batch (a pipeline two a stage): fewer sequences a step
    plain = recommend_json(cli, *args)
    assert plain["step_time"]["global_batch"] < body["step_time"]["global_batch"]
    _, config = emit(cli, tmp_path, *args, "--global-batch", "1024")
    dp = world // (body["tensor_parallel_degree"] * body["pipeline_parallel_degree"])
    assert config["hyperparameters"]["grad_accum"] == 1024 // dp
    refused = cli("recommend", *args, "--global-batch", "1024", "--grad-accum", "2")
    assert refused.exit_code == 2 and "--global-batch" in refused.output

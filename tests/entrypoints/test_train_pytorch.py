"""train_pytorch.py in one process: outputs, logs, hyperparameter handling, backend fallbacks."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from tests.entrypoints.conftest import TINY_GPT, metrics_at, model_at


def test_single_process_trains_and_writes_outputs(torch_job):
    job = torch_job()
    result = job.run_ok(*TINY_GPT, "--max_steps", "12", "--log_every", "4", "--lr", "3e-3")

    losses = result.steps()
    assert sorted(losses) == [4, 8, 12]
    assert all(math.isfinite(v) for v in losses.values())
    assert losses[12] < losses[4], "the loss should fall on the learnable synthetic data"
    assert "gloo on CPU" in result.stdout

    metrics = job.metrics()
    assert metrics["steps"] == 12
    assert metrics["final_train_loss"] == pytest.approx(losses[12], abs=1e-5)
    assert metrics["world_size"] == 1
    assert metrics["backend"] == "gloo"
    assert metrics["process_group"] is None  # one process needs no group
    assert metrics["tokens_per_sec"] > 0
    assert metrics["tokens_per_sec"] == pytest.approx(metrics["samples_per_sec"] * 16)

    state = job.model()
    assert "tok_emb.weight" in state and state["tok_emb.weight"].shape == (64, 32)
    assert all(t.device.type == "cpu" for t in state.values())
    assert not (job.output_dir / "failure").exists()


def test_model_pt_loads_into_a_fresh_model(train_pytorch_main):
    import torch

    import torch_models

    status, _, root = train_pytorch_main(
        "--model", "mlp", "--n_embd", "16", "--vocab_size", "32", "--max_steps", "2"
    )
    assert status == 0
    model = torch_models.build_model(torch_models.ModelConfig(name="mlp", n_embd=16, vocab_size=32))
    model.load_state_dict(torch.load(root / "model" / "model.pt"))  # strict: keys and shapes match
    assert model(torch.zeros(2, 5, dtype=torch.long)).shape == (2, 5, 32)


def test_fsdp_in_one_process_matches_plain_training(train_pytorch_main, tmp_path):
    import torch

    args = [*TINY_GPT, "--max_steps", "3", "--sharding", "hybrid"]
    assert train_pytorch_main(*args, root=tmp_path / "plain")[0] == 0
    assert train_pytorch_main(*args, "--parallel", "fsdp", root=tmp_path / "fsdp")[0] == 0
    metrics = metrics_at(tmp_path / "fsdp")
    assert (metrics["parallel"], metrics["process_group"]) == ("fsdp", "gloo")  # a 1-rank group
    plain, sharded = model_at(tmp_path / "plain"), model_at(tmp_path / "fsdp")
    assert plain.keys() == sharded.keys()
    for name in plain:
        torch.testing.assert_close(sharded[name], plain[name], rtol=1e-5, atol=1e-6)


def test_sagemaker_encoded_hyperparameters_are_accepted(train_pytorch_main):
    status, result, root = train_pytorch_main(
        *TINY_GPT,
        *("--model", '"mlp"', "--activation_checkpointing", "True", "--compile", "false"),
        *("--max_steps", '"3"', "--lr", "1e-2", "--dropout", "0.1"),
        *("--sagemaker_program", "train_pytorch.py", "--my_unused_key", '"x"'),
    )
    assert status == 0
    hps = metrics_at(root)["hyperparameters"]
    assert hps["model"] == "mlp"
    assert hps["activation_checkpointing"] is True
    assert hps["compile"] is False
    assert hps["max_steps"] == 3
    assert hps["lr"] == pytest.approx(0.01)
    assert sorted(result.steps()) == [1, 2, 3]
    [warning] = result.warnings()
    assert "--sagemaker_program" in warning and "--my_unused_key" in warning


def test_bare_flags_work_as_on_a_laptop(train_pytorch_main):
    status, _, root = train_pytorch_main(
        *TINY_GPT, "--max_steps", "2", "--activation_checkpointing", "--benchmark"
    )
    hps = metrics_at(root)["hyperparameters"]
    assert status == 0 and hps["activation_checkpointing"] is True and hps["benchmark"] is True


def test_benchmark_reports_steady_state_throughput(train_pytorch_main):
    status, result, root = train_pytorch_main(
        *TINY_GPT, "--max_steps", "8", "--benchmark", "--warmup_steps", "3"
    )
    metrics = metrics_at(root)
    assert status == 0
    assert metrics["measured_steps"] == 5
    assert metrics["steady_tokens_per_sec"] > 0
    assert "mfu" not in metrics  # no peak to compare against on a CPU
    assert f"benchmark: tokens_per_sec={metrics['steady_tokens_per_sec']:.1f}" in result.stdout


@pytest.mark.parametrize(
    ("argv", "mentions"),
    [
        (["--model", "bert"], "--model"),
        (["--max_steps", "-1"], "--max_steps"),
        (["--batch_size", "abc"], "--batch_size"),
        (["--batch_size", "0"], "--batch_size"),
        (["--lr", "true"], "--lr"),
        (["--lr", "NaN"], "--lr"),
        (["--n_embd", "30", "--n_head", "4"], "--n_head"),
        (["--parallel", "zero3"], "--parallel"),
        (["--activation_checkpointing", "maybe"], "--activation_checkpointing"),
        (["--dropout", "1.5"], "--dropout"),
        (["--tensor_parallel_degree", "2"], "does not divide the world size 1"),
        (["--pipeline_parallel_degree", "0"], "--pipeline_parallel_degree"),
        (["--pipeline_schedule", "zb"], "--pipeline_schedule"),
        (["--zero1", "--parallel", "fsdp"], "--zero1"),
        (["--dp_replicate", "2"], "--parallel fsdp"),
        (["--sequence_parallel"], "set --tensor_parallel_degree"),
        (["--loss_parallel"], "set --tensor_parallel_degree"),
        (
            ["--loss_parallel", "--tensor_parallel_degree", "2", "--vocab_size", "255"],
            "--vocab_size 255 is not divisible",
        ),
        (
            ["--sequence_parallel", "--tensor_parallel_degree", "2", "--seq_len", "15"],
            "--seq_len 15 is not divisible",
        ),
    ],
)
def test_bad_hyperparameters_fail_fast_with_one_line(train_pytorch_main, argv, mentions):
    status, _, root = train_pytorch_main(*argv)
    failure = (root / "output" / "failure").read_text()
    assert status == 1
    assert failure.startswith("UsageError: ") and mentions in failure
    assert failure.count("\n") == 1


def test_bad_hyperparameter_in_a_real_process_exits_nonzero(torch_job):
    job = torch_job()
    result = job.run("--max_steps", "-5")
    assert result.returncode != 0
    assert "--max_steps must not be negative" in job.failure()
    assert "Traceback" not in result.stderr  # a usage error is one line, not a stack
    assert not (job.model_dir / "model.pt").exists()


def _write_tokens(channel: Path, vocab: int) -> int:
    """Two token files of different formats; returns the number of 17-token windows."""
    rng = np.random.default_rng(0)
    (channel / "part").mkdir(parents=True)
    np.save(channel / "a.npy", rng.integers(0, vocab, 17 * 10 + 5).astype(np.int32))
    rng.integers(0, vocab, 17 * 6).astype(np.uint16).tofile(channel / "part" / "b.bin")
    (channel / "notes.txt").write_text("ignored")
    return 10 + 6


def test_channel_data_trains_for_the_requested_epochs(train_pytorch_main, tmp_path):
    windows = _write_tokens(tmp_path / "train", vocab=64)
    status, result, root = train_pytorch_main(
        *TINY_GPT, "--data", "channel", "--epochs", "2", SM_CHANNEL_TRAIN=str(tmp_path / "train")
    )
    assert status == 0
    assert metrics_at(root)["steps"] == 2 * (windows // 4)
    assert max(result.steps()) == 2 * (windows // 4)


def test_channel_tokens_outside_the_vocabulary_fail(train_pytorch_main, tmp_path):
    _write_tokens(tmp_path / "train", vocab=1000)
    status, _, root = train_pytorch_main(
        *TINY_GPT, "--data", "channel", "--max_steps", "3", SM_CHANNEL_TRAIN=str(tmp_path / "train")
    )
    assert status == 1
    assert "vocab_size=64" in (root / "output" / "failure").read_text()


def test_channel_data_without_a_channel_fails(train_pytorch_main):
    status, _, root = train_pytorch_main("--data", "channel")
    assert status == 1
    assert "SM_CHANNEL_TRAIN" in (root / "output" / "failure").read_text()


SMDDP_ON = json.dumps({"sagemaker_distributed_dataparallel_enabled": True})
SMP_ON = json.dumps({"hybrid_shard_degree": 2})


@pytest.mark.parametrize(
    ("env", "libraries"),
    [
        ({"SM_FRAMEWORK_PARAMS": SMDDP_ON}, ["SMDDP"]),
        ({"SM_HP_MP_PARAMETERS": SMP_ON}, ["SMP v2"]),
        ({"SM_FRAMEWORK_PARAMS": SMDDP_ON, "SM_HP_MP_PARAMETERS": SMP_ON}, ["SMDDP", "SMP v2"]),
        ({"SM_HPS": json.dumps({"sagemaker_distributed_dataparallel_enabled": "true"})}, ["SMDDP"]),
    ],
)
def test_missing_smddp_or_smp_falls_back_to_gloo_with_one_warning(
    train_pytorch_main, env, libraries
):
    status, result, root = train_pytorch_main(*TINY_GPT, "--max_steps", "2", **env)
    assert status == 0
    [warning] = result.warnings()
    assert all(name in warning for name in libraries)
    assert "falling back to plain gloo" in warning
    assert metrics_at(root)["backend"] == "gloo"


def test_mp_parameters_on_the_command_line_request_smp(train_pytorch_main):
    status, result, _ = train_pytorch_main(*TINY_GPT, "--max_steps", "1", "--mp_parameters", SMP_ON)
    [warning] = result.warnings()
    assert status == 0 and "SMP v2" in warning


@pytest.mark.parametrize(
    "env", [{"SM_FRAMEWORK_PARAMS": SMDDP_ON}, {"SM_HP_MP_PARAMETERS": SMP_ON}]
)
def test_missing_library_inside_a_sagemaker_job_is_an_error(train_pytorch_main, env):
    status, result, root = train_pytorch_main(
        *TINY_GPT, "--max_steps", "2", TRAINING_JOB_NAME="job-123", **env
    )
    assert status == 1
    assert "not installed in this container" in (root / "output" / "failure").read_text()
    assert not result.warnings()  # an error, not a fallback
    assert not (root / "model" / "model.pt").exists()


def test_batches_are_a_pure_function_of_seed_step_and_rank(entrypoints_on_path):
    import torch

    import torch_data

    def batches(seed: int, rank: int, world: int, batch: int) -> torch_data.Batches:
        plan = torch_data.BatchPlan(seed, batch, grad_accum=2, rank=rank, world_size=world)
        return torch_data.Batches(torch_data.SyntheticTokens(seed, 64, 8, 32), plan)

    single = batches(0, rank=0, world=1, batch=4)
    ranks = [batches(0, rank=r, world=2, batch=2) for r in (0, 1)]
    for step in (0, 5, 17):  # 17 is past the first epoch of 64 samples
        for micro in (0, 1):
            inputs, targets = single.get(step, micro)
            parts = [b.get(step, micro) for b in ranks]
            assert torch.equal(inputs, torch.cat([p[0] for p in parts]))
            assert torch.equal(targets, torch.cat([p[1] for p in parts]))
            assert torch.equal(inputs[:, 1:], targets[:, :-1])  # targets are the next tokens
    again = batches(0, rank=1, world=2, batch=2)
    assert torch.equal(again.get(9, 1)[0], ranks[1].get(9, 1)[0])
    assert not torch.equal(batches(1, rank=1, world=2, batch=2).get(9, 1)[0], again.get(9, 1)[0])


def test_channel_windows_are_split_across_ranks(entrypoints_on_path, tmp_path):
    import torch

    import torch_data

    np.save(tmp_path / "tokens.npy", np.arange(8 * 5, dtype=np.int64))  # 8 distinct windows
    dataset = torch_data.ChannelTokens([tmp_path / "tokens.npy"], seq_len=4, vocab_size=40)
    seen = []
    for rank in (0, 1):
        plan = torch_data.BatchPlan(0, batch_size=2, grad_accum=1, rank=rank, world_size=2)
        batches = torch_data.Batches(dataset, plan)
        seen.append({int(row[0]) for step in (0, 1) for row in batches.get(step, 0)[0]})
    assert not seen[0] & seen[1]
    assert seen[0] | seen[1] == set(range(0, 40, 5))  # one epoch covers every window once
    assert isinstance(dataset.window(0), torch.Tensor)

"""PyTorch training entry point: runs as SageMaker runs it and unchanged on a laptop.

    python train_pytorch.py --model gpt --max_steps 100
    torchrun --nproc_per_node 8 train_pytorch.py --parallel fsdp --checkpoint_every 50

Hyperparameters arrive as ``--snake_case value`` (SageMaker passes every key, encoded its way);
the SM_* environment says where data, model and output go. Hyperparameters are read by
torch_hparams; backend, device and process group come from torch_dist, data from torch_data.
``main`` chooses the parallelism strategy once (torch_strategy): how the model is wrapped (mesh
→ TP → PP → FSDP/DDP, torch_parallel.parallelize), stepped and checkpointed; ``train`` runs it
in that order and torch_outputs writes model.pt and metrics.json. Imports only the standard
library, torch, numpy and those siblings.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

import smenv
import torch_ckpt
import torch_config
import torch_data
import torch_datafeed
import torch_dist
import torch_hparams
import torch_mesh
import torch_models
import torch_outputs
import torch_parallel
import torch_perf
import torch_ps
import torch_strategy

# ------------------------------------------------------------------------------------ logging


def log(ctx: torch_dist.DistContext, message: str) -> None:
    if ctx.is_main:
        print(message, flush=True)  # flush: CloudWatch metric regexes read lines as they come


# ----------------------------------------------------------------------------------- training


def model_config(cfg: torch_config.TrainConfig) -> torch_models.ModelConfig:
    return torch_models.ModelConfig(
        name=cfg.model,
        vocab_size=cfg.vocab_size,
        seq_len=cfg.seq_len,
        n_layer=cfg.n_layer,
        n_head=cfg.n_head,
        n_embd=cfg.n_embd,
        dropout=cfg.dropout,
        activation_checkpointing=cfg.activation_checkpointing,
    )


def make_dataset(cfg: torch_config.TrainConfig, env: smenv.SageMakerEnv) -> torch_data.TokenDataset:
    if cfg.data == "synthetic":
        return torch_data.SyntheticTokens(cfg.seed, cfg.num_samples, cfg.seq_len, cfg.vocab_size)
    channel = env.channel(cfg.channel)
    if channel is None:
        raise smenv.UsageError(f"--data channel needs SM_CHANNEL_{cfg.channel.upper()}")
    files = torch_data.token_files(channel)
    return torch_data.ChannelTokens(files, cfg.seq_len, cfg.vocab_size)


def total_steps(cfg: torch_config.TrainConfig, batches: torch_datafeed.BatchSource) -> int:
    per_epoch = len(batches.dataset) // batches.plan.global_batch
    if per_epoch == 0:
        raise smenv.UsageError(
            f"the data has {len(batches.dataset)} samples, fewer than one global batch "
            f"({batches.plan.global_batch}); lower --batch_size or --seq_len"
        )
    return cfg.max_steps or cfg.epochs * per_epoch


def seed_everything(seed: int, rank: int) -> None:
    # Python's and numpy's generators are unused by the loop but seeded (and checkpointed)
    # so that user additions stay reproducible too.
    random.seed(torch_data.seed_for("python", seed, rank))
    np.random.seed(torch_data.seed_for("numpy", seed, rank) % 2**32)
    torch.manual_seed(seed)


def train(
    cfg: torch_config.TrainConfig,
    strategy: torch_strategy.Strategy,
    layout: torch_mesh.Layout,
    env: smenv.SageMakerEnv,
    ctx: torch_dist.DistContext,
) -> int:
    seed_everything(cfg.seed, ctx.rank)
    model_cfg = model_config(cfg)
    model = torch_models.build_model(model_cfg)  # same seed on every rank: identical weights
    n_params = torch_models.num_params(model)
    par = strategy.wrap(model, ctx, cfg, layout)  # mesh → TP → PP → FSDP/DDP
    # From here each data-parallel rank and stage draws its own dropout masks; the tensor-
    # parallel ranks of one group draw the same (rank // tp: tp is the mesh's innermost dim).
    torch.manual_seed(torch_data.seed_for("torch", cfg.seed, ctx.rank // layout.tp))
    optimizer = strategy.make_optimizer(par, cfg)
    plan = torch_data.BatchPlan(cfg.seed, cfg.batch_size, cfg.grad_accum, par.dp_rank, layout.dp)
    batches = torch_datafeed.batches(
        cfg, env.environ, plan, lambda: make_dataset(cfg, env), ctx.rank, ctx.world_size
    )
    steps = total_steps(cfg, batches)
    ckpt = strategy.checkpointer(
        cfg.checkpoint_dir,
        cfg.keep_checkpoints,
        par,
        optimizer,
        torch_dist.warn,
        torch_models.shape_signature(model_cfg),
    )
    resumed = ckpt.restore()
    start = resumed["data"]["step"] if resumed else 0
    log(ctx, describe(cfg, par, n_params, start, steps))
    result = _loop(cfg, strategy.train_step, par, optimizer, batches, ckpt, start, steps)
    result.setdefault("final_train_loss", (resumed or {}).get("train_loss"))
    result["optimizer_state_elements"] = torch_parallel.state_elements(optimizer)
    state = strategy.full_state(par)  # collective when sharded: every rank calls
    _save_outputs(cfg, env, par, state, model_cfg, n_params, start, steps, result)
    return 0


def describe(
    cfg: torch_config.TrainConfig,
    par: torch_parallel.Parallel,
    n_params: int,
    start: int,
    steps: int,
) -> str:
    where = f"resuming at step {start}" if start else "starting at step 0"
    return (
        f"training {cfg.model} ({n_params:,} parameters) with {par.ctx.kind} on "
        f"{par.ctx.device}, world size {par.ctx.world_size}, parallel {par.mode}, "
        f"mesh {par.layout.describe()}, precision {cfg.precision}; {where} of {steps}"
    )


def _loop(
    cfg: torch_config.TrainConfig,
    train_step: torch_strategy.Step,
    par: torch_parallel.Parallel,
    optimizer: torch.optim.Optimizer,
    batches: torch_datafeed.BatchSource,
    ckpt: torch_ckpt.Checkpointer,
    start: int,
    steps: int,
) -> dict[str, Any]:
    ctx = par.ctx
    sync = torch_perf.synchronizer(ctx)
    meter = torch_perf.Meter(batches.plan.global_batch, cfg.seq_len, sync)
    bench = torch_perf.Meter(batches.plan.global_batch, cfg.seq_len, sync)
    result: dict[str, Any] = {}
    meter.reset(start)
    for step in range(start, steps):
        if step == start + cfg.warmup_steps:
            bench.reset(step)  # steady state: compilation and allocator warm-up are behind us
        if cfg.straggler_delay_ms and ctx.rank == 1:
            time.sleep(cfg.straggler_delay_ms / 1000)  # a slow worker, for make bench
        loss, weight = train_step(step, par, optimizer, batches, cfg)
        done = step + 1
        if done % cfg.log_every == 0 or done == steps:
            train_loss = torch_dist.mean_across_ranks(float(loss.item()), ctx, weight)
            rates = meter.mark(done)
            result["final_train_loss"] = train_loss
            result.update(
                samples_per_sec=rates.samples_per_sec, tokens_per_sec=rates.tokens_per_sec
            )
            line = torch_outputs.metric_line(
                done,
                train_loss,
                rates.samples_per_sec,
                rates.tokens_per_sec,
                epoch=batches.epoch_of(step),
            )
            log(ctx, line)
        if cfg.checkpoint_every and done % cfg.checkpoint_every == 0:
            position = {"step": done, "epoch": batches.epoch_of(done)}
            ckpt.save(done, {"data": position, "train_loss": result.get("final_train_loss")})
    if cfg.benchmark:
        result.update(_benchmark(cfg, bench, start, steps))
    return result


def _benchmark(
    cfg: torch_config.TrainConfig, bench: torch_perf.Meter, start: int, steps: int
) -> dict:
    if steps - start <= cfg.warmup_steps:
        torch_dist.warn(
            f"--benchmark needs more than --warmup_steps {cfg.warmup_steps} steps to measure"
        )
        return {}
    rates = bench.mark(steps)
    return {
        "steady_samples_per_sec": rates.samples_per_sec,
        "steady_tokens_per_sec": rates.tokens_per_sec,
        "measured_steps": steps - start - cfg.warmup_steps,
    }


def _save_outputs(
    cfg: torch_config.TrainConfig,
    env: smenv.SageMakerEnv,
    par: torch_parallel.Parallel,
    state: dict[str, torch.Tensor],
    model_cfg: torch_models.ModelConfig,
    n_params: int,
    start: int,
    steps: int,
    result: dict[str, Any],
) -> None:
    ctx = par.ctx
    if not ctx.is_main:
        return
    metrics = {
        **result,
        "steps": steps,
        "resumed_from_step": start,
        "world_size": ctx.world_size,
        "backend": ctx.kind,
        "process_group": ctx.backend,
        "parallel": par.mode,
        "mesh": dataclasses.asdict(par.layout),
        "model": model_cfg.name,
        "num_params": n_params,
        "global_batch_size": cfg.batch_size * cfg.grad_accum * par.layout.dp,
    }
    metrics.update(_utilisation(ctx, model_cfg, n_params, metrics.get("steady_tokens_per_sec")))
    if "steady_tokens_per_sec" in metrics:
        mfu = f" mfu={metrics['mfu']:.4f}" if "mfu" in metrics else ""
        log(ctx, f"benchmark: tokens_per_sec={metrics['steady_tokens_per_sec']:.1f}{mfu}")
    torch_outputs.save(env, cfg, state, metrics)


def _utilisation(
    ctx: torch_dist.DistContext, cfg: torch_models.ModelConfig, n_params: int, tokens: float | None
) -> dict[str, float]:
    peak = torch_perf.peak_flops(ctx.device)
    if tokens is None or peak is None:
        return {}
    flops = torch_models.flops_per_token(cfg, n_params)
    return {"mfu": torch_perf.mfu(tokens, ctx.world_size, flops, peak), "peak_flops": peak}


# --------------------------------------------------------------------------------------- main


def main(argv: Sequence[str]) -> int:
    env = smenv.current()
    cfg = torch_hparams.parse_args(argv, env)
    feed = torch_datafeed.topology(env.environ)
    if feed is not None and feed.is_data_host:  # a heterogeneous job's data host: no training
        return torch_datafeed.serve(cfg, feed, lambda: make_dataset(cfg, env))
    mp_params = torch_dist.mp_parameters(env, cfg.mp_parameters)
    launch = torch_dist.launch_from_env(env.environ)
    if cfg.parallel == "ps":  # its own process roles over RPC, no process group
        seed_everything(cfg.seed, launch.rank)
        model = torch_models.build_model(model_config(cfg))
        return torch_ps.run(cfg, env, launch, model, make_dataset(cfg, env))
    hybrid = int((mp_params or {}).get("hybrid_shard_degree") or launch.local_world_size)
    # Every invalid combination fails here, before any process-group work.
    layout = torch_config.resolve_layout(cfg, launch.world_size, hybrid)
    strategy = torch_strategy.choose(cfg)
    need_group = torch_strategy.needs_group(strategy, cfg, layout)
    if cfg.deterministic:
        torch_dist.use_deterministic_kernels()
    ctx = torch_dist.setup(env, mp_params, need_group=need_group, warn=torch_dist.warn)
    if cfg.precision is None:
        cfg = dataclasses.replace(cfg, precision="bf16" if ctx.device.type == "cuda" else "fp32")
    try:
        result = train(cfg, strategy, layout, env, ctx)
        # No rank tears the group down while a peer still has a collective in flight (the exit
        # itself is made safe by torch_dist.exit_process). Not on the error path: a peer that
        # died would leave the barrier waiting.
        torch_dist.barrier(ctx)
        return result
    finally:
        torch_dist.teardown(ctx)


if __name__ == "__main__":
    torch_dist.exit_process(smenv.run(main))

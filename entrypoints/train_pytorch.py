"""PyTorch training entry point: runs as SageMaker runs it and unchanged on a laptop.

    python train_pytorch.py --model gpt --max_steps 100
    torchrun --nproc_per_node 8 train_pytorch.py --parallel fsdp --checkpoint_every 50

Hyperparameters arrive as ``--snake_case value`` (SageMaker passes every key, encoded its way);
the SM_* environment says where data, model and output go. Hyperparameters are read by
torch_hparams; backend, device and process group come from torch_dist, parallelism from
torch_parallel, data from torch_data and crash-safe checkpoints from torch_ckpt. Imports only
the standard library, torch, numpy and those siblings.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

import smenv
import torch_ckpt
import torch_data
import torch_dist
import torch_hparams
import torch_models
import torch_parallel
import torch_perf

# ------------------------------------------------------------------------------------ logging


def log(ctx: torch_dist.DistContext, message: str) -> None:
    if ctx.is_main:
        print(message, flush=True)  # flush: CloudWatch metric regexes read lines as they come


# ----------------------------------------------------------------------------------- training


def model_config(args: argparse.Namespace) -> torch_models.ModelConfig:
    return torch_models.ModelConfig(
        name=args.model,
        vocab_size=args.vocab_size,
        seq_len=args.seq_len,
        n_layer=args.n_layer,
        n_head=args.n_head,
        n_embd=args.n_embd,
        dropout=args.dropout,
        activation_checkpointing=args.activation_checkpointing,
    )


def make_dataset(args: argparse.Namespace, env: smenv.SageMakerEnv) -> torch_data.TokenDataset:
    if args.data == "synthetic":
        return torch_data.SyntheticTokens(
            args.seed, args.num_samples, args.seq_len, args.vocab_size
        )
    channel = env.channel(args.channel)
    if channel is None:
        raise smenv.UsageError(f"--data channel needs SM_CHANNEL_{args.channel.upper()}")
    files = torch_data.token_files(channel)
    return torch_data.ChannelTokens(files, args.seq_len, args.vocab_size)


def total_steps(args: argparse.Namespace, batches: torch_data.Batches) -> int:
    per_epoch = len(batches.dataset) // batches.plan.global_batch
    if per_epoch == 0:
        raise smenv.UsageError(
            f"the data has {len(batches.dataset)} samples, fewer than one global batch "
            f"({batches.plan.global_batch}); lower --batch_size or --seq_len"
        )
    return args.max_steps or args.epochs * per_epoch


def seed_everything(seed: int, rank: int) -> None:
    # Python's and numpy's generators are unused by the loop but seeded (and checkpointed)
    # so that user additions stay reproducible too.
    random.seed(torch_data.seed_for("python", seed, rank))
    np.random.seed(torch_data.seed_for("numpy", seed, rank) % 2**32)
    torch.manual_seed(seed)


def train_step(
    step: int,
    par: torch_parallel.Parallel,
    optimizer: torch.optim.Optimizer,
    batches: torch_data.Batches,
    args: argparse.Namespace,
) -> torch.Tensor:
    """One optimizer step over --grad_accum micro-batches; the mean loss (not synced to host)."""
    optimizer.zero_grad(set_to_none=True)
    total = torch.zeros((), device=par.ctx.device)
    for micro in range(args.grad_accum):
        inputs, targets = (t.to(par.ctx.device) for t in batches.get(step, micro))
        with torch_parallel.grad_sync(par, micro == args.grad_accum - 1):
            with torch_parallel.autocast(par.ctx, args.precision):
                logits = par.forward(inputs)
            loss = F.cross_entropy(logits.float().flatten(0, 1), targets.flatten())
            (loss / args.grad_accum).backward()
        total += loss.detach() / args.grad_accum
    torch_parallel.step(par, optimizer, args.max_grad_norm)
    return total


def train(args: argparse.Namespace, env: smenv.SageMakerEnv, ctx: torch_dist.DistContext) -> int:
    seed_everything(args.seed, ctx.rank)
    cfg = model_config(args)
    model = torch_models.build_model(cfg)  # same seed on every rank: identical initial weights
    n_params = torch_models.num_params(model)
    # From here each rank draws its own dropout masks.
    torch.manual_seed(torch_data.seed_for("torch", args.seed, ctx.rank))
    par = torch_parallel.wrap(model, ctx, args.parallel, args.sharding, args.compile)
    optimizer = torch.optim.AdamW(
        par.model.parameters(), lr=args.lr, weight_decay=args.weight_decay
    )
    plan = torch_data.BatchPlan(
        args.seed, args.batch_size, args.grad_accum, ctx.rank, ctx.world_size
    )
    batches = torch_data.Batches(make_dataset(args, env), plan)
    steps = total_steps(args, batches)
    ckpt = torch_ckpt.Checkpointer(
        args.checkpoint_dir,
        args.keep_checkpoints,
        par,
        optimizer,
        torch_dist.warn,
        torch_models.shape_signature(cfg),
    )
    resumed = ckpt.restore()
    start = resumed["data"]["step"] if resumed else 0
    log(ctx, describe(args, par, n_params, start, steps))
    result = _loop(args, par, optimizer, batches, ckpt, start, steps)
    result.setdefault("final_train_loss", (resumed or {}).get("train_loss"))
    _save_outputs(args, env, par, cfg, n_params, start, steps, result)
    return 0


def describe(
    args: argparse.Namespace, par: torch_parallel.Parallel, n_params: int, start: int, steps: int
) -> str:
    where = f"resuming at step {start}" if start else "starting at step 0"
    return (
        f"training {args.model} ({n_params:,} parameters) with {par.ctx.kind} on "
        f"{par.ctx.device}, world size {par.ctx.world_size}, parallel {par.mode}, "
        f"precision {args.precision}; {where} of {steps}"
    )


def _loop(
    args: argparse.Namespace,
    par: torch_parallel.Parallel,
    optimizer: torch.optim.Optimizer,
    batches: torch_data.Batches,
    ckpt: torch_ckpt.Checkpointer,
    start: int,
    steps: int,
) -> dict[str, Any]:
    ctx = par.ctx
    sync = torch_perf.synchronizer(ctx)
    meter = torch_perf.Meter(batches.plan.global_batch, args.seq_len, sync)
    bench = torch_perf.Meter(batches.plan.global_batch, args.seq_len, sync)
    result: dict[str, Any] = {}
    meter.reset(start)
    for step in range(start, steps):
        if step == start + args.warmup_steps:
            bench.reset(step)  # steady state: compilation and allocator warm-up are behind us
        loss = train_step(step, par, optimizer, batches, args)
        done = step + 1
        if done % args.log_every == 0 or done == steps:
            train_loss = torch_dist.mean_across_ranks(float(loss.item()), ctx)
            rates = meter.mark(done)
            result["final_train_loss"] = train_loss
            result.update(
                samples_per_sec=rates.samples_per_sec, tokens_per_sec=rates.tokens_per_sec
            )
            log(
                ctx,
                f"step={done} train_loss={train_loss:.6f} "
                f"samples_per_sec={rates.samples_per_sec:.2f} "
                f"tokens_per_sec={rates.tokens_per_sec:.1f} epoch={batches.epoch_of(step)}",
            )
        if args.checkpoint_every and done % args.checkpoint_every == 0:
            position = {"step": done, "epoch": batches.epoch_of(done)}
            ckpt.save(done, {"data": position, "train_loss": result.get("final_train_loss")})
    if args.benchmark:
        result.update(_benchmark(args, bench, start, steps))
    return result


def _benchmark(args: argparse.Namespace, bench: torch_perf.Meter, start: int, steps: int) -> dict:
    if steps - start <= args.warmup_steps:
        torch_dist.warn(
            f"--benchmark needs more than --warmup_steps {args.warmup_steps} steps to measure"
        )
        return {}
    rates = bench.mark(steps)
    return {
        "steady_samples_per_sec": rates.samples_per_sec,
        "steady_tokens_per_sec": rates.tokens_per_sec,
        "measured_steps": steps - start - args.warmup_steps,
    }


def _save_outputs(
    args: argparse.Namespace,
    env: smenv.SageMakerEnv,
    par: torch_parallel.Parallel,
    cfg: torch_models.ModelConfig,
    n_params: int,
    start: int,
    steps: int,
    result: dict[str, Any],
) -> None:
    ctx = par.ctx
    state = torch_parallel.full_cpu_state_dict(par)  # collective under FSDP: every rank calls
    if not ctx.is_main:
        return
    torch_ckpt.atomic_save(state, env.model_dir / "model.pt")
    metrics = {
        **result,
        "steps": steps,
        "resumed_from_step": start,
        "world_size": ctx.world_size,
        "backend": ctx.kind,
        "process_group": ctx.backend,
        "parallel": par.mode,
        "model": cfg.name,
        "num_params": n_params,
        "global_batch_size": args.batch_size * args.grad_accum * ctx.world_size,
        "hyperparameters": {
            k: v if isinstance(v, int | float | str) else str(v)
            for k, v in vars(args).items()
            if v is not None
        },
    }
    metrics.update(_utilisation(ctx, cfg, n_params, metrics.get("steady_tokens_per_sec")))
    if "steady_tokens_per_sec" in metrics:
        mfu = f" mfu={metrics['mfu']:.4f}" if "mfu" in metrics else ""
        log(ctx, f"benchmark: tokens_per_sec={metrics['steady_tokens_per_sec']:.1f}{mfu}")
    env.output_data_dir.mkdir(parents=True, exist_ok=True)
    torch_ckpt.atomic_write_text(
        env.output_data_dir / "metrics.json", json.dumps(metrics, indent=2)
    )


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
    args = torch_hparams.parse_args(argv, env)
    mp_params = torch_dist.mp_parameters(env, args.mp_parameters)
    ctx = torch_dist.setup(env, mp_params, need_group=args.parallel == "fsdp", warn=torch_dist.warn)
    if args.precision is None:
        args.precision = "bf16" if ctx.device.type == "cuda" else "fp32"
    try:
        result = train(args, env, ctx)
        # No rank tears the group down while a peer still has a collective in flight (the exit
        # itself is made safe by torch_dist.exit_process). Not on the error path: a peer that
        # died would leave the barrier waiting.
        torch_dist.barrier(ctx)
        return result
    finally:
        torch_dist.teardown(ctx)


if __name__ == "__main__":
    torch_dist.exit_process(smenv.run(main))

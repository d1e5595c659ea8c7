"""The PyTorch entry point's hyperparameters, read the way SageMaker passes them.

SageMaker puts every hyperparameter on the command line as ``--key value``: booleans as
``True``, strings sometimes JSON-quoted, and keys meant for other tools alongside ours. So values
are decoded leniently, unknown keys are ignored with a warning, and bad values fail before any
work with a one-line UsageError (which smenv.run turns into the failure file).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import shared_hparams as hp
import smenv
import torch_config
import torch_dist
import torch_models
import torch_parallel

DATA_KINDS = ("synthetic", "channel")
PRECISIONS = ("bf16", "fp32")
SCHEDULES = ("gpipe", "1f1b", "interleaved_1f1b")
OFFLOAD = ("none", "cpu")  # DeepSpeed's nvme offload needs a path and a fast disk: use a config


def build_parser(env: smenv.SageMakerEnv) -> argparse.ArgumentParser:
    # allow_abbrev=False: SageMaker passes every hyperparameter, and an unrelated --batch must not
    # silently become --batch_size.
    p = smenv.ArgumentParser(description=__doc__, allow_abbrev=False)

    def opt(name: str, kind: Any, default: Any, help: str, **kw: Any) -> None:
        p.add_argument(f"--{name}", type=kind, default=default, help=help, **kw)

    def flag(name: str, help: str) -> None:
        # Bare `--flag` locally, `--flag True` from SageMaker.
        p.add_argument(f"--{name}", type=hp.flag, nargs="?", const=True, default=False, help=help)

    # The vocabulary every entry point shares (max_steps, epochs, batch_size, lr, seed,
    # checkpoint_every); batch_size is per device per micro-step, lr AdamW's.
    hp.add_shared(p, batch_size=8, lr=3e-4)
    opt("model", hp.text, "gpt", "model to train", choices=torch_models.MODEL_NAMES)
    opt("n_layer", hp.integer, 2, "GPT: transformer blocks")
    opt("n_head", hp.integer, 2, "GPT: attention heads")
    opt("n_embd", hp.integer, 64, "embedding width")
    opt("seq_len", hp.integer, 64, "tokens per sample")
    opt("vocab_size", hp.integer, 256, "token ids are below this")
    opt("dropout", hp.number, 0.0, "dropout probability")
    opt("data", hp.text, "synthetic", "synthetic or a channel of token files", choices=DATA_KINDS)
    opt("channel", hp.text, "train", "channel read by --data channel (SM_CHANNEL_<NAME>)")
    opt("num_samples", hp.integer, 4096, "synthetic: samples per epoch")
    opt(
        "data_augment_cost",
        hp.integer,
        0,
        "CPU data work per batch (128x128 matmul rounds); on a heterogeneous job the data "
        "hosts do it instead of the training ranks",
    )
    opt("grad_accum", hp.integer, 1, "micro-steps per optimizer step")
    opt("weight_decay", hp.number, 0.0, "AdamW weight decay")
    opt("max_grad_norm", hp.number, 1.0, "gradient clipping norm (0: off)")
    opt("parallel", hp.text, "ddp", "data parallelism", choices=torch_parallel.PARALLEL_MODES)
    opt("sharding", hp.text, "full", "FSDP sharding", choices=torch_parallel.SHARDING_MODES)
    opt(
        "dp_replicate",
        hp.integer,
        0,
        "FSDP: HSDP replica groups (0: 1, or one per host with "
        "--sharding hybrid); the rest of the data-parallel ranks shard",
    )
    flag("zero1", "DDP: shard the optimizer state (ZeroRedundancyOptimizer)")
    opt("tensor_parallel_degree", hp.integer, 1, "ranks splitting each attention and MLP (TP)")
    flag("sequence_parallel", "TP: norms and dropout on sequence shards (needs TP > 1)")
    opt("pipeline_parallel_degree", hp.integer, 1, "pipeline stages the GPT is cut into (PP)")
    opt("pipeline_schedule", hp.text, "1f1b", "PP schedule", choices=SCHEDULES)
    opt("microbatches", hp.integer, 0, "PP: micro-batches per step (0: one per stage)")
    opt("stages_per_rank", hp.integer, 1, "PP: stages per rank (interleaved_1f1b: 2 or more)")
    opt("precision", hp.text, None, "bf16 or fp32 (default: bf16 on CUDA)", choices=PRECISIONS)
    flag("activation_checkpointing", "recompute activations in the backward pass")
    flag("activation_offload", "keep saved activations in CPU memory (save_on_cpu)")
    flag("compile", "torch.compile the model")
    opt("log_every", hp.integer, 10, "steps between log lines")
    flag("benchmark", "report steady-state throughput (and MFU on CUDA)")
    opt("warmup_steps", hp.integer, 5, "--benchmark: steps excluded from the measurement")
    opt("checkpoint_dir", hp.path, env.checkpoint_dir, "where checkpoints go and resume from")
    opt("keep_checkpoints", hp.integer, 2, "complete checkpoints kept")
    opt("mp_parameters", hp.text, None, "SMP v2 parameters (JSON), set by SageMaker")
    opt("zero_stage", hp.integer, 0, "DeepSpeed ZeRO stage 1, 2 or 3 (0: no DeepSpeed)")
    opt("deepspeed_config", hp.text, None, "DeepSpeed JSON config, relative to the code folder")
    opt("offload_optimizer", hp.text, "none", "ZeRO: optimizer state on", choices=OFFLOAD)
    opt("offload_params", hp.text, "none", "ZeRO-3: parameters on", choices=OFFLOAD)
    opt("num_ps", hp.integer, 1, "--parallel ps: parameter-server ranks (the first ones)")
    opt("ps_mode", hp.text, "async", "--parallel ps: update mode", choices=("async", "sync"))
    opt("straggler_delay_ms", hp.integer, 0, "rank 1 sleeps this long every step (benchmarks)")
    opt(
        "ps_timeout_s",
        hp.number,
        120.0,
        "--parallel ps: seconds a server waits for a silent worker, a worker for a server and "
        "every process for the others at start-up, before failing the job",
    )
    return p


POSITIVE = (
    *("n_layer", "n_head", "n_embd", "seq_len", "vocab_size", "num_samples"),
    *("grad_accum", "log_every", "keep_checkpoints"),
    "ps_timeout_s",
)
NON_NEGATIVE = (
    *("warmup_steps", "max_grad_norm", "weight_decay"),
    "data_augment_cost",
    "straggler_delay_ms",
)


def parse_args(argv: Sequence[str], env: smenv.SageMakerEnv) -> torch_config.TrainConfig:
    args, unknown = build_parser(env).parse_known_args(list(argv))
    ignored = [item for item in unknown if item.startswith("--")]
    if ignored:
        torch_dist.warn(f"ignoring unknown hyperparameters: {' '.join(ignored)}")
    validate(args)
    return torch_config.TrainConfig(**vars(args))


def validate(args: argparse.Namespace) -> None:
    """Fail before any work on values argparse cannot judge alone."""
    hp.check_shared(args)
    for name in POSITIVE:
        if getattr(args, name) < 1:
            raise smenv.UsageError(f"--{name} must be at least 1, got {getattr(args, name)}")
    for name in NON_NEGATIVE:
        if getattr(args, name) < 0:
            raise smenv.UsageError(f"--{name} must not be negative, got {getattr(args, name)}")
    if not 0 <= args.dropout < 1:
        raise smenv.UsageError(f"--dropout must be in [0, 1), got {args.dropout}")
    if args.n_embd % args.n_head:
        raise smenv.UsageError(f"--n_embd {args.n_embd} is not divisible by --n_head {args.n_head}")

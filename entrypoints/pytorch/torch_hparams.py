"""The PyTorch entry point's hyperparameters, read the way SageMaker passes them.

SageMaker puts every hyperparameter on the command line as ``--key value``: booleans as
``True``, strings sometimes JSON-quoted, dicts as ``k=v,k=v`` (``mp_parameters``, a
``deepspeed_config`` given inline: read typed from SM_HPS, see shared_hparams.structured), and
keys meant for other tools alongside ours. So values are decoded leniently, unknown keys are
ignored with a warning, and bad values fail before any work with a one-line UsageError (which
smenv.run turns into the failure file).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import shared_hparams as hp
import smenv
import torch_config
import torch_dist
import torch_models

HELP = {
    # The shared vocabulary's help is shared_hparams'; batch_size is per device per micro-step.
    "model": "model to train",
    "n_layer": "GPT: transformer blocks",
    "n_head": "GPT: attention heads",
    "n_embd": "embedding width",
    "seq_len": "tokens per sample",
    "vocab_size": "token ids are below this",
    "dropout": "dropout probability",
    "data": "synthetic or a channel of token files",
    "channel": "channel read by --data channel (SM_CHANNEL_<NAME>)",
    "num_samples": "synthetic: samples per epoch",
    "data_augment_cost": "CPU data work per batch (128x128 matmul rounds); on a heterogeneous "
    "job the data hosts do it instead of the training ranks",
    "grad_accum": "micro-steps per optimizer step",
    "weight_decay": "AdamW weight decay",
    "max_grad_norm": "gradient clipping norm (0: off)",
    "parallel": "data parallelism",
    "sharding": "FSDP sharding",
    "dp_replicate": "FSDP: HSDP replica groups (0: 1, or one per host with --sharding hybrid); "
    "the rest of the data-parallel ranks shard",
    "zero1": "DDP: shard AdamW's state over the data-parallel ranks (beside TP/PP: reduce-scatter, "
    "step a slice, all-gather, as Megatron's distributed optimizer)",
    "tensor_parallel_degree": "ranks splitting each attention and MLP (TP)",
    "sequence_parallel": "TP: norms and dropout on sequence shards (needs TP > 1)",
    "loss_parallel": "TP: the head split by vocabulary and the loss computed on those shards "
    "(torch's loss_parallel): 1/TP of the logits per rank (needs TP > 1)",
    "pipeline_parallel_degree": "pipeline stages the GPT is cut into (PP)",
    "pipeline_schedule": "PP schedule",
    "microbatches": "PP: micro-batches per step (0: one per stage)",
    "stages_per_rank": "PP: stages per rank (interleaved_1f1b: 2 or more)",
    "precision": "bf16 or fp32 (default: bf16 on CUDA)",
    "activation_checkpointing": "recompute activations in the backward pass",
    "activation_offload": "keep saved activations in CPU memory (save_on_cpu)",
    "compile": "torch.compile the model",
    "deterministic": "deterministic kernels (can be slower): on CUDA a rerun or a resume after a "
    "kill repeats the losses bit for bit (on a CPU they always do)",
    "log_every": "steps between log lines",
    "benchmark": "report steady-state throughput (and MFU on CUDA)",
    "warmup_steps": "--benchmark: steps excluded from the measurement",
    "checkpoint_dir": "where checkpoints go and resume from",
    "keep_checkpoints": "complete checkpoints kept",
    "mp_parameters": "SMP v2 parameters (JSON object or k=v,k=v), set by SageMaker",
    "zero_stage": "DeepSpeed ZeRO stage 1, 2 or 3 (0: no DeepSpeed)",
    "deepspeed_config": "DeepSpeed config: a JSON file relative to the code folder, or the "
    "config itself (a dict hyperparameter)",
    "offload_optimizer": "ZeRO: optimizer state on",
    "offload_params": "ZeRO-3: parameters on",
    "num_ps": "--parallel ps: parameter-server ranks (the first ones)",
    "ps_mode": "--parallel ps: update mode",
    "straggler_delay_ms": "rank 1 sleeps this long every step (benchmarks)",
    "ps_timeout_s": "--parallel ps: seconds a server waits for a silent worker, a worker for a "
    "server and every process for the others at start-up, before failing the job",
}


def build_parser(env: smenv.SageMakerEnv) -> argparse.ArgumentParser:
    """The options of torch_config.TrainConfig, with its defaults and choices."""
    # allow_abbrev=False: SageMaker passes every hyperparameter, and an unrelated --batch must not
    # silently become --batch_size.
    p = smenv.ArgumentParser(description=__doc__, allow_abbrev=False)
    hp.add_options(
        p,
        torch_config.TrainConfig,
        HELP,
        defaults={"checkpoint_dir": env.checkpoint_dir},
        choices={"model": torch_models.MODEL_NAMES},
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
    args, unknown = build_parser(env).parse_known_args(hp.without_nulls(argv))
    ignored = [item for item in unknown if item.startswith("--")]
    if ignored:
        torch_dist.warn(f"ignoring unknown hyperparameters: {' '.join(ignored)}")
    validate(args)
    hp.decode_structured(args, torch_config.TrainConfig, env)
    return torch_config.TrainConfig(**vars(args))


def validate(args: argparse.Namespace) -> None:
    """Fail before any work on values argparse cannot judge alone."""
    hp.check_shared(args, at_least_one=POSITIVE, non_negative=NON_NEGATIVE)
    if not 0 <= args.dropout < 1:
        raise smenv.UsageError(f"--dropout must be in [0, 1), got {args.dropout}")
    if args.n_embd % args.n_head:
        raise smenv.UsageError(f"--n_embd {args.n_embd} is not divisible by --n_head {args.n_head}")

"""The PyTorch entry point's typed configuration and its device-mesh layout.

``TrainConfig`` is built once from the parsed hyperparameters and passed everywhere instead of an
``argparse.Namespace``. ``resolve_layout`` turns it and the world size into the four mesh dims
(``dp_replicate × dp_shard × pp × tp``, by torch_mesh's rule, which the CLI shares) or a
UsageError naming every bad hyperparameter, before any process-group work. Standard library only
(plus smenv and torch_mesh), so it can be checked anywhere.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import smenv
import torch_mesh

Parallel = Literal["ddp", "fsdp", "dp", "ps"]
Sharding = Literal["full", "hybrid"]
Precision = Literal["bf16", "fp32"]
Schedule = Literal["gpipe", "1f1b", "interleaved_1f1b"]
DataKind = Literal["synthetic", "channel"]
Offload = Literal["none", "cpu"]  # DeepSpeed's nvme offload needs a path and a fast disk
PsMode = Literal["async", "sync"]
Layout = torch_mesh.Layout  # the mesh's dims, by the rule the CLI shares (torch_mesh)


@dataclass(frozen=True)
class TrainConfig:
    """Every hyperparameter of a run, decoded and validated: the one owner of each option's
    default and choices (torch_hparams builds the parser from these fields and adds the help)."""

    model: str = "gpt"
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 64
    seq_len: int = 64
    vocab_size: int = 256
    dropout: float = 0.0
    data: DataKind = "synthetic"
    channel: str = "train"
    num_samples: int = 4096
    data_augment_cost: int = 0  # torch_datafeed.augment rounds per batch (CPU data work)
    batch_size: int = 8
    grad_accum: int = 1
    lr: float = 3e-4
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    max_steps: int = 0
    epochs: int = 1
    seed: int = 0
    parallel: Parallel = "ddp"
    sharding: Sharding = "full"
    dp_replicate: int = 0  # 0: 1, or one replica per host under --sharding hybrid
    zero1: bool = False
    tensor_parallel_degree: int = 1
    sequence_parallel: bool = False
    loss_parallel: bool = False  # TP: the head split by vocabulary, the loss on its shards
    pipeline_parallel_degree: int = 1
    pipeline_schedule: Schedule = "1f1b"
    microbatches: int = 0  # 0: one per pipeline stage
    stages_per_rank: int = 1
    precision: Precision | None = None  # None until the device is known
    activation_checkpointing: bool = False
    activation_offload: bool = False
    compile: bool = False
    deterministic: bool = False  # deterministic kernels: bit-identical reruns and resumes on CUDA
    log_every: int = 10
    benchmark: bool = False
    warmup_steps: int = 5
    checkpoint_every: int = 0
    checkpoint_dir: Path = Path("checkpoints")
    keep_checkpoints: int = 2
    mp_parameters: dict[str, Any] | None = None  # SMP v2's, as the SDK put them in SM_HPS
    zero_stage: int = 0  # DeepSpeed ZeRO stage; 0 (and no deepspeed_config): no DeepSpeed
    deepspeed_config: str | dict[str, Any] | None = None  # a JSON file's name, or the config
    offload_optimizer: Offload = "none"
    offload_params: Offload = "none"
    num_ps: int = 1  # --parallel ps: parameter-server ranks (the first ones)
    ps_mode: PsMode = "async"
    straggler_delay_ms: int = 0  # rank 1 sleeps this long each step (benchmarks)
    ps_timeout_s: float = 120.0  # --parallel ps: how long silence from a peer may last

    @property
    def pipelined(self) -> bool:
        return self.pipeline_parallel_degree > 1

    @property
    def n_microbatches(self) -> int:
        return self.microbatches or self.pipeline_parallel_degree * self.stages_per_rank


def resolve_layout(cfg: TrainConfig, world_size: int, hybrid_shard: int) -> Layout:
    """The mesh for ``cfg`` on ``world_size`` ranks; UsageError listing every problem.

    ``hybrid_shard`` is the shard-group size ``--sharding hybrid`` means (one host's ranks).
    """
    errors = _model_errors(cfg) + _pipeline_errors(cfg) + _mode_errors(cfg)
    layout = torch_mesh.resolve(mesh_request(cfg), world_size, hybrid_shard)
    if isinstance(layout, list) or errors:
        raise smenv.UsageError("; ".join(errors + (layout if isinstance(layout, list) else [])))
    return layout


def mesh_request(cfg: TrainConfig) -> torch_mesh.MeshRequest:
    """The hyperparameters the mesh rule reads."""
    names = [field.name for field in dataclasses.fields(torch_mesh.MeshRequest)]
    return torch_mesh.MeshRequest(**{name: getattr(cfg, name) for name in names})


def _model_errors(cfg: TrainConfig) -> list[str]:
    tp, pp = cfg.tensor_parallel_degree, cfg.pipeline_parallel_degree
    errors = []  # the degrees themselves are the mesh rule's (torch_mesh)
    if cfg.stages_per_rank < 1:
        errors.append(f"--stages_per_rank must be at least 1, got {cfg.stages_per_rank}")
    if cfg.microbatches < 0:
        errors.append("--microbatches must not be negative")
    if (tp > 1 or pp > 1) and cfg.model != "gpt":
        errors.append("tensor and pipeline parallelism split the GPT; use --model gpt")
    if tp > 1 and cfg.n_head % tp:
        errors.append(
            f"--n_head {cfg.n_head} is not divisible by --tensor_parallel_degree {tp}; "
            "pick a degree that divides the attention heads"
        )
    return errors + _sequence_parallel_errors(cfg)


def _sequence_parallel_errors(cfg: TrainConfig) -> list[str]:
    tp = cfg.tensor_parallel_degree
    errors = []
    if cfg.loss_parallel and tp <= 1:
        errors.append(
            "--loss_parallel splits the head across TP ranks; set --tensor_parallel_degree"
        )
    elif cfg.loss_parallel and cfg.vocab_size % tp:
        errors.append(
            f"--loss_parallel: --vocab_size {cfg.vocab_size} is not divisible by "
            f"--tensor_parallel_degree {tp}; pad the vocabulary to a multiple of it"
        )
    if not cfg.sequence_parallel:
        return errors
    if tp <= 1:
        return [
            *errors,
            "--sequence_parallel shards activations across TP ranks; set --tensor_parallel_degree",
        ]
    if cfg.seq_len % tp:
        return [
            *errors,
            f"--sequence_parallel: --seq_len {cfg.seq_len} is not divisible by "
            f"--tensor_parallel_degree {tp}; pick a length that splits evenly",
        ]
    return errors


def _pipeline_errors(cfg: TrainConfig) -> list[str]:
    pp, per_rank, micro = cfg.pipeline_parallel_degree, cfg.stages_per_rank, cfg.n_microbatches
    if pp <= 1:
        return [] if per_rank == 1 else ["--stages_per_rank needs --pipeline_parallel_degree > 1"]
    errors = []
    interleaved = cfg.pipeline_schedule == "interleaved_1f1b"
    if interleaved != (per_rank > 1):
        errors.append(
            "--pipeline_schedule interleaved_1f1b goes with --stages_per_rank 2 or "
            "more, the other schedules with 1"
        )
    if cfg.n_layer < pp * per_rank:
        errors.append(
            f"--n_layer {cfg.n_layer} is fewer than the {pp * per_rank} pipeline "
            "stages (--pipeline_parallel_degree × --stages_per_rank)"
        )
    if micro < 1 or cfg.batch_size % micro:
        errors.append(f"--batch_size {cfg.batch_size} must split into --microbatches {micro}")
    if micro < pp or (interleaved and micro % pp):
        errors.append(
            f"--microbatches {micro} must be at least (interleaved: a multiple of) "
            f"--pipeline_parallel_degree {pp}"
        )
    if cfg.grad_accum != 1:
        errors.append("--grad_accum with a pipeline: raise --microbatches instead")
    return errors


def _mode_errors(cfg: TrainConfig) -> list[str]:
    errors = []
    if cfg.zero1 and cfg.parallel != "ddp":
        errors.append(
            "--zero1 shards the optimizer state of --parallel ddp (beside TP and PP too); "
            "drop it: --parallel fsdp shards that state already"
        )
    return errors + _deepspeed_errors(cfg)


def _deepspeed_errors(cfg: TrainConfig) -> list[str]:
    errors = []
    if cfg.zero_stage not in (0, 1, 2, 3):
        errors.append(f"--zero_stage must be 1, 2 or 3, got {cfg.zero_stage}")
    deepspeed = bool(cfg.zero_stage or cfg.deepspeed_config)
    if not deepspeed and (cfg.offload_optimizer != "none" or cfg.offload_params != "none"):
        errors.append("--offload_optimizer/--offload_params are ZeRO settings; add --zero_stage")
    if cfg.offload_params != "none" and cfg.zero_stage not in (0, 3):
        errors.append("--offload_params needs --zero_stage 3 (ZeRO-3 partitions parameters)")
    busy = cfg.parallel != "ddp" or cfg.zero1 or cfg.tensor_parallel_degree > 1 or cfg.pipelined
    if deepspeed and busy:
        errors.append(
            "DeepSpeed ZeRO replaces --parallel fsdp, --zero1, tensor and pipeline parallelism "
            "here; drop them (or drop --zero_stage/--deepspeed_config)"
        )
    return errors

"""DeepSpeed ZeRO (stages 1-3, CPU offload) behind the same API as torch_parallel's layouts.

    torchrun --nproc_per_node 8 train_pytorch.py --zero_stage 3 --offload_optimizer cpu
    mpirun -np 16 python train_pytorch.py --deepspeed_config ds_zero3.json

The engine comes from ``deepspeed.initialize`` over the process group torch_dist made (from
torchrun's variables or mpirun's), so the same script runs under either launcher. A
``--deepspeed_config`` file (a path relative to the code folder), or the config itself given as
a dict hyperparameter (read typed, see shared_hparams.structured), is used as given, with the
hyperparameters filling what it leaves out or sets to "auto" (micro-batch, accumulation,
clipping, optimizer); ``--zero_stage`` alone builds the config from the hyperparameters.

On the CPU (gloo):

* the optimizer is ``torch.optim.AdamW`` (DeepSpeed's ``torch_adam`` option) rather than
  DeepSpeedCPUAdam or FusedAdam, which are C++/CUDA extensions DeepSpeed would compile first;
* DeepSpeed's shared-memory all-reduce extension is turned off, so gloo does the collectives: it
  is JIT-compiled with g++ and ninja on first use (measured at about 5 minutes on a busy 2-core
  machine, once per extensions cache) and brings nothing to a CPU test run.

Checkpoints: torch_deepspeed_ckpt. ``model.pt`` is the consolidated full state dict.

Imports deepspeed only when a run asks for it (the import takes seconds).
"""

from __future__ import annotations

import json
import logging
import os
import warnings
from pathlib import Path
from typing import Any

import torch

import smenv
import torch_config
import torch_dist
import torch_mesh
import torch_parallel

CODE_DIR = Path(__file__).resolve().parent  # /opt/ml/code: the entry point and its siblings
_NEVER = 10**9  # steps_per_print: DeepSpeed's own progress lines would interleave with ours


def enabled(cfg: torch_config.TrainConfig) -> bool:
    return bool(cfg.zero_stage or cfg.deepspeed_config)


def config_path(raw: str, code_dir: Path) -> Path:
    path = Path(raw)
    return path if path.is_absolute() else code_dir / path


def build_config(cfg: torch_config.TrainConfig, precision: str, code_dir: Path) -> dict[str, Any]:
    """The DeepSpeed config: the user's file (if any), completed from the hyperparameters."""
    user = _user_config(cfg.deepspeed_config, code_dir)
    ours = _from_hyperparameters(cfg, precision)
    merged = {**ours, **{k: v for k, v in user.items() if v != "auto"}}
    for key in ("zero_optimization", "optimizer"):  # nested "auto" values too
        if isinstance(user.get(key), dict):
            merged[key] = _without_auto(ours.get(key, {}), user[key])
    merged.setdefault("checkpoint", {}).setdefault("use_node_local_storage", True)
    merged.pop("train_batch_size", None)  # derived: micro-batch × accumulation × world size
    return merged


def _user_config(given: str | dict[str, Any] | None, code_dir: Path) -> dict[str, Any]:
    """The config the job gave: inline (a dict hyperparameter), or a JSON file's."""
    if isinstance(given, dict) or not given:
        return dict(given or {})
    path = config_path(given, code_dir)
    try:
        user = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise smenv.UsageError(f"--deepspeed_config {path}: cannot be read ({exc})") from None
    if not isinstance(user, dict):
        raise smenv.UsageError(f"--deepspeed_config {path}: not a JSON object")
    return user


def _without_auto(ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    out = dict(ours)
    for key, value in theirs.items():
        if isinstance(value, dict) and isinstance(ours.get(key), dict):
            out[key] = _without_auto(ours[key], value)
        elif value != "auto":
            out[key] = value
    return out


def _from_hyperparameters(cfg: torch_config.TrainConfig, precision: str) -> dict[str, Any]:
    zero: dict[str, Any] = {"stage": cfg.zero_stage}
    if cfg.offload_optimizer != "none":
        zero["offload_optimizer"] = {"device": cfg.offload_optimizer}
    if cfg.offload_params != "none":
        zero["offload_param"] = {"device": cfg.offload_params}
    optimizer_params: dict[str, Any] = {"lr": cfg.lr, "weight_decay": cfg.weight_decay}
    if not torch.cuda.is_available():
        optimizer_params["torch_adam"] = True  # no C++ optimizer extension to compile
    return {
        "train_micro_batch_size_per_gpu": cfg.batch_size,
        "gradient_accumulation_steps": cfg.grad_accum,
        "gradient_clipping": cfg.max_grad_norm,
        "optimizer": {"type": "AdamW", "params": optimizer_params},
        "zero_optimization": zero,
        "bf16": {"enabled": precision == "bf16"},
        "steps_per_print": _NEVER,
        "wall_clock_breakdown": False,
    }


def initialize(
    model: torch.nn.Module,
    ctx: torch_dist.DistContext,
    cfg: torch_config.TrainConfig,
    layout: torch_mesh.Layout,
) -> torch_parallel.Parallel:
    """The DeepSpeed engine (and its optimizer) as a Parallel of mode "deepspeed"."""
    config = build_config(cfg, cfg.precision or "fp32", CODE_DIR)  # a bad file fails first
    if not ctx.has_group:
        raise smenv.UsageError("DeepSpeed needs a process group; this run has none")
    if ctx.device.type == "cpu":
        # Else DeepSpeed probes for accelerators and warns on every rank that it found none.
        os.environ.setdefault("DS_ACCELERATOR", "cpu")
    import deepspeed

    _quiet(deepspeed)
    _export_ranks(ctx)
    if ctx.device.type == "cpu":
        import deepspeed.ops

        # See the module docstring: no JIT build of the shared-memory extension on the CPU.
        deepspeed.ops.__compatible_ops__["deepspeed_shm_comm"] = False
    engine, optimizer, _, _ = deepspeed.initialize(
        model=model.to(ctx.device),
        model_parameters=[p for p in model.parameters() if p.requires_grad],
        config=config,
        dist_init_required=False,
    )
    par = torch_parallel.Parallel(engine, engine, "deepspeed", ctx, layout)
    par.engine, par.engine_optimizer = engine, optimizer
    return par


def _quiet(deepspeed: Any) -> None:
    # DeepSpeed logs its whole config and every phase at INFO on every rank, and its collectives
    # call torch's deprecated *_tensor names (a FutureWarning per call site and rank).
    deepspeed.utils.logger.setLevel(logging.WARNING)
    warnings.filterwarnings("ignore", category=FutureWarning, module="torch.distributed")


def _export_ranks(ctx: torch_dist.DistContext) -> None:
    # DeepSpeed reads LOCAL_RANK (and RANK, WORLD_SIZE) from the environment in places; a
    # one-process run or an mpirun launch may not have them (torch_dist exports mpirun's).
    os.environ.setdefault("RANK", str(ctx.rank))
    os.environ.setdefault("LOCAL_RANK", str(ctx.local_rank))
    os.environ.setdefault("WORLD_SIZE", str(ctx.world_size))


def optimizer(par: torch_parallel.Parallel, cfg: torch_config.TrainConfig) -> Any:
    """The optimizer deepspeed.initialize built (from the config's "optimizer" section)."""
    return par.engine_optimizer


def train_step(
    step: int,
    par: torch_parallel.Parallel,
    optimizer: Any,
    batches: Any,
    cfg: torch_config.TrainConfig,
) -> tuple[torch.Tensor, float]:
    """One optimizer step: DeepSpeed scales each micro-batch's loss by the accumulation, and its
    step() applies the update (clipping included) only at the accumulation boundary."""
    engine = par.engine
    total = torch.zeros((), device=par.ctx.device)
    for micro in range(cfg.grad_accum):
        inputs, targets = (t.to(par.ctx.device) for t in batches.get(step, micro))
        loss = torch_parallel.loss_fn(engine(inputs), targets)
        engine.backward(loss)
        engine.step()
        total += loss.detach() / cfg.grad_accum
    return total, 1.0


def full_state_dict(par: torch_parallel.Parallel) -> dict[str, torch.Tensor]:
    """The whole model for model.pt, on rank 0 (collective under ZeRO-3: every rank calls)."""
    engine = par.engine
    if engine.zero_optimization_partition_weights():
        state = engine._zero3_consolidated_16bit_state_dict() or {}
    else:
        state = engine.module.state_dict()
    return {k: v.detach().cpu() for k, v in state.items()}

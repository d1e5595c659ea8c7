"""The entry point's tensor-parallel (with sequence parallelism) and FSDP2 code on one device:
``python paths_driver.py SPEC_JSON`` prints one JSON line.

On one rank the TP mesh has size 1, so apply_tensor_parallel and _fully_shard build the same
DTensor plans, hooks and collectives as on eight GPUs (NCCL on CUDA, gloo on a CPU), but every
collective is an identity: the step must match the plain model's. Each GPT is built from the same
seed and trained on the same tokens for a few steps; the losses of the two are returned side by
side. Runs as its own process because it initialises the process group.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.recommend.entrypoint_modules import load
from tests.recommend.oracle_driver import train_config

models, parallel, _pipeline, config, distctx, train, _zero1 = load()


def run(spec: dict[str, Any]) -> dict[str, Any]:
    device = torch.device("cuda", 0) if spec["device"] == "cuda" else torch.device("cpu")
    backend = "nccl" if device.type == "cuda" else "gloo"
    if device.type == "cuda":
        torch.cuda.set_device(device)
    dist.init_process_group(backend, store=dist.HashStore(), rank=0, world_size=1)
    try:
        cell = {**spec, "parallel": "fsdp", "checkpointing": False}
        cfg = train_config(cell, config.Layout())
        ctx = distctx.DistContext(kind=backend, backend=backend, device=device)
        generator = torch.Generator().manual_seed(1)
        shape = (spec["steps"], cfg.batch_size, cfg.seq_len)
        tokens = torch.randint(0, cfg.vocab_size, shape, generator=generator).to(device)
        plain = _losses(_model(cfg, device), tokens, cfg, ctx)
        sharded = _model(cfg, device)
        mesh = parallel.build_mesh(ctx, config.Layout())
        parallel.apply_tensor_parallel(sharded, mesh["tp"], sequence_parallel=[sharded])
        parallel._fully_shard(sharded, None, mesh["dp_shard"], cfg)
        dtensors = sum(type(p).__name__ == "DTensor" for p in sharded.parameters())
        tp_fsdp = _losses(sharded, tokens, cfg, ctx)
        return {
            "backend": backend,
            "device": str(device),
            "dtensor_parameters": dtensors,
            "parameters": len(list(sharded.parameters())),
            "plain": plain,
            "tp_sp_fsdp": tp_fsdp,
        }
    finally:
        dist.destroy_process_group()


def _model(cfg: Any, device: torch.device) -> torch.nn.Module:
    torch.manual_seed(0)
    return models.build_model(train.model_config(cfg)).to(device)


def _losses(model: torch.nn.Module, tokens: torch.Tensor, cfg: Any, ctx: Any) -> list[float]:
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    losses = []
    for batch in tokens:
        with parallel.autocast(ctx, cfg.precision):
            loss = parallel.loss_fn(model(batch), batch)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(float(loss.item()))
    return losses


if __name__ == "__main__":
    print(json.dumps(run(json.loads(sys.argv[1]))), flush=True)

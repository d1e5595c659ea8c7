"""``--parallel ps``, the worker side: pull the parameters from every server, compute gradients
on this worker's shard of the batch, push each server its shard (one round trip per server per
step), and tell the servers when done. A server silent for --ps_timeout_s fails the worker, named.
"""

from __future__ import annotations

import os
import time

import torch
import torch.distributed.rpc as rpc
from torch import nn

import torch_config
import torch_data
import torch_parallel
from torch_ps_server import (
    PeerTimeout,
    Roles,
    load_states,
    progress,
    pull,
    push,
    shard_names,
    shard_square,
    worker_done,
)

State = tuple[int, dict[str, torch.Tensor]]  # a server's update count and its shard


def work(
    cfg: torch_config.TrainConfig,
    roles: Roles,
    model: nn.Module,
    batches: torch_data.Batches,
    steps: int,
    updates: int,
) -> None:
    device = _device()
    model.to(device)
    torch.manual_seed(torch_data.seed_for("torch", cfg.seed, roles.rank))  # own dropout masks
    servers = [f"ps{i}" for i in range(cfg.num_ps)]
    states = [rpc.rpc_sync(server, pull) for server in servers]
    start = rpc.rpc_sync(servers[0], progress, args=(roles.worker_index,))
    shards = [
        shard_names([n for n, _ in model.named_parameters()], cfg.num_ps, i)
        for i in range(cfg.num_ps)
    ]
    step = start
    # sync: every worker does every step; async: whoever is free takes the next update until
    # the run's budget of updates is spent, so a straggler does fewer and slows nobody.
    while step < steps if cfg.ps_mode == "sync" else states[0][0] < updates:
        load_states(model, states)
        if cfg.straggler_delay_ms and roles.rank == 1:
            time.sleep(cfg.straggler_delay_ms / 1000)
        loss = _gradients(cfg, model, batches, step, device)
        grads = {
            n: p.grad.detach().cpu() for n, p in model.named_parameters() if p.grad is not None
        }
        states = _push_all(servers, shards, roles.worker_index, states, grads, loss, cfg)
        step += 1
    for server in servers:  # each server watches for silent workers until all are done
        rpc.rpc_sync(server, worker_done, args=(roles.worker_index,))


def _push_all(
    servers: list[str],
    shards: list[list[str]],
    worker: int,
    states: list[State],
    grads: dict[str, torch.Tensor],
    loss: float,
    cfg: torch_config.TrainConfig,
) -> list[State]:
    """Each server its shard of the gradients, all at once; their new parameters."""
    samples = cfg.batch_size * cfg.grad_accum
    square = shard_square(list(grads.values())) if cfg.max_grad_norm > 0 else 0.0
    futures = [
        rpc.rpc_async(
            server,
            push,
            args=(worker, states[i][0], {n: grads[n] for n in shards[i]}, loss, samples, square),
        )
        for i, server in enumerate(servers)
    ]
    try:
        return [future.wait() for future in futures]
    except RuntimeError as exc:  # timed out, or the server's connection broke
        raise PeerTimeout(
            f"worker{worker}: no answer from the parameter servers ({', '.join(servers)}) within "
            f"{cfg.ps_timeout_s:g} s (--ps_timeout_s){_sync_note(cfg)}: {_first_line(exc)}"
        ) from exc


def _sync_note(cfg: torch_config.TrainConfig) -> str:
    return (
        "; in sync mode a server answers once every worker has pushed"
        if cfg.ps_mode == "sync"
        else ""
    )


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _device() -> torch.device:
    if torch.cuda.is_available():
        local = int(os.environ.get("LOCAL_RANK", "0"))
        return torch.device("cuda", local % torch.cuda.device_count())
    return torch.device("cpu")


def _gradients(
    cfg: torch_config.TrainConfig,
    model: nn.Module,
    batches: torch_data.Batches,
    step: int,
    device: torch.device,
) -> float:
    """This worker's gradients for ``step`` (accumulated as DDP does) and its mean loss."""
    model.zero_grad(set_to_none=True)
    total = 0.0
    for micro in range(cfg.grad_accum):
        inputs, targets = (t.to(device) for t in batches.get(step, micro))
        loss = torch_parallel.loss_fn(model(inputs), targets)
        (loss / cfg.grad_accum).backward()
        total += float(loss.detach()) / cfg.grad_accum
    return total

"""``--parallel ps``: a parameter server over torch.distributed.rpc (TensorPipe). This module
checks the job, starts RPC and gives each process its role; the servers are torch_ps_server.py,
the workers torch_ps_worker.py.

Ranks ``0 .. num_ps-1`` are servers: each holds a shard of the parameters (whole tensors, dealt
out by parameter) and their AdamW state, and applies updates. The other ranks are workers: each
pulls the parameters, computes gradients on its shard of the batch and pushes them to every
server, which answers with the updated parameters (one round trip per server per step).

``--ps_mode sync``: a server waits for every worker's push of a step, averages the gradients in
worker order and applies one update, so a step is DDP's step on the same global batch.
``--ps_mode async``: each push is applied as it arrives, on parameters that may have moved since
the worker pulled them (the staleness, logged). Nobody waits for a straggler, at the price of
gradients computed on old weights: more throughput, less accuracy per sample.

Clipping (--max_grad_norm) scales by the norm of the whole gradient being applied, as DDP does:
in sync mode the servers tell each other their shard's squared norm each update; in async mode
the update is one worker's gradient, whose norm the worker sends with its push.

No launcher tells a server that a worker on another host died or hangs, so each server watches:
a worker silent for --ps_timeout_s (neither pushing nor waiting on a sync step) fails the job,
named; the same timeout bounds every RPC, so a worker whose server is gone fails too.

Server 0 prints the metric lines: ``step=N train_loss=X`` once per applied update (sync: the
global batch's loss, the mean over the workers' shards; async: the pushing worker's batch) and
``samples_per_sec=`` counting every worker's samples per wall second; it writes model.pt.
"""

from __future__ import annotations

import os
import warnings

import torch.distributed.rpc as rpc
from torch import nn

import smenv
import torch_config
import torch_data
import torch_dist
import torch_ps_server
import torch_ps_worker
from torch_ps_server import Roles

PS_MODES = ("async", "sync")


def check(cfg: torch_config.TrainConfig, world_size: int) -> None:
    """UsageError for what cannot run, before any RPC work."""
    errors = []
    if cfg.num_ps < 1 or world_size - cfg.num_ps < 1:
        errors.append(
            f"--parallel ps needs --num_ps ≥ 1 servers and at least one worker besides them; "
            f"got --num_ps {cfg.num_ps} of {world_size} processes (launch with torchrun "
            "--nproc_per_node or raise the process count)"
        )
    if cfg.tensor_parallel_degree > 1 or cfg.pipelined or cfg.zero1 or cfg.zero_stage:
        errors.append("--parallel ps replaces TP, PP, ZeRO and DeepSpeed here; drop them")
    if errors:
        raise smenv.UsageError("; ".join(errors))


# ----------------------------------------------------------------------------------- the run


def run(
    cfg: torch_config.TrainConfig,
    env: smenv.SageMakerEnv,
    launch: torch_dist.Launch,
    model: nn.Module,
    dataset: torch_data.TokenDataset,
) -> int:
    """Serve or work until every worker has done its steps; server 0 writes the outputs."""
    check(cfg, launch.world_size)
    roles = Roles(launch.rank, launch.world_size, cfg.num_ps)
    plan = torch_data.BatchPlan(
        cfg.seed, cfg.batch_size, cfg.grad_accum, max(roles.worker_index, 0), roles.num_workers
    )
    steps = _total_steps(cfg, plan, len(dataset))
    updates = steps if cfg.ps_mode == "sync" else steps * roles.num_workers
    if roles.is_server:  # before RPC starts: a worker's first pull may come at once
        torch_ps_server.install(torch_ps_server.make_server(cfg, roles, model, updates))
    _init_rpc(roles, cfg.ps_timeout_s)
    try:
        if roles.rank == 0:
            _describe(cfg, roles, model, steps, updates)
        if roles.is_server:
            torch_ps_server.current().serve(roles)
            if roles.rank == 0:
                torch_ps_server.save_outputs(cfg, env, roles, model, steps)
        else:
            batches = torch_data.Batches(dataset, plan)
            torch_ps_worker.work(cfg, roles, model, batches, steps, updates)
    except BaseException:
        rpc.shutdown(graceful=False)  # a peer is gone: waiting for it would hang the exit
        raise
    rpc.shutdown()  # graceful: waits for every process, so no server leaves a worker hanging
    return 0


def _total_steps(cfg: torch_config.TrainConfig, plan: torch_data.BatchPlan, samples: int) -> int:
    per_epoch = samples // plan.global_batch
    if per_epoch == 0:
        raise smenv.UsageError(
            f"the data has {samples} samples, fewer than one global batch ({plan.global_batch})"
        )
    return cfg.max_steps or cfg.epochs * per_epoch


def _init_rpc(roles: Roles, timeout_s: float) -> None:
    torch_dist.export_mpi_launch(os.environ)  # mpirun: MASTER_ADDR/PORT as torchrun sets them
    # The timeout bounds every RPC (a sync push waits for the slowest worker) and the start-up
    # rendezvous, so a dead peer fails the job in timeout_s rather than in torch's 600 s.
    # TCP only (libuv, waiting in epoll). TensorPipe's shared-memory transport, its default
    # between processes of one machine, spins a thread per process while idle (sched_yield in a
    # loop, pytorch/tensorpipe#397), taking cores from the ranks that compute: a server waiting
    # out a silent worker burnt 25 CPU-seconds in 14 s on 2 cores, 5 over TCP. Between hosts it
    # is TCP anyway; `sagelaunch local`'s hosts share one machine, where shared memory would be
    # a shortcut that SageMaker's separate hosts never get.
    options = rpc.TensorPipeRpcBackendOptions(
        num_worker_threads=max(16, 2 * roles.world_size + 4),
        rpc_timeout=timeout_s,
        _transports=["uv"],
    )
    # RPC's own start-up calls a deprecated gloo API; the warning is torch's, not the user's.
    warnings.filterwarnings("ignore", message="You are using a Backend")
    name = f"ps{roles.rank}" if roles.is_server else f"worker{roles.worker_index}"
    rpc.init_rpc(name, rank=roles.rank, world_size=roles.world_size, rpc_backend_options=options)


def _describe(
    cfg: torch_config.TrainConfig, roles: Roles, model: nn.Module, steps: int, updates: int
) -> None:
    count = sum(p.numel() for p in model.parameters())
    print(
        f"training {cfg.model} ({count:,} parameters), parallel ps: {roles.num_ps} parameter "
        f"server(s), {roles.num_workers} worker(s), {cfg.ps_mode} updates; {steps} steps per "
        f"worker, {updates} updates",
        flush=True,
    )
    version = torch_ps_server.current().version
    if version:
        print(f"resuming at update {version} from {cfg.checkpoint_dir}", flush=True)

"""``--parallel ps``, the server side: each server holds a shard of the parameters (whole tensors,
dealt out by parameter) and their AdamW state, applies the workers' pushes (sync: averaged in
worker order, one update per step; async: each as it arrives), watches for silent workers,
checkpoints its shard (torch_ps_ckpt), and server 0 reports the metric lines and writes
model.pt. The workers reach a server through the RPC functions below (`pull`, `push`, ...),
which act on this process's server (`install`). torch_ps.py says how the roles fit together.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed.rpc as rpc
from torch import nn

import smenv
import torch_config
import torch_outputs
import torch_ps_ckpt

WATCH_S = 0.5  # how often a server looks for silent workers
_SERVER: ParameterServer | None = None  # this process's server, reached by the RPC functions


def install(server: ParameterServer) -> ParameterServer:
    """Make ``server`` the one this process's RPC functions act on (before RPC starts: a worker's
    first pull may come at once)."""
    global _SERVER
    _SERVER = server
    return server


def current() -> ParameterServer:
    assert _SERVER is not None, "no parameter server in this process"
    return _SERVER


@dataclass(frozen=True)
class Roles:
    """Who does what: servers first, then workers."""

    rank: int
    world_size: int
    num_ps: int

    @property
    def is_server(self) -> bool:
        return self.rank < self.num_ps

    @property
    def num_workers(self) -> int:
        return self.world_size - self.num_ps

    @property
    def worker_index(self) -> int:
        return self.rank - self.num_ps


class PeerTimeout(RuntimeError):
    """A server heard nothing from a worker, or a worker from a server, for --ps_timeout_s."""


def shard_names(names: list[str], num_ps: int, server: int) -> list[str]:
    """The parameters server ``server`` holds: every num_ps-th, so sizes even out."""
    return names[server::num_ps]


class Reporter:
    """Server 0's metric lines and totals."""

    def __init__(self, cfg: torch_config.TrainConfig, total_updates: int) -> None:
        self.cfg, self.total = cfg, total_updates
        self.samples = 0
        self.result: dict[str, Any] = {}
        self._time, self._samples_at = time.perf_counter(), 0

    def start(self) -> None:
        """The clock starts at the first pull, as DDP's at its first step (not at process start)."""
        if not self.samples and not self.result:
            self._time = time.perf_counter()

    def record(self, update: int, loss: float, samples: int, staleness: int) -> None:
        self.samples += samples
        self.result["final_train_loss"] = loss
        if update % self.cfg.log_every and update != self.total:
            return
        now = time.perf_counter()
        rate = (self.samples - self._samples_at) / max(now - self._time, 1e-9)
        self._time, self._samples_at = now, self.samples
        tokens = rate * self.cfg.seq_len
        self.result.update(samples_per_sec=rate, tokens_per_sec=tokens)
        line = torch_outputs.metric_line(update, loss, rate, tokens, staleness=staleness)
        print(line, flush=True)


class ParameterServer:
    """One shard of the parameters and its optimizer; thread-safe (RPCs arrive on a pool)."""

    def __init__(
        self,
        index: int,
        params: Mapping[str, torch.Tensor],
        cfg: torch_config.TrainConfig,
        num_workers: int,
        total_updates: int,
        reporter: Reporter | None,
    ) -> None:
        self.index, self.total_updates = index, total_updates
        self.params = {n: nn.Parameter(p.detach().clone()) for n, p in params.items()}
        self.optimizer = torch.optim.AdamW(
            list(self.params.values()), lr=cfg.lr, weight_decay=cfg.weight_decay
        )
        self.cfg, self.num_workers, self.reporter = cfg, num_workers, reporter
        self.version = 0
        # Reentrant: a sync update whose peers' norms are all in completes in the pushing thread.
        self.lock = threading.RLock()
        self.squares: dict[int, dict[int, float]] = {}  # sync: update -> server -> shard norm²
        self.squares_in: dict[int, torch.futures.Future] = {}  # sync: update -> all norms in
        self.pending: dict[int, tuple[dict[str, torch.Tensor], float, int]] = {}
        self.waiting: list[torch.futures.Future] = []
        self.done: set[int] = set()
        self.finished = threading.Event()
        self.progress = dict.fromkeys(range(num_workers), 0)  # steps pushed, per worker
        self.heard = dict.fromkeys(range(num_workers), time.monotonic())  # last word, per worker
        self.resumed_from = 0

    def restore(self, version: int) -> None:
        """Shard, optimizer state and progress as saved at update ``version``."""
        state = torch_ps_ckpt.load(self.cfg.checkpoint_dir, self.index, version)
        with torch.no_grad():
            for name, param in self.params.items():
                param.copy_(state["params"][name])
        self.optimizer.load_state_dict(state["optimizer"])
        self.version, self.progress = version, dict(state["progress"])
        self.resumed_from = version

    def _checkpoint(self) -> None:
        every = self.cfg.checkpoint_every
        if not every or self.version % every:
            return
        state = {
            "params": {n: p.detach().clone() for n, p in self.params.items()},
            "optimizer": self.optimizer.state_dict(),
            "progress": dict(self.progress),
        }
        root, keep = self.cfg.checkpoint_dir, self.cfg.keep_checkpoints
        torch_ps_ckpt.save(root, self.index, self.version, state, keep)

    def progress_of(self, worker: int) -> int:
        with self.lock:
            self.heard[worker] = time.monotonic()
            return self.progress[worker]

    def start_clock(self) -> None:
        """Every worker counts as just heard from: RPC is up, all processes have joined."""
        with self.lock:
            self.heard = dict.fromkeys(self.heard, time.monotonic())

    def silent(self, timeout_s: float) -> list[int]:
        """Workers neither done nor waiting on this server (a sync push pending) that have said
        nothing for ``timeout_s``: dead, hung or cut off, since no launcher tells us."""
        now = time.monotonic()
        with self.lock:
            return [
                w
                for w, heard in self.heard.items()
                if w not in self.done and w not in self.pending and now - heard > timeout_s
            ]

    def snapshot(self) -> tuple[int, dict[str, torch.Tensor]]:
        with self.lock:
            if self.reporter is not None:
                self.reporter.start()
            return self.version, {n: p.detach().clone() for n, p in self.params.items()}

    def push(
        self,
        worker: int,
        pulled: int,
        grads: dict[str, torch.Tensor],
        loss: float,
        samples: int,
        square: float,
    ) -> torch.futures.Future:
        """``square``: the squared norm of the worker's whole gradient (every server's shard)."""
        future: torch.futures.Future = torch.futures.Future()
        with self.lock:
            self.heard[worker] = time.monotonic()
            if self.cfg.ps_mode == "async" and self.version >= self.total_updates:
                future.set_result(self._state())  # the budget is spent: the worker stops
                return future
            self.progress[worker] += 1
            if self.cfg.ps_mode == "async":
                staleness = self.version - pulled
                # The update is this one gradient: its norm is the worker's, on every server.
                self._apply(grads, loss, samples, staleness, square)
                future.set_result(self._state())
                return future
            self.pending[worker] = (grads, loss, samples)
            self.waiting.append(future)
            if len(self.pending) == self.num_workers:
                self._apply_sync()
        return future

    def _apply_sync(self) -> None:
        # Worker order, so the sum (and so the update) does not depend on arrival order.
        pushes = [self.pending[w] for w in sorted(self.pending)]
        mean = {
            name: torch.stack([g[name] for g, _, _ in pushes]).sum(0) / len(pushes)
            for name in self.params
        }
        loss = sum(loss for _, loss, _ in pushes) / len(pushes)
        samples = sum(n for _, _, n in pushes)
        waiting, self.waiting = self.waiting, []
        self.pending.clear()

        def finish(square: float | None) -> None:
            with self.lock:
                self._apply(mean, loss, samples, 0, square)
                state = self._state()
            for future in waiting:
                future.set_result(state)

        if self.cfg.max_grad_norm <= 0 or self.cfg.num_ps == 1:
            finish(None)  # no clipping, or this shard is the whole gradient
            return
        # The mean gradient's norm spans every server's shard: each tells the others its part.
        version, square = self.version + 1, shard_square(list(mean.values()))
        for peer in range(self.cfg.num_ps):
            if peer != self.index:
                rpc.rpc_async(f"ps{peer}", share_square, args=(version, self.index, square))
        self.all_squares(version, self.index, square).then(lambda f: finish(f.value()))

    def all_squares(self, version: int, server: int, square: float) -> torch.futures.Future:
        """A future of update ``version``'s total norm², complete once every server's part is in
        (summed in server order, so every server computes the same total)."""
        with self.lock:
            parts = self.squares.setdefault(version, {})
            parts[server] = square
            future = self.squares_in.setdefault(version, torch.futures.Future())
            complete = len(parts) == self.cfg.num_ps
            if complete:
                del self.squares[version], self.squares_in[version]
        if complete:  # outside the lock: the callbacks take it
            future.set_result(sum(parts[i] for i in sorted(parts)))
        return future

    def _apply(
        self,
        grads: dict[str, torch.Tensor],
        loss: float,
        samples: int,
        stale: int,
        square: float | None,
    ) -> None:
        """One optimizer step; ``square``: the whole gradient's norm² (None: this shard's)."""
        for name, param in self.params.items():
            param.grad = grads[name].to(param.dtype)
        if self.cfg.max_grad_norm > 0:
            clip(list(self.params.values()), self.cfg.max_grad_norm, square)
        self.optimizer.step()
        self.version += 1
        # Log, then checkpoint (as the training loop does): a committed update's line is out.
        if self.reporter is not None:
            self.reporter.record(self.version, loss, samples, stale)
        self._checkpoint()

    def _state(self) -> tuple[int, dict[str, torch.Tensor]]:
        return self.version, {n: p.detach().clone() for n, p in self.params.items()}

    def worker_done(self, worker: int) -> None:
        with self.lock:
            self.done.add(worker)
            if len(self.done) == self.num_workers:
                self.finished.set()

    def serve(self, roles: Roles) -> None:
        """Until every worker is done; PeerTimeout as soon as one has been silent too long."""
        self.start_clock()
        timeout = self.cfg.ps_timeout_s
        while not self.finished.wait(WATCH_S):
            silent = self.silent(timeout)
            if silent:
                who = ", ".join(f"worker{w} (rank {w + roles.num_ps})" for w in silent)
                raise PeerTimeout(
                    f"parameter server ps{self.index}: nothing from {who} for {timeout:g} s "
                    f"(--ps_timeout_s): the worker died, hangs or lost its network; failing "
                    "the job instead of waiting for it"
                )


def shard_square(grads: list[torch.Tensor]) -> float:
    """The squared 2-norm of these gradients, as torch_parallel.clip_gradients sums them."""
    return float(torch.nn.utils.get_total_norm(grads).float() ** 2)


def clip(params: list[nn.Parameter], max_norm: float, square: float | None = None) -> None:
    """torch_parallel.clip_gradients' arithmetic: scale by the whole gradient's norm (``square``,
    from every shard), or by these parameters' own when they are the whole model."""
    grads = [p.grad for p in params if p.grad is not None]
    if square is None:
        norm = torch.nn.utils.get_total_norm(grads)
        squares = torch.zeros((), dtype=torch.float32) + norm.float() ** 2
    else:
        squares = torch.tensor(square, dtype=torch.float32)
    coef = torch.clamp(max_norm / (squares.sqrt() + 1e-6), max=1.0)
    torch._foreach_mul_(grads, coef)


def pull() -> tuple[int, dict[str, torch.Tensor]]:
    assert _SERVER is not None
    return _SERVER.snapshot()


@rpc.functions.async_execution
def push(
    worker: int,
    pulled: int,
    grads: dict[str, torch.Tensor],
    loss: float,
    samples: int,
    square: float,
) -> torch.futures.Future:
    assert _SERVER is not None
    return _SERVER.push(worker, pulled, grads, loss, samples, square)


def share_square(version: int, server: int, square: float) -> None:
    assert _SERVER is not None
    _SERVER.all_squares(version, server, square)


def progress(worker: int) -> int:
    assert _SERVER is not None
    return _SERVER.progress_of(worker)


def worker_done(worker: int) -> None:
    assert _SERVER is not None
    _SERVER.worker_done(worker)


def make_server(
    cfg: torch_config.TrainConfig, roles: Roles, model: nn.Module, updates: int
) -> ParameterServer:
    """This rank's shard of the (identically seeded) model, restored from a checkpoint if any."""
    params = dict(model.named_parameters())
    own = {n: params[n] for n in shard_names(list(params), cfg.num_ps, roles.rank)}
    reporter = Reporter(cfg, updates) if roles.rank == 0 else None
    server = ParameterServer(roles.rank, own, cfg, roles.num_workers, updates, reporter)
    resume = torch_ps_ckpt.newest_common(cfg.checkpoint_dir, cfg.num_ps)
    if resume:
        server.restore(resume)
    return server


def load_states(model: nn.Module, states: list[tuple[int, dict[str, torch.Tensor]]]) -> None:
    params = dict(model.named_parameters())
    with torch.no_grad():
        for _, shard in states:
            for name, value in shard.items():
                params[name].copy_(value)


def save_outputs(
    cfg: torch_config.TrainConfig,
    env: smenv.SageMakerEnv,
    roles: Roles,
    model: nn.Module,
    steps: int,
) -> None:
    """model.pt from every server's shard, and metrics.json, as the other modes write them."""
    states = [rpc.rpc_sync(f"ps{i}", pull) for i in range(roles.num_ps)]
    load_states(model, states)
    state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    assert _SERVER is not None and _SERVER.reporter is not None
    metrics = {
        **_SERVER.reporter.result,
        "steps": steps,
        "updates": states[0][0],
        "resumed_from_update": _SERVER.resumed_from,
        "world_size": roles.world_size,
        "parallel": "ps",
        "ps_mode": cfg.ps_mode,
        "num_ps": roles.num_ps,
        "num_workers": roles.num_workers,
        "model": cfg.model,
        "global_batch_size": cfg.batch_size * cfg.grad_accum * roles.num_workers,
    }
    torch_outputs.save(env, cfg, state, metrics)

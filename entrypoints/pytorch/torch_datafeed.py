"""Heterogeneous jobs: data hosts build the batches and stream them to the training ranks.

On a job with instance groups (``SM_IS_HETERO``), the hosts whose group is not a distribution
group (``SM_CURRENT_INSTANCE_GROUP`` not in ``SM_DISTRIBUTION_INSTANCE_GROUPS``) run this entry
point as one plain process: they become *data hosts*. They read the channel (only they need it)
or synthesize data, build every batch with the very code a training rank would use
(``torch_data.Batches``, a pure function of seed, step and data-parallel rank), apply the
CPU-side work (``--data_augment_cost``), and stream the batches over TCP. The training ranks
then do no data work: they read ready batches from a socket.

Design (TCP, not a gloo group): the data hosts are outside torchrun's world, and a socket needs
no rendezvous, survives a training rank's restart, and its kernel buffer is the prefetch queue
(the data host runs ahead until the buffer is full, then blocks: natural backpressure).

Protocol, one connection per training rank, to data host ``rank % D`` (D data hosts):
  1. rank -> host: a JSON line ``{"dp_rank", "dp_size", "world_size", "rank", "seed",
     "batch_size", "grad_accum"}``; host -> rank: ``{"samples": N}`` (the dataset's length,
     for the step count and epoch numbers).
  2. rank -> host: ``{"start": S}`` once, at its first batch (after a checkpoint resume S > 0).
  3. host -> rank: frames ``<step, micro, batch, seq>`` (4 × int64) + inputs + targets (int64),
     step S, micro 0..grad_accum-1, then S+1, ... until the rank closes the connection.
A data host serves the ranks assigned to it and exits when all of them have disconnected.

Addresses: a data host listens on ``SAGELAUNCH_DATAFEED_PORTS[i]`` (its index among the data
hosts) or port 29650; ranks reach it at ``SAGELAUNCH_DATAFEED_ADDR`` or its host name (SageMaker
resolves algo-N). `sagelaunch local` sets both, since all emulated hosts share one machine.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections.abc import Callable, Mapping, Sized
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import torch

import smenv
import torch_data

DEFAULT_PORT = 29650
ADDR_VARIABLE = "SAGELAUNCH_DATAFEED_ADDR"
PORTS_VARIABLE = "SAGELAUNCH_DATAFEED_PORTS"
CONNECT_TIMEOUT_S = 300.0  # a data host may start well after the training ranks (and vice versa)
_FRAME = struct.Struct("<4q")
_AUGMENT_SIZE = 128


@dataclass(frozen=True)
class FeedTopology:
    """Which hosts feed data, and where they listen."""

    data_hosts: list[str]
    endpoints: list[tuple[str, int]]
    current_host: str
    bind_addr: str = ""  # all interfaces on SageMaker; loopback when the address is given

    @property
    def is_data_host(self) -> bool:
        return self.current_host in self.data_hosts

    @property
    def my_endpoint(self) -> tuple[str, int]:
        return self.endpoints[self.data_hosts.index(self.current_host)]


def topology(environ: Mapping[str, str]) -> FeedTopology | None:
    """The feed of a heterogeneous job with data hosts; None for every other job."""
    found = smenv.instance_groups(environ)
    if found is None:
        return None
    groups, training = found
    data_hosts = [h for name, g in groups.items() if name not in training for h in g["hosts"]]
    if not training or not data_hosts:
        return None
    ports = [int(p) for p in environ.get(PORTS_VARIABLE, "").split(",") if p.strip()]
    addr = environ.get(ADDR_VARIABLE)
    endpoints = [
        (addr or host, ports[i] if i < len(ports) else DEFAULT_PORT)
        for i, host in enumerate(data_hosts)
    ]
    current = smenv.current_host(environ)
    return FeedTopology(data_hosts, endpoints, current, "127.0.0.1" if addr == "127.0.0.1" else "")


class BatchSource(Protocol):
    """What training reads batches from: torch_data.Batches' interface."""

    @property
    def plan(self) -> torch_data.BatchPlan: ...

    @property
    def dataset(self) -> Sized: ...

    def epoch_of(self, step: int) -> int: ...

    def get(self, step: int, micro: int) -> tuple[torch.Tensor, torch.Tensor]: ...


# ------------------------------------------------------------------------------ the data work


def augment(inputs: torch.Tensor, cost: int) -> torch.Tensor:
    """Stand-in for CPU-side data work (decoding, tokenizing, augmenting): ``cost`` rounds of a
    128×128 matmul seeded by the batch. The batch itself is returned unchanged, so a run's
    losses do not depend on where (or whether) the work was done."""
    if cost <= 0:
        return inputs
    scale = (float(inputs.sum()) % 7 + 1) / _AUGMENT_SIZE
    work = torch.full((_AUGMENT_SIZE, _AUGMENT_SIZE), scale)
    for _ in range(cost):
        work = torch.tanh(work @ work)
    return inputs


class LocalBatches:
    """The rank's own batches (homogeneous jobs), with the same data work as a data host."""

    def __init__(self, batches: torch_data.Batches, cost: int) -> None:
        self.batches, self.cost = batches, cost
        self.plan, self.dataset = batches.plan, batches.dataset

    def epoch_of(self, step: int) -> int:
        return self.batches.epoch_of(step)

    def get(self, step: int, micro: int) -> tuple[torch.Tensor, torch.Tensor]:
        inputs, targets = self.batches.get(step, micro)
        return augment(inputs, self.cost), targets


# ------------------------------------------------------------------------- the training side


class _Sized:
    def __init__(self, length: int) -> None:
        self.length = length

    def __len__(self) -> int:
        return self.length


class RemoteBatches:
    """Batches read from a data host: the interface of torch_data.Batches."""

    def __init__(self, sock: socket.socket, plan: torch_data.BatchPlan, samples: int) -> None:
        self.sock, self.plan = sock, plan
        self.dataset = _Sized(samples)
        self.reader = sock.makefile("rb")
        self.started = False

    def epoch_of(self, step: int) -> int:
        return step * self.plan.global_batch // len(self.dataset)

    def get(self, step: int, micro: int) -> tuple[torch.Tensor, torch.Tensor]:
        if not self.started:
            _send_json(self.sock, {"start": step})
            self.started = True
        while True:
            got_step, got_micro, batch, seq = _FRAME.unpack(_read(self.reader, _FRAME.size))
            inputs = _read_tensor(self.reader, batch, seq)
            targets = _read_tensor(self.reader, batch, seq)
            if (got_step, got_micro) == (step, micro):
                return inputs, targets
            if (got_step, got_micro) > (step, micro):
                raise RuntimeError(f"data feed skipped step {step} micro {micro}")

    def close(self) -> None:
        self.reader.close()
        self.sock.close()


def batches(
    cfg: object,
    environ: Mapping[str, str],
    plan: torch_data.BatchPlan,
    make_dataset: Callable[[], torch_data.TokenDataset],
    rank: int,
    world_size: int,
) -> LocalBatches | RemoteBatches:
    """This rank's batches: from a data host on a heterogeneous job, else built here."""
    cost = int(getattr(cfg, "data_augment_cost", 0))
    feed = topology(environ)
    if feed is None:
        return LocalBatches(torch_data.Batches(make_dataset(), plan), cost)
    addr, port = feed.endpoints[rank % len(feed.endpoints)]
    sock = _connect(addr, port)
    hello = {
        "dp_rank": plan.rank,
        "dp_size": plan.world_size,
        "rank": rank,
        "world_size": world_size,
        "seed": plan.seed,
        "batch_size": plan.batch_size,
        "grad_accum": plan.grad_accum,
    }
    _send_json(sock, hello)
    answer = json.loads(sock.makefile("rb").readline())
    return RemoteBatches(sock, plan, int(answer["samples"]))


def _connect(addr: str, port: int) -> socket.socket:
    deadline = time.monotonic() + CONNECT_TIMEOUT_S
    while True:
        try:
            sock = socket.create_connection((addr, port), timeout=CONNECT_TIMEOUT_S)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return sock
        except OSError:
            if time.monotonic() > deadline:
                raise smenv.UsageError(f"no data host answers at {addr}:{port}") from None
            time.sleep(0.2)


# ----------------------------------------------------------------------------- the data host


def serve(
    cfg: object, feed: FeedTopology, make_dataset: Callable[[], torch_data.TokenDataset]
) -> int:
    """Run a data host until every training rank assigned to it has disconnected."""
    dataset = make_dataset()
    cost = int(getattr(cfg, "data_augment_cost", 0))
    _, port = feed.my_endpoint
    index = feed.data_hosts.index(feed.current_host)
    with socket.create_server((feed.bind_addr, port)) as server:
        server.settimeout(CONNECT_TIMEOUT_S)
        print(f"data host {feed.current_host}: serving batches on port {port}", flush=True)
        expected: int | None = None
        workers: list[threading.Thread] = []
        while expected is None or len(workers) < expected:
            conn, _ = server.accept()
            hello = json.loads(conn.makefile("rb").readline())
            if expected is None:
                expected = len(range(index, int(hello["world_size"]), len(feed.data_hosts)))
            thread = threading.Thread(target=_stream, args=(conn, hello, dataset, cost))
            thread.start()
            workers.append(thread)
        for thread in workers:
            thread.join()
    print(f"data host {feed.current_host}: fed {len(workers)} training ranks", flush=True)
    return 0


def _stream(conn: socket.socket, hello: dict, dataset: torch_data.TokenDataset, cost: int) -> None:
    plan = torch_data.BatchPlan(
        int(hello["seed"]),
        int(hello["batch_size"]),
        int(hello["grad_accum"]),
        int(hello["dp_rank"]),
        int(hello["dp_size"]),
    )
    built = torch_data.Batches(dataset, plan)
    with conn:
        try:
            _send_json(conn, {"samples": len(dataset)})
            start = int(json.loads(conn.makefile("rb").readline())["start"])
            step = start
            while True:
                for micro in range(plan.grad_accum):
                    inputs, targets = built.get(step, micro)
                    inputs = augment(inputs, cost)
                    conn.sendall(_frame(step, micro, inputs, targets))
                step += 1
        except (OSError, ValueError, KeyError):
            return  # the rank finished (or died) and closed the connection


def _frame(step: int, micro: int, inputs: torch.Tensor, targets: torch.Tensor) -> bytes:
    batch, seq = inputs.shape
    head = _FRAME.pack(step, micro, batch, seq)
    return head + _tensor_bytes(inputs) + _tensor_bytes(targets)


def _tensor_bytes(tensor: torch.Tensor) -> bytes:
    return np.ascontiguousarray(tensor.numpy(), dtype="<i8").tobytes()


def _read_tensor(reader, batch: int, seq: int) -> torch.Tensor:  # type: ignore[no-untyped-def]
    raw = _read(reader, batch * seq * 8)
    return torch.from_numpy(np.frombuffer(raw, dtype="<i8").reshape(batch, seq).copy())


def _read(reader, size: int) -> bytes:  # type: ignore[no-untyped-def]
    data = reader.read(size)
    if len(data) != size:
        raise ConnectionError("the data host closed the feed")
    return bytes(data)


def _send_json(sock: socket.socket, message: dict) -> None:
    sock.sendall((json.dumps(message) + "\n").encode())

"""Throughput and model-FLOPs-utilisation bookkeeping for the training loop."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

import torch_dist

# Dense bf16 tensor-core peaks (TFLOP/s, no sparsity), matched as substrings of the CUDA device
# name; the first match wins, so more specific names come first.
PEAK_BF16_TFLOPS = (
    ("H200", 989.0),
    ("H100", 989.0),
    ("A100", 312.0),
    ("A10G", 125.0),
)


def peak_flops(device: torch.device) -> float | None:
    """The accelerator's bf16 dense peak in FLOP/s, or None when unknown (CPU, other GPUs)."""
    if device.type != "cuda":
        return None
    name = torch.cuda.get_device_name(device)
    return next((tflops * 1e12 for key, tflops in PEAK_BF16_TFLOPS if key in name), None)


def synchronizer(ctx: torch_dist.DistContext) -> Callable[[], None]:
    """Waits for queued device work, so wall-clock intervals measure real work."""
    if ctx.device.type == "cuda":
        return lambda: torch.cuda.synchronize(ctx.device)
    if ctx.xm is not None:
        xm = ctx.xm
        return lambda: xm.wait_device_ops()
    return lambda: None


@dataclass
class Rates:
    samples_per_sec: float
    tokens_per_sec: float


@dataclass
class Meter:
    """Global (all-rank) throughput between successive marks."""

    samples_per_step: int
    tokens_per_sample: int
    sync: Callable[[], None]
    _time: float = field(default_factory=time.perf_counter)
    _step: int = 0

    def reset(self, step: int) -> None:
        self.sync()
        self._time, self._step = time.perf_counter(), step

    def mark(self, step: int) -> Rates:
        self.sync()
        now = time.perf_counter()
        elapsed = max(now - self._time, 1e-9)
        samples = (step - self._step) * self.samples_per_step
        self._time, self._step = now, step
        return Rates(samples / elapsed, samples * self.tokens_per_sample / elapsed)


def mfu(tokens_per_sec: float, world_size: int, flops_per_token: float, peak: float) -> float:
    """Model FLOPs utilisation: achieved training FLOP/s per device over the device's peak."""
    return tokens_per_sec / world_size * flops_per_token / peak

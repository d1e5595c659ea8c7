"""Memory per accelerator (per rank) for one layout: weights, gradients, optimizer state,
activations and framework overhead, in GB (10^9 bytes, as in the ZeRO paper's arithmetic).

Assumptions, each a rule of thumb from the literature rather than a measurement:

* Model states, bytes per parameter before any sharding (Rajbhandari et al. 2020, "ZeRO", §3.1):

  ========  =======================  =========  ========  ==========================
  precision  optimizer               weights    grads     optimizer state
  ========  =======================  =========  ========  ==========================
  bf16      adam/adamw               2 (bf16)   2 (bf16)  12: fp32 master, m, v
  bf16      sgd (momentum)           2          2         8: fp32 master, momentum
  fp32      adam/adamw               4          4         8: m, v
  fp32      sgd (momentum)           4          4         4: momentum
  fp8       as bf16                  2          2         12 / 8
  ========  =======================  =========  ========  ==========================

  fp8 (Transformer Engine on H100/H200, Trainium2) casts bf16 weights to fp8 per GEMM; the
  stored weights stay bf16 with fp32 masters, so its states equal bf16's. Its activation savings
  are not counted (conservative).
* Activations per transformer layer and micro-batch (Korthikanti et al. 2022, "Reducing
  Activation Recomputation", §4): s*b*h*(10 + 24/t + 5*a*s/(h*t)) bytes in 16-bit, t the tensor
  parallel degree (no sequence parallelism, so 10*s*b*h stays replicated). Fused attention
  (PyTorch SDPA / FlashAttention, the default in PyTorch 2.x) never stores the a*s*s attention
  scores, only a 4-byte log-sum-exp per head and token. Full activation checkpointing keeps the
  2*s*b*h layer inputs and recomputes one layer at a time. The fp32 loss logits add
  4*s*b*vocab/t. fp32 training doubles all of it.
* FSDP / ZeRO-3 gathers one unit (one transformer block) at a time and prefetches the next:
  two unsharded blocks of weights and one of gradients (before reduce-scatter) live on each rank.
* Pipeline parallelism (p stages, 1F1B): each rank holds 1/p of the model states; the first
  stage keeps up to p micro-batches in flight for its L/p layers, so activations stay those of
  all L layers for one micro-batch (Narayanan et al. 2021, §2.2), as without PP.
* Activation offload (``save_on_cpu``) moves stored activations to host memory; one layer's
  stay on the device while it computes.
* Framework overhead: CUDA context, NCCL buffers and cuBLAS workspaces (a fixed 1.5 GB) plus
  10% of everything else for allocator fragmentation.
"""

from __future__ import annotations

from dataclasses import dataclass

from sagelaunch.recommend.workload import Workload

GB = 1e9
FIXED_OVERHEAD_GB = 1.5
FRAGMENTATION = 0.10

# (weights, gradients, optimizer) bytes per parameter; see the module docstring.
_STATE_BYTES: dict[tuple[str, str], tuple[int, int, int]] = {
    ("bf16", "adam"): (2, 2, 12),
    ("bf16", "sgd"): (2, 2, 8),
    ("fp32", "adam"): (4, 4, 8),
    ("fp32", "sgd"): (4, 4, 4),
}


def state_bytes(workload: Workload) -> tuple[int, int, int]:
    """Bytes per parameter of weights, gradients and optimizer state, before sharding."""
    precision = "fp32" if workload.precision == "fp32" else "bf16"
    optimizer = "sgd" if workload.optimizer == "sgd" else "adam"
    return _STATE_BYTES[(precision, optimizer)]


@dataclass(frozen=True)
class Sharding:
    """How one rank's share of the model states is cut.

    ``tensor_parallel`` splits every weight matrix (and most activations) t ways; the ``*_over``
    degrees then split that share over data-parallel ranks: DDP 1/1/1, ZeRO-1 1/1/dp,
    FSDP/ZeRO-3 S/S/S (S the shard group).
    """

    tensor_parallel: int = 1
    weights_over: int = 1
    gradients_over: int = 1
    optimizer_over: int = 1
    pipeline_parallel: int = 1  # stages: each rank holds 1/p of the layers' states

    @property
    def gathers_layers(self) -> bool:
        return self.weights_over > 1


@dataclass(frozen=True)
class Breakdown:
    """GB per accelerator, by what holds it."""

    weights: float
    gradients: float
    optimizer: float
    activations: float
    overhead: float

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer + self.activations + self.overhead

    def as_json(self) -> dict[str, float]:
        parts = {
            "weights": self.weights,
            "gradients": self.gradients,
            "optimizer": self.optimizer,
            "activations": self.activations,
            "overhead": self.overhead,
            "total": self.total,
        }
        return {key: round(value, 2) for key, value in parts.items()}


def per_device(workload: Workload, sharding: Sharding) -> Breakdown:
    """What one rank holds at peak (end of backward) for this workload under this sharding."""
    weight_b, grad_b, optim_b = state_bytes(workload)
    t = sharding.tensor_parallel
    share = workload.params / (t * sharding.pipeline_parallel)
    weights = share * weight_b / sharding.weights_over
    gradients = share * grad_b / sharding.gradients_over
    if sharding.gathers_layers:
        unit = workload.layer_params / t
        weights += 2 * unit * weight_b
        gradients += unit * grad_b
    optimizer = share * optim_b / sharding.optimizer_over
    activations = activation_bytes(workload, t)
    tensors = weights + gradients + optimizer + activations
    overhead = FIXED_OVERHEAD_GB * GB + FRAGMENTATION * tensors
    return Breakdown(weights / GB, gradients / GB, optimizer / GB, activations / GB, overhead / GB)


def activation_bytes(workload: Workload, tensor_parallel: int = 1) -> float:
    """Stored activations of one micro-batch on one rank (Korthikanti et al. 2022)."""
    s, b, t = workload.seq_len, workload.micro_batch, tensor_parallel
    h, a = workload.shape.hidden, workload.shape.heads
    per_layer = s * b * h * (10 + 24 / t)
    if workload.fused_attention:
        per_layer += 4 * a * s * b / t  # log-sum-exp, fp32
    else:
        per_layer += 5 * a * s * s * b / t  # scores, softmax, dropout mask
    if workload.activation_offload:
        stored = per_layer  # the rest waits in host memory
    elif workload.activation_checkpointing:
        stored = workload.shape.layers * 2 * s * b * h + per_layer  # inputs + one recomputed
    else:
        stored = workload.shape.layers * per_layer
    logits = 4 * s * b * workload.vocab / t
    scale = 2 if workload.precision == "fp32" else 1
    return scale * stored + logits

"""DeepSpeed ZeRO in the memory model: model states per GPU and per host for stages 1-3 and CPU
offload, with DeepSpeed's own accounting (``estimate_zero2_model_states_mem_needs`` and
``estimate_zero3_model_states_mem_needs`` in deepspeed.runtime.zero; tests/recommend checks these
numbers against those functions).

Per parameter, mixed-precision Adam keeps 2 bytes of 16-bit weights on the GPU plus 18 bytes that
ZeRO shards over the N GPUs of the job: 16-bit gradients (2), fp32 gradients (4), fp32 master
weights (4), Adam's m and v (8). So, with P parameters and L those of the largest layer:

========================  =====================  ============================================
layout                    GPU                    host memory, per node (×1.5 buffer)
========================  =====================  ============================================
ZeRO-1                    4P + 16P/N             4P × GPUs per node
ZeRO-2                    2P + 18P/N             4P × GPUs per node
ZeRO-2, offload optim.    2P                     max(4 × GPUs in the job, 16) P
ZeRO-3                    4L + 18P/N             4L × GPUs per node
ZeRO-3, offload optim.    4L + 2P/N              16P / nodes
ZeRO-3, offload all       4L                     18P / nodes
========================  =====================  ============================================

ZeRO-3 gathers one layer at a time: 4L is its 16-bit weights and gradients while it computes.
ZeRO-1 (DeepSpeed has no estimator for it) keeps the 16-bit weights and gradients whole and
shards the fp32 states. fp32 training is counted as mixed precision (DeepSpeed's estimators do the
same); activations and overhead come from memory.py as for every layout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sagelaunch.recommend.memory import (
    FIXED_OVERHEAD_GB,
    FRAGMENTATION,
    GB,
    Breakdown,
    activation_bytes,
)
from sagelaunch.recommend.workload import Workload

OFFLOADS = ("none", "optimizer", "all")
BUFFER_FACTOR = 1.5  # DeepSpeed's additional_buffer_factor for host memory

# Host <-> GPU: each GPU's PCIe x16 link, each direction (PCI-SIG: 15.75 GB/s for Gen3, 31.5 for
# Gen4, 63 for Gen5), at the 80% of it copies reach (the share comms.py takes of every link)
PCIE_GB_PER_S = {"V100": 12.6, "T4": 12.6, "H100": 50.4, "H200": 50.4}
PCIE_DEFAULT_GB_PER_S = 25.2  # Gen4: A100, A10G, L4


@dataclass(frozen=True)
class Zero:
    stage: int  # 1, 2 or 3
    offload: str = "none"  # none | optimizer | all (all: ZeRO-3 only)

    def describe(self) -> str:
        where = {
            "none": "",
            "optimizer": ", optimizer on CPU",
            "all": ", optimizer and weights on CPU",
        }
        return f"DeepSpeed ZeRO-{self.stage}{where[self.offload]}"


def largest_layer_params(workload: Workload) -> int:
    """The largest single module's weights: the token embedding (vocab × h) or an MLP linear
    (4h × h), as DeepSpeed's model_to_params counts a module's own parameters."""
    h = workload.shape.hidden
    return max(workload.vocab * h, 4 * h * h)


def model_states_bytes(
    params: float, largest: float, zero: Zero, gpus_per_node: int, nodes: int
) -> tuple[float, float, float]:
    """(16-bit weights, gradients, optimizer states) bytes on one GPU."""
    n = gpus_per_node * nodes
    if zero.stage == 1:
        return 2 * params, 2 * params + 4 * params / n, 12 * params / n
    if zero.stage == 2:
        if zero.offload != "none":
            return 2 * params, 0.0, 0.0
        return 2 * params, 6 * params / n, 12 * params / n
    gathered = 2 * largest  # one layer's 16-bit weights ... and its 16-bit gradients
    if zero.offload == "all":
        return gathered, gathered, 0.0
    if zero.offload == "optimizer":
        return gathered + 2 * params / n, gathered, 0.0
    return gathered + 2 * params / n, gathered + 4 * params / n, 12 * params / n


def host_bytes(params: float, largest: float, zero: Zero, gpus_per_node: int, nodes: int) -> float:
    """Host memory per node for the model states (DeepSpeed's cpu_mem, zero_init for ZeRO-3)."""
    if zero.stage == 3:
        per_param = {"none": 0.0, "optimizer": 16.0, "all": 18.0}[zero.offload]
        if zero.offload == "none":
            return largest * 4 * gpus_per_node * BUFFER_FACTOR
        return params * per_param / nodes * BUFFER_FACTOR
    if zero.offload != "none":
        return params * max(4 * gpus_per_node * nodes, 16) * BUFFER_FACTOR
    return params * 4 * gpus_per_node * BUFFER_FACTOR


def per_device(workload: Workload, zero: Zero, gpus_per_node: int, nodes: int) -> Breakdown:
    """What one GPU holds at peak under ZeRO (the same activations and overhead as memory.py)."""
    weights, gradients, optimizer = model_states_bytes(
        workload.params, largest_layer_params(workload), zero, gpus_per_node, nodes
    )
    activations = activation_bytes(workload)
    tensors = weights + gradients + optimizer + activations
    overhead = FIXED_OVERHEAD_GB * GB + FRAGMENTATION * tensors
    return Breakdown(weights / GB, gradients / GB, optimizer / GB, activations / GB, overhead / GB)


def deepspeed_config(zero: Zero, micro_batch: int, precision: str) -> dict[str, Any]:
    """A DeepSpeed JSON config for the layout (train_pytorch.py --deepspeed_config reads it;
    "auto" values are filled from its hyperparameters)."""
    section: dict[str, Any] = {"stage": zero.stage, "overlap_comm": True}
    if zero.offload in ("optimizer", "all"):
        section["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
    if zero.offload == "all":
        section["offload_param"] = {"device": "cpu", "pin_memory": True}
    if zero.stage == 3:
        section["stage3_gather_16bit_weights_on_model_save"] = True
    return {
        "train_micro_batch_size_per_gpu": micro_batch,
        "gradient_accumulation_steps": "auto",
        "gradient_clipping": "auto",
        "bf16": {"enabled": precision in ("bf16", "fp8")},
        "zero_optimization": section,
    }


def pcie_bytes_per_gpu(params: float, zero: Zero, gpus: int, micro_batches: int = 1) -> float:
    """Bytes one GPU moves over PCIe in an optimizer step under ZeRO-3 offload: its shard of the
    16-bit gradients down each micro-batch, of the updated 16-bit weights up once a step; with
    the weights offloaded too, its shard of them up for the forward and again for the backward
    of each micro-batch."""
    if zero.offload == "none":
        return 0.0
    shard = 2 * params / gpus
    moved = shard * micro_batches + shard
    if zero.offload == "all":
        moved += 2 * shard * micro_batches
    return moved


def pcie_bytes_per_s(accelerator: str) -> float:
    return PCIE_GB_PER_S.get(accelerator, PCIE_DEFAULT_GB_PER_S) * 1e9

"""A roofline estimate of one training step per layout, and tokens/s per dollar from it.

Each rank's step takes the longer of its compute (training FLOPs at the accelerator's published
dense bf16 peak, instances.json `bf16_tflops`) and its memory traffic (bytes at the published HBM
bandwidth, `hbm_gb_per_s`); collectives are not counted, so layouts that communicate more (FSDP
over many instances, TP across slow links) are flattered. A pipeline adds its 1F1B bubble with
two micro-batches per stage. Peak figures: real steps reach perhaps 40-60% of them, the same
fraction for every layout, so the ranking holds where the absolute figure does not.
"""

from __future__ import annotations

from dataclasses import dataclass

from sagelaunch.config import facts
from sagelaunch.recommend.memory import Sharding, compute_bytes, local_params, state_bytes
from sagelaunch.recommend.workload import Workload

RECOMPUTE = 4 / 3  # checkpointing runs each forward twice: 8 of 6 units of 2N FLOPs per token


@dataclass(frozen=True)
class StepTime:
    seconds: float
    compute_s: float
    memory_s: float
    tokens_per_s: float  # the whole job
    tokens_per_dollar: float | None  # None: price unknown

    def as_json(self) -> dict[str, float | None]:
        per_dollar = self.tokens_per_dollar
        return {
            "step_s": round(self.seconds, 4),
            "compute_s": round(self.compute_s, 4),
            "memory_s": round(self.memory_s, 4),
            "tokens_per_s": round(self.tokens_per_s),
            "tokens_per_dollar": round(per_dollar) if per_dollar is not None else None,
        }


def step_flops(workload: Workload, sharding: Sharding) -> float:
    """One rank's FLOPs per step: 6N + 12·L·h·s per token (PaLM, App. B), split by TP and PP."""
    shape = workload.shape
    per_token = 6 * workload.params + 12 * shape.layers * shape.hidden * workload.seq_len
    if workload.activation_checkpointing:
        per_token *= RECOMPUTE
    tokens = workload.seq_len * workload.micro_batch
    return per_token * tokens / (sharding.tensor_parallel * sharding.pipeline_parallel)


def step_bytes(workload: Workload, sharding: Sharding) -> float:
    """One rank's HBM traffic per step: the weights read in forward and twice in backward (in
    the compute dtype), and the optimizer reading and writing its shard of every state."""
    local = local_params(workload, sharding)
    weights = 3 * local * compute_bytes(workload)
    optimizer = 2 * local * sum(state_bytes(workload)) / sharding.optimizer_over
    return weights + optimizer


def estimate(workload: Workload, sharding: Sharding, instance_type: str, count: int) -> StepTime:
    known = facts.instance(instance_type) or {}
    ranks = facts.accelerators_per_host(instance_type)
    per_rank = known.get("accelerators", 1) / ranks  # a NeuronCore's share of its chip
    compute = step_flops(workload, sharding) / ((known.get("bf16_tflops") or 1) * 1e12 * per_rank)
    memory = step_bytes(workload, sharding) / ((known.get("hbm_gb_per_s") or 1) * 1e9 * per_rank)
    p = sharding.pipeline_parallel
    seconds = max(compute, memory) * (1 + (p - 1) / (2 * p))
    replicas = ranks * count / (sharding.tensor_parallel * p)
    tokens_per_s = replicas * workload.seq_len * workload.micro_batch / seconds
    price = facts.hourly_price(instance_type)
    per_dollar = tokens_per_s * 3600 / (price * count) if price else None
    return StepTime(seconds, compute, memory, tokens_per_s, per_dollar)

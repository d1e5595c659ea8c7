"""A roofline estimate of one training step per layout, and tokens/s per dollar from it.

Each operator of a rank's step takes its own roofline, as in torch's RuntimeEstimator: a matmul
the longer of its FLOPs at the accelerator's published dense bf16 peak (instances.json
`bf16_tflops`) and its bytes at the published HBM bandwidth (`hbm_gb_per_s`), every other
operator its bytes. The bytes are those of the entry point's eager PyTorch step, every read and
write of every kernel as RuntimeEstimator counts them: per element of the blocks' activations,
per logit and per parameter (the optimizer's unfused AdamW and autocast's casts).
tests/recommend/test_oracle.py holds the FLOPs against FlopCounterMode and the bytes and the step
against RuntimeEstimator, on fake tensors. Collectives are not counted, so
layouts that communicate more (FSDP over many instances, TP across slow links) are flattered; a
pipeline adds its 1F1B bubble with two micro-batches per stage. Real steps reach a fraction of
the peaks, about the same for every layout, so the ranking holds where the absolute figure
does not.
"""

from __future__ import annotations

from dataclasses import dataclass

from sagelaunch.config import facts
from sagelaunch.recommend.memory import Sharding, local_params
from sagelaunch.recommend.workload import Workload

RECOMPUTE = 4 / 3  # checkpointing runs each forward twice: 8 of 6 units of 2N FLOPs per token
# Bytes moved per step, eager PyTorch, fitted to RuntimeEstimator's per-operator count on the
# entry point's GPT (bf16 autocast, AdamW): per block activation element (layer x token x h),
# per logit (token x vocab) and per parameter.
BYTES_PER_ACTIVATION = 1045
BYTES_PER_LOGIT = 136
BYTES_PER_PARAM = 142


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
    """One rank's FLOPs per step: 6 per weight of a matmul (embedding lookups have none) and
    12·L·h·s of attention per token (PaLM, App. B), split by TP and PP."""
    return (matmul_flops(workload) + attention_flops(workload)) / _model_split(sharding)


def matmul_flops(workload: Workload) -> float:
    """Checkpointing recomputes the blocks' forward, not the head's."""
    head = workload.vocab * workload.shape.hidden
    blocks = workload.params - workload.embedding_params
    return 6 * (blocks * _recompute(workload) + head) * _tokens(workload)


def attention_flops(workload: Workload) -> float:
    shape = workload.shape
    per_token = 12 * shape.layers * shape.hidden * workload.seq_len
    return per_token * _tokens(workload) * _recompute(workload)


def step_bytes(workload: Workload, sharding: Sharding) -> float:
    """One rank's HBM traffic per step (see BYTES_PER_*)."""
    shape = workload.shape
    activations = shape.layers * _tokens(workload) * shape.hidden * _recompute(workload)
    logits = _tokens(workload) * workload.vocab if sharding.pipeline_parallel == 1 else 0
    return (
        BYTES_PER_ACTIVATION * activations / _model_split(sharding)
        + BYTES_PER_LOGIT * logits
        + BYTES_PER_PARAM * local_params(workload, sharding) / sharding.weights_over
    )


def matmul_bytes(workload: Workload, sharding: Sharding) -> float:
    """The matmuls' own share of step_bytes: per block and token, forward reads 9h and writes
    9h elements (q, k, v, proj and the two MLP linears), backward reads and writes twice that;
    the head reads and writes about 3 × vocab."""
    shape, width = workload.shape, 4 if workload.precision == "fp32" else 2
    blocks = 54 * shape.layers * shape.hidden * _recompute(workload) / _model_split(sharding)
    head = 3 * workload.vocab if sharding.pipeline_parallel == 1 else 0
    return width * (blocks + head) * _tokens(workload)


def rank_step(
    workload: Workload, sharding: Sharding, flops_per_s: float, bytes_per_s: float
) -> tuple[float, float, float]:
    """(compute, memory, step) seconds of one rank. Each eager operator takes its own roofline:
    a matmul the longer of its FLOPs and its traffic, every other operator its traffic."""
    compute = step_flops(workload, sharding) / flops_per_s
    memory = step_bytes(workload, sharding) / bytes_per_s
    matmuls = matmul_bytes(workload, sharding) / bytes_per_s
    return compute, memory, max(compute, matmuls) + memory - matmuls


def _tokens(workload: Workload) -> int:
    return workload.seq_len * workload.micro_batch


def _recompute(workload: Workload) -> float:
    return RECOMPUTE if workload.activation_checkpointing else 1.0


def _model_split(sharding: Sharding) -> int:
    return sharding.tensor_parallel * sharding.pipeline_parallel


def estimate(workload: Workload, sharding: Sharding, instance_type: str, count: int) -> StepTime:
    known = facts.instance(instance_type) or {}
    ranks = facts.accelerators_per_host(instance_type)
    per_rank = known.get("accelerators", 1) / ranks  # a NeuronCore's share of its chip
    compute, memory, seconds = rank_step(
        workload,
        sharding,
        (known.get("bf16_tflops") or 1) * 1e12 * per_rank,
        (known.get("hbm_gb_per_s") or 1) * 1e9 * per_rank,
    )
    p = sharding.pipeline_parallel
    seconds *= 1 + (p - 1) / (2 * p)  # the 1F1B bubble, two micro-batches per stage
    replicas = ranks * count / (sharding.tensor_parallel * p)
    tokens_per_s = replicas * workload.seq_len * workload.micro_batch / seconds
    price = facts.hourly_price(instance_type)
    per_dollar = tokens_per_s * 3600 / (price * count) if price else None
    return StepTime(seconds, compute, memory, tokens_per_s, per_dollar)

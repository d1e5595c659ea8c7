"""The step time of one layout, and tokens/s per dollar from it.

Two models live here. `rank_step` is the eager roofline held against torch's RuntimeEstimator on
fake tensors (below). `step` is the step as it runs on a cluster, held against published
measured throughputs (tests/recommend/test_calibration.py, docs/recommend.md): matmuls at an
achieved-efficiency curve (fp8 ones at the fp8 peak), FlashAttention at its own (unfused
attention: every score at the matmuls' rate, and through HBM), every other kernel by its HBM
traffic (eager, fused or compiled), the optimizer once per step, exposed communication
(comms.py) and the 1F1B bubble.

The roofline:

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

from dataclasses import dataclass, replace
from typing import NamedTuple

from sagelaunch.catalog import prices
from sagelaunch.recommend import hardware
from sagelaunch.recommend.comms import step_comms
from sagelaunch.recommend.memory import Sharding, local_params, rank_block_params, stage_share
from sagelaunch.recommend.workload import Shape, Workload

RECOMPUTE = 4 / 3  # checkpointing runs each forward twice: 8 of 6 units of 2N FLOPs per token
# Bytes moved per step, eager PyTorch, fitted to RuntimeEstimator's per-operator count on the
# entry point's GPT (bf16 autocast, AdamW): per block activation element (layer x token x h),
# per logit (token x vocab) and per parameter.
BYTES_PER_ACTIVATION = 1045
BYTES_PER_LOGIT = 136
BYTES_PER_PARAM = 142


@dataclass(frozen=True)
class StepTime:
    """One optimizer step of one rank: exposed compute, exposed communication and memory traffic
    (each summed over the step's micro-batches), the pipeline bubble and the optimizer."""

    seconds: float
    compute_s: float  # matmuls and attention at the achieved efficiency
    memory_s: float  # every other kernel's HBM traffic, and the optimizer step
    tokens_per_s: float  # the whole job
    tokens_per_dollar: float | None  # None: price unknown
    communication_s: float = 0.0  # exposed: what compute does not hide
    communication_total_s: float = 0.0  # every collective, hidden or not
    bubble_s: float = 0.0  # pipeline fill and drain
    link: str = "none"  # where the data-parallel collectives run
    micro_batches: int = 1  # per optimizer step on each data-parallel rank
    global_batch: int = 0  # sequences per optimizer step over every data-parallel rank

    @property
    def dominant(self) -> str:
        """The largest term: compute, communication, memory or bubble."""
        terms = {
            "compute": self.compute_s,
            "communication": self.communication_s,
            "memory": self.memory_s,
            "bubble": self.bubble_s,
        }
        return max(terms, key=lambda name: terms[name])

    def as_json(self) -> dict[str, object]:
        per_dollar = self.tokens_per_dollar
        return {
            "step_s": round(self.seconds, 4),
            "compute_s": round(self.compute_s, 4),
            "communication_s": round(self.communication_s, 4),
            "communication_total_s": round(self.communication_total_s, 4),
            "memory_s": round(self.memory_s, 4),
            "bubble_s": round(self.bubble_s, 4),
            "dominant": self.dominant,
            "data_parallel_link": self.link,
            "micro_batches": self.micro_batches,
            "global_batch": self.global_batch,
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


# --- the step as it runs: achieved efficiency, communication, the optimizer once ---------------

# Matmul efficiency (share of the dense peak a GEMM reaches) by accelerator: the ceiling for
# large GEMMs and the per-rank width (hidden / TP) at which half of it is reached. cuBLAS on
# A100 reaches about 80% of 312 TFLOPS on large bf16 GEMMs, H100 SXM about 70% of 989 (NVIDIA's
# and torchtitan's microbenchmarks); narrower GEMMs (small models, high TP) reach less.
MATMUL_EFFICIENCY: dict[str, tuple[float, float]] = {
    "A100": (0.80, 128),
    "H100": (0.70, 256),
    "H200": (0.72, 256),
    "V100": (0.75, 128),
    "A10G": (0.70, 128),
    "T4": (0.60, 128),
    "Trainium": (0.75, 256),
    "Trainium2": (0.70, 512),
}
DEFAULT_MATMUL_EFFICIENCY = (0.70, 256)
FP8_EFFICIENCY = 0.55  # of the fp8 peak: scaling and casts around each fp8 GEMM (torchao, TE)
# FlashAttention-2's share of the peak, forward and backward together (a backward of 2.5 times
# the forward's FLOPs). A100: ~55% (the FA2 paper's 50-73%). H100/H200: 32%, from the
# FlashAttention-3 paper's benchmarks of FA2 on H100 SXM (causal forward 298-333 TFLOPS,
# backward 291-318, head dim 128, 2k-8k tokens: 293-322 together, 0.30-0.33 of 989). It was 0.40,
# fitted with the rest; the published figure also brings the attention-heavy rows closer.
ATTENTION_EFFICIENCY: dict[str, float] = {"A100": 0.55, "H100": 0.32, "H200": 0.32}
DEFAULT_ATTENTION_EFFICIENCY = 0.45
# cuDNN's fused attention against FlashAttention-2 on Hopper, causal forward with backward at
# head dim 128 and 2k-8k tokens, in one harness (Shah et al. 2024, FlashAttention-3, figs. 5-6:
# FA2 298-333 TFLOPS forward, 291-318 backward; cuDNN 484-529 and 465-518): 1.6 times the rate.
# Transformer Engine (so Megatron-Core and NeMo) runs cuDNN's kernel on Hopper whenever both can
# (transformer_engine/pytorch/attention: "Disabling FlashAttention to give FusedAttention
# preference on Hopper+", since TE 1.7).
CUDNN_ATTENTION_SPEEDUP: dict[str, float] = {"H100": 1.6, "H200": 1.6}
HBM_EFFICIENCY = 0.85  # what streaming kernels reach of the published HBM bandwidth
# Unfused attention (Megatron's CoreAttention: baddbmm, scale-mask-softmax, dropout, bmm) moves
# each score element of each head through HBM, each tensor autograd keeps written once and read
# once per use, bf16: forward, the scores written and read by the softmax (2 + 2), the
# probabilities written and read by the bmm (2 + 2); backward, their gradient written and read by
# the softmax's backward (2 + 2), the probabilities read by it and by the bmm's weight gradient
# (2 + 2), the scores' gradient written and read by both of the baddbmm's gradients (2 + 4).
# Dropout on the probabilities adds its mask (1) and its output (2), read by the bmm instead,
# forward, and the mask read again backward (1). Counted from CoreAttention in
# megatron/model/transformer.py (aws-neuron-reference-for-megatron-lm at 868d46c;
# neuronx-nemo-megatron's copy before its 2.19 flash kernel, 200cf63).
UNFUSED_SCORE_BYTES_FORWARD = 8
UNFUSED_SCORE_BYTES_BACKWARD = 14
DROPOUT_SCORE_BYTES_FORWARD = 3
DROPOUT_SCORE_BYTES_BACKWARD = 1
# Every non-matmul kernel's traffic per block activation element (layer x token x h): eager
# PyTorch as fitted to RuntimeEstimator (BYTES_PER_ACTIVATION less the matmuls' own 2 x 54);
# a framework's fused kernels (llm-foundry: fitted on its MPT rows), torch.compile and XLA on
# Neuron (fitted on torchtitan's and Neuron's) fuse norms, activations, casts and residual adds
# into less than half of that; Megatron-Core with Transformer Engine, which also fuses each norm
# and fp8 cast into its linear, bias-dropout-add, RoPE and the vocabulary-parallel loss, into
# less still (fitted on its 8 rows in megatron_throughput.json on a 0.05 grid, median error
# 4.3%; checked on holdout_throughput.json's).
NONMATMUL_BYTES = {
    "eager": BYTES_PER_ACTIVATION - 108,
    "fused": 0.45 * (BYTES_PER_ACTIVATION - 108),
    "compiled": 0.40 * (BYTES_PER_ACTIVATION - 108),
    "megatron": 0.25 * (BYTES_PER_ACTIVATION - 108),
}
# The optimizer step per local parameter: unfused AdamW with autocast's casts (eager, fitted as
# above) or a fused/foreach AdamW over fp32 states (read p, g, m, v; write p, m, v).
OPTIMIZER_BYTES = {"eager": BYTES_PER_PARAM, "fused": 32, "compiled": 32, "megatron": 32}


def matmul_efficiency(accelerator: str, width: float) -> float:
    ceiling, half = MATMUL_EFFICIENCY.get(accelerator, DEFAULT_MATMUL_EFFICIENCY)
    return ceiling * width / (width + half)


def attention_efficiency(accelerator: str, kernel: str = "flash") -> float:
    """The attention kernel's share of the bf16 peak, forward and backward together."""
    flash = ATTENTION_EFFICIENCY.get(accelerator, DEFAULT_ATTENTION_EFFICIENCY)
    return flash * (CUDNN_ATTENTION_SPEEDUP.get(accelerator, 1.0) if kernel == "cudnn" else 1.0)


@dataclass(frozen=True)
class MicroBatch:
    """One micro-batch of one rank, in seconds."""

    forward_s: float
    backward_s: float  # with the recomputed forward under checkpointing
    memory_s: float


def recomputed_matmul_share(shape: Shape) -> float:
    """The share of a block's matmul FLOPs that torchtitan's per-op selective checkpointing runs
    again in backward: every second matmul, counted from the first (k, the projection and, in a
    gated block, the MLP's up projection), but not the block's last: its output feeds only the
    residual add, whose backward needs no input, and torch's checkpoint stops recomputing once
    backward has what it needs (its default early stop, which torchtitan kept)."""
    flops = [linear.inputs * linear.outputs for linear in shape.linears()]
    return sum(flops[1:-1:2]) / sum(flops)


def micro_batch(workload: Workload, sharding: Sharding, hw: hardware.Hardware) -> MicroBatch:
    """Matmuls at the efficiency curve (fp8 ones at the fp8 peak), attention by its kernel
    (`_attention`), every other kernel by its traffic."""
    shape, tokens = workload.shape, _tokens(workload)
    tp = sharding.tensor_parallel
    head_split = tp if sharding.vocab_parallel else 1
    # the busiest stage's blocks pace the pipeline
    blocks = rank_block_params(workload, sharding, workload.params - workload.embedding_params)
    head = workload.vocab * shape.hidden / head_split
    eff = matmul_efficiency(hw.accelerator, shape.hidden / tp)
    block_rate = hw.bf16_flops * eff
    if workload.precision == "fp8":
        block_rate = max(block_rate, hw.fp8_flops * FP8_EFFICIENCY)
    head_rate = hw.bf16_flops * eff
    if workload.precision == "fp32":
        block_rate = head_rate = hw.bf16_flops * eff / 2  # TF32 tensor cores at half bf16 rate
    attention = _attention(workload, sharding, hw, head_rate)
    attention_traffic = attention.forward_traffic_s + attention.backward_traffic_s
    matmul = 2 * blocks * tokens / block_rate
    forward = matmul + attention.forward_s + 2 * head * tokens / head_rate
    backward = 2 * matmul + attention.backward_s + 4 * head * tokens / head_rate
    if workload.full_checkpointing:
        backward += matmul + attention.forward_s
        attention_traffic += attention.forward_traffic_s
    elif workload.op_checkpointing:
        backward += recomputed_matmul_share(shape) * matmul
    elif workload.checkpoints_selectively and not workload.fused_attention:
        # Megatron's selective recompute: the core attention, the scores' traffic with it
        backward += attention.forward_s
        attention_traffic += attention.forward_traffic_s
    kind = workload.kernels
    replicated = tp if sharding.sequence_parallel or not sharding.eager_autocast else 1
    elements = shape.layers * stage_share(workload, sharding) * tokens * shape.hidden / replicated
    if workload.full_checkpointing or workload.op_checkpointing:
        elements *= RECOMPUTE  # the per-op policy recomputes every elementwise op too
    logits = tokens * workload.vocab / head_split  # the last stage computes them
    traffic = NONMATMUL_BYTES[kind] * elements + BYTES_PER_LOGIT * logits
    memory = traffic / (hw.hbm_bytes_per_s * HBM_EFFICIENCY) + attention_traffic
    return MicroBatch(forward, backward, memory)


class _Attention(NamedTuple):
    """One micro-batch's attention on one rank: its kernels' seconds, and the seconds of score
    traffic an unfused attention adds (memory time), forward and backward."""

    forward_s: float
    backward_s: float
    forward_traffic_s: float = 0.0
    backward_traffic_s: float = 0.0


def _attention(
    workload: Workload, sharding: Sharding, hw: hardware.Hardware, matmul_rate: float
) -> _Attention:
    """A fused kernel computes the causal half, 2·s·h FLOPs per token and block forward and 2.5
    times that backward (FA2), at its measured rate. Unfused attention computes every score
    (4·s·h forward, twice that backward) in batched matmuls at `matmul_rate`, the block's bf16 (or
    TF32) rate: they are as long as the sequence in two of their three dimensions, not narrow
    linears (the curve at one head's width was the other reading). It moves the scores through
    memory (UNFUSED_SCORE_BYTES_*)."""
    shape, tokens = workload.shape, _tokens(workload)
    layers = shape.layers * stage_share(workload, sharding)
    per_block = layers * shape.hidden * workload.seq_len / sharding.tensor_parallel * tokens
    if workload.fused_attention:
        rate = hw.bf16_flops * attention_efficiency(hw.accelerator, workload.attention)
        return _Attention(2 * per_block / rate, 2.5 * 2 * per_block / rate)
    scores = per_block / shape.hidden * shape.heads  # layers x heads x s x tokens, this rank's
    forward, backward = UNFUSED_SCORE_BYTES_FORWARD, UNFUSED_SCORE_BYTES_BACKWARD
    if workload.attention_dropout:
        forward += DROPOUT_SCORE_BYTES_FORWARD
        backward += DROPOUT_SCORE_BYTES_BACKWARD
    hbm = hw.hbm_bytes_per_s * HBM_EFFICIENCY
    return _Attention(
        4 * per_block / matmul_rate,
        8 * per_block / matmul_rate,
        forward * scores / hbm,
        backward * scores / hbm,
    )


def microbatches(workload: Workload, pipeline_parallel: int, replicas: int) -> int:
    """Micro-batches per optimizer step on each of `replicas` data-parallel ranks: what
    --global-batch leaves each (rounded up), else --grad-accum's and a pipeline at least two per
    stage (what --emit-config writes as the entry point's --grad_accum or --microbatches)."""
    if workload.global_batch:
        return max(1, -(-workload.global_batch // (workload.micro_batch * replicas)))
    if pipeline_parallel == 1:
        return workload.grad_accum
    return max(workload.grad_accum, 2 * pipeline_parallel)


def step(workload: Workload, sharding: Sharding, hw: hardware.Hardware, instances: int) -> StepTime:
    """One optimizer step: grad_accum micro-batches (a pipeline's micro-batches), then the
    optimizer once; exposed communication and the 1F1B bubble on top."""
    micro = micro_batch(workload, sharding, hw)
    world = hw.ranks_per_host * instances
    p = sharding.pipeline_parallel
    replicas = world // (sharding.tensor_parallel * p)
    n = microbatches(workload, p, replicas)
    if n != workload.grad_accum:
        workload = replace(workload, grad_accum=n)
    comms = step_comms(workload, sharding, hw, world, micro.forward_s, micro.backward_s)
    compute = n * (micro.forward_s + micro.backward_s)
    kind = workload.kernels
    optimizer_over = max(sharding.optimizer_over, 1)
    # full BF16 (stochastic rounding) reads and writes bf16 states: half the fp32 traffic
    states = 0.5 if sharding.stochastic_rounding else 1.0
    optimizer = (
        states
        * OPTIMIZER_BYTES[kind]
        * local_params(workload, sharding)
        / optimizer_over
        / (hw.hbm_bytes_per_s * HBM_EFFICIENCY)
    )
    memory = n * micro.memory_s + optimizer
    per_micro = micro.forward_s + micro.backward_s + micro.memory_s
    # the 1F1B bubble: p - 1 micro-batches of fill and drain, each a chunk of 1/v under interleaving
    bubble = (p - 1) * per_micro / max(sharding.pipeline_interleave, 1) if p > 1 else 0.0
    seconds = compute + memory + comms.exposed_s + bubble
    tokens_per_s = replicas * n * _tokens(workload) / seconds
    return StepTime(
        seconds,
        compute,
        memory,
        tokens_per_s,
        None,
        communication_s=comms.exposed_s,
        communication_total_s=comms.total_s,
        bubble_s=bubble,
        link=comms.link,
        micro_batches=n,
        global_batch=replicas * n * workload.micro_batch,
    )


def estimate(workload: Workload, sharding: Sharding, hw: hardware.Hardware, count: int) -> StepTime:
    """The step on `count` instances of `hw`'s type, and tokens per dollar from its price."""
    timed = step(workload, sharding, hw, count)
    price = prices.hourly_price(hw.instance_type)
    per_dollar = timed.tokens_per_s * 3600 / (price * count) if price else None
    return replace(timed, tokens_per_dollar=per_dollar)

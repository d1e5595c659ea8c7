"""The memory model and step time of a planned job, read back from the hyperparameters of
train_pytorch.py's GPT, so `plan` can show them beside the cost.

Only for the shape `recommend --emit-config` writes (model gpt with n_layer, n_head, n_embd,
seq_len, vocab_size and batch_size all given): the entry point's own defaults for the rest are
its business, and a guess would be worse than no figure. DeepSpeed ZeRO jobs are left out
(their memory follows DeepSpeed's engine, see zero.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from sagelaunch.catalog import facts
from sagelaunch.hyperparameters import decode_hyperparameters
from sagelaunch.recommend.hardware import accelerator_memory_gb, for_instance
from sagelaunch.recommend.memory import Breakdown, Sharding, distributed_optimizer, per_device
from sagelaunch.recommend.steptime import StepTime, estimate
from sagelaunch.recommend.workload import Shape, Workload

ENTRY_POINT = "train_pytorch.py"
SHAPE_KEYS = ("n_layer", "n_head", "n_embd", "seq_len", "vocab_size", "batch_size")


@dataclass(frozen=True)
class JobFigures:
    memory: Breakdown
    device_memory_gb: float
    speed: StepTime


def job_figures(
    hyperparameters: dict[str, str], instance_type: str, hosts: int
) -> JobFigures | None:
    """What one rank holds and how fast a step runs; None where the model does not apply."""
    hp = decode_hyperparameters(hyperparameters)
    known = facts.instance(instance_type)
    if not _applies(hp) or not known or known["kind"] != "gpu":
        return None
    workload = _workload(hp)
    ranks = facts.accelerators_per_host(instance_type)
    sharding = _sharding(hp, ranks * hosts, ranks)
    return JobFigures(
        memory=per_device(workload, sharding),
        device_memory_gb=round(accelerator_memory_gb(known), 1),
        speed=estimate(workload, sharding, for_instance(instance_type), hosts),
    )


def _applies(hp: dict[str, object]) -> bool:
    return (
        hp.get("sagemaker_program") == ENTRY_POINT
        and hp.get("model") == "gpt"
        and all(isinstance(hp.get(key), int) for key in SHAPE_KEYS)
        and not hp.get("zero_stage")
        and not hp.get("deepspeed_config")
    )


def _workload(hp: dict) -> Workload:
    layers, heads, hidden = hp["n_layer"], hp["n_head"], hp["n_embd"]
    seq_len, vocab = hp["seq_len"], hp["vocab_size"]
    # a pipeline cuts --batch_size into --microbatches (default: one per stage, torch_config)
    pp = int(hp.get("pipeline_parallel_degree", 1))
    stages = pp * int(hp.get("stages_per_rank", 1))
    micro = int(hp.get("microbatches") or stages) if pp > 1 else 1
    steps = micro if pp > 1 else int(hp.get("grad_accum", 1))
    # the entry point's GPT: 12h² + 13h per block, embeddings, untied head and final norm
    params = layers * (12 * hidden**2 + 13 * hidden) + (2 * vocab + seq_len + 2) * hidden
    return Workload(
        params=params,
        shape=Shape(layers, hidden, heads, estimated=False),
        seq_len=seq_len,
        micro_batch=max(hp["batch_size"] // micro, 1),
        grad_accum=steps,
        precision=_precision(hp),
        activation_checkpointing=bool(hp.get("activation_checkpointing")),
        activation_offload=bool(hp.get("activation_offload")),
        vocab=vocab,
        kernels="compiled" if hp.get("compile") else "eager",
    )


def _precision(hp: dict) -> str:
    """The entry point's --precision as the model names it (fp8 is not one of its choices)."""
    return "fp32" if hp.get("precision") == "fp32" else "bf16"


def _sharding(hp: dict, world: int, per_host: int) -> Sharding:
    """The mesh as train_pytorch.py resolves it (torch_mesh.resolve): TP and PP from its own
    flags (an SMP tensor_parallel_degree does not split its GPT: it never calls
    torch.sagemaker.transform), the data-parallel rest replicated (DDP), sharded, or under
    --sharding hybrid in shard groups of SMP's hybrid_shard_degree, else of one host's ranks."""
    tp = int(hp.get("tensor_parallel_degree", 1))
    pp = int(hp.get("pipeline_parallel_degree", 1))
    sp = tp > 1 and bool(hp.get("sequence_parallel"))
    interleaved = hp.get("pipeline_schedule") == "interleaved_1f1b"
    chunks = int(hp.get("stages_per_rank", 1)) if interleaved else 1
    split = {
        "sequence_parallel": sp,
        "sequence_parallel_gathers": sp,
        "pipeline_interleave": chunks,
        "loss_parallel": tp > 1 and bool(hp.get("loss_parallel")),
    }
    dp = max(world // (tp * pp), 1)
    if hp.get("parallel") != "fsdp":
        if hp.get("zero1") and (tp > 1 or pp > 1):  # torch_zero1, bf16 weights under bf16
            zero1 = Sharding(tp, pipeline_parallel=pp, **split)
            return distributed_optimizer(zero1, dp, _precision(hp))
        zero1 = dp if hp.get("zero1") else 1  # ZeroRedundancyOptimizer over fp32 weights
        return Sharding(tp, 1, 1, zero1, pp, **split)
    replicate = int(hp.get("dp_replicate") or 0)
    if not replicate and hp.get("sharding") == "hybrid":
        smp = hp.get("mp_parameters")
        group = (smp.get("hybrid_shard_degree") if isinstance(smp, dict) else None) or per_host
        replicate = max(dp // int(group), 1)
    shard = max(dp // (replicate or 1), 1)
    return Sharding(tp, shard, shard, shard, pp, **split)

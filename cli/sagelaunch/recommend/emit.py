"""A launch config (YAML text) that runs a recommendation with the bundled train_pytorch.py.

Written as text, in the style of the starter templates, so the file keeps its comments and the
command needs no YAML library. Every value is a number, a boolean or a plain word.
"""

from __future__ import annotations

import textwrap

from sagelaunch.config import placeholders
from sagelaunch.recommend.layouts import DEEPSPEED, FSDP, NATIVE_TP, SMP, Candidate
from sagelaunch.recommend.planner import Recommendation
from sagelaunch.recommend.workload import Workload, format_params
from sagelaunch.strategies import smp, torchrun

# train_pytorch.py's FSDP2, TP and PP import what PyTorch 2.6 made public (validate's
# shipped_entry_point_torch_version); 2.8.0 has a torchrun image and an SMP v2 one (the SDK's
# pytorch.json and pytorch-smp.json), so every GPU layout runs on it.
GPU_FRAMEWORK_VERSION = "2.8.0"
NEURON_FRAMEWORK_VERSION = "2.1.2"  # the neuronx training image sagelaunch knows for Trainium


def launch_config(rec: Recommendation, command: str) -> str:
    """The YAML text; `command` is the recommend invocation quoted in the header."""
    chosen = rec.chosen
    trainium = chosen.device.kind == "trainium"
    lines = [
        *_comment(f"Written by `{command}`."),
        *_comment(rec.reason),
        f"name: {_name(rec)}",
        "framework: pytorch",
        "entry_point: train_pytorch.py",
        f'framework_version: "{_framework_version(chosen)}"',
        "# role: arn:aws:iam::<account>:role/<name>   # or leave unset and export SAGELAUNCH_ROLE",
        "# region: us-east-1                           # or --region / $AWS_REGION",
        "compute:",
        f"  instance_type: {chosen.device.instance_type}",
        f"  instance_count: {chosen.instance_count}",
        "  max_run: 1d",
        *_distribution(chosen, rec.workload),
    ]
    if trainium:
        lines.append(f'environment: {{NEURON_RT_NUM_CORES: "{chosen.device.ranks_per_host}"}}')
    missing = not_in_job(rec.workload)
    if missing:
        lines += _comment(
            "Not in this job (train_pytorch.py has no flag for it): "
            + "; ".join(missing)
            + ". `sagelaunch plan` shows this job's own figures."
        )
    lines += ["hyperparameters:", *(f"  {k}: {_scalar(v)}" for k, v in _hyperparameters(rec))]
    lines.append(f"output_path: {placeholders.OUTPUT_PATH}   # change me")
    return "\n".join(lines) + "\n"


def not_in_job(work: Workload) -> list[str]:
    """What recommend planned that the emitted job cannot run: train_pytorch.py trains its own
    GPT (multi-head attention, a 4h GELU MLP, learned positions, an untied head) in bf16 or fp32,
    checkpointing whole blocks."""
    shape, found = work.shape, []
    own = {
        "grouped-query attention": shape.kv_heads not in (None, shape.heads),
        "SwiGLU": shape.gated_mlp,
        f"MLP width {shape.ffn}": not shape.gated_mlp and shape.ffn != 4 * shape.hidden,
        "tied embeddings": shape.tied_embeddings,
        "rotary positions": not shape.learned_positions,
    }
    if any(own.values()):
        kept = ", ".join(name for name, differs in own.items() if differs)
        found.append(f"the model's {kept} (the entry point's GPT of the same depth and width)")
    if work.precision == "fp8":
        found.append("fp8 (bf16 instead)")
    if work.checkpoints_selectively:
        found.append("selective checkpointing (whole blocks instead)")
    return found


def _framework_version(chosen: Candidate) -> str:
    if chosen.device.kind == "trainium":
        return NEURON_FRAMEWORK_VERSION
    return GPU_FRAMEWORK_VERSION


def _name(rec: Recommendation) -> str:
    size = format_params(rec.workload.params).lower().replace(".", "-")
    return f"llm-{size}-{rec.chosen.parallelism}"


def _distribution(chosen: Candidate, work: Workload) -> list[str]:
    if chosen.parallelism != SMP:
        lines = ["distribution:", f"  strategy: {torchrun.NAME}"]
        if chosen.device.kind == "trainium":
            lines[:0] = _comment(_neuron_layout(chosen, work))
        return lines
    degrees = (
        f"hybrid_shard_degree: {chosen.shard_group}, "
        f"tensor_parallel_degree: {chosen.tensor_parallel}"
    )
    return [
        "distribution:",
        f"  strategy: {smp.NAME}",
        "  smp:",
        "    version: 2",
        f"    parameters: {{{degrees}}}",
    ]


def _comment(text: str) -> list[str]:
    return textwrap.wrap(
        text, 98, initial_indent="# ", subsequent_indent="# ", break_on_hyphens=False
    )


def _neuron_layout(chosen: Candidate, work: Workload) -> str:
    sp = chosen.sharding.sequence_parallel and chosen.tensor_parallel > 1
    kv = work.shape.kv_replicas(chosen.tensor_parallel)
    return (
        f"neuronx-distributed layout: tensor_parallel_size={chosen.tensor_parallel}, "
        + (
            f"pipeline_parallel_size={pp}, "
            if (pp := chosen.sharding.pipeline_parallel) > 1
            else ""
        )
        + ("sequence_parallel_enabled=True, " if sp else "")
        + (f"kv_size_multiplier={kv} (the Llama samples' --kv_replicator), " if kv > 1 else "")
        + f"ZeRO-1 {'on' if chosen.sharding.optimizer_over > 1 else 'off'} "
        "(set these in your NxD training script; train_pytorch.py runs plain data parallel)"
    )


def _hyperparameters(rec: Recommendation) -> list[tuple[str, object]]:
    """The entry point's own flags (train_pytorch.py --help), sized like the planned model."""
    work, chosen = rec.workload, rec.chosen
    sharding = chosen.sharding
    sharded = sharding.weights_over > 1 and chosen.parallelism != DEEPSPEED
    fsdp = chosen.parallelism in {FSDP, SMP} or sharded
    # as many micro-batches as the step time counts: a pipeline's out of one batch, else
    # accumulated (--global-batch's share of each data-parallel rank, or --grad-accum's)
    pp = sharding.pipeline_parallel
    steps = chosen.speed(work).micro_batches
    micro = steps if pp > 1 else 1
    params: list[tuple[str, object]] = [
        ("model", "gpt"),
        ("n_layer", work.shape.layers),
        ("n_head", work.shape.heads),
        ("n_embd", work.shape.hidden),
        ("seq_len", work.seq_len),
        ("vocab_size", work.vocab),
        ("batch_size", work.micro_batch * micro),
        ("parallel", "fsdp" if fsdp else "ddp"),
    ]
    if pp == 1 and steps > 1:
        params.append(("grad_accum", steps))
    if chosen.parallelism == FSDP:
        params.append(("sharding", "hybrid" if chosen.hybrid else "full"))
    elif chosen.parallelism == SMP and chosen.hybrid:
        # the entry point shards over SMP's hybrid_shard_degree only under --sharding hybrid
        # (without it, FSDP shards over every GPU of the job)
        params.append(("sharding", "hybrid"))
    if chosen.parallelism == DEEPSPEED:  # DeepSpeed ZeRO replaces FSDP: plain ddp
        params += [("zero_stage", work.zero_stage), *_offloads(work.zero_offload)]
    if chosen.parallelism == NATIVE_TP:  # the entry point's native TP / PP
        params.append(("tensor_parallel_degree", chosen.tensor_parallel))
        if sharding.sequence_parallel:
            params.append(("sequence_parallel", True))
        if sharding.loss_parallel:
            params.append(("loss_parallel", True))
        if pp > 1:
            params += [("pipeline_parallel_degree", pp), ("microbatches", micro)]
        if sharding.optimizer_over > 1 and not sharded:  # Megatron's distributed optimizer
            params.append(("zero1", True))
    params += [
        ("precision", "fp32" if work.precision == "fp32" else "bf16"),
        ("activation_checkpointing", work.activation_checkpointing),
    ]
    if work.kernels == "compiled":  # --compile: the entry point's torch.compile
        params.append(("compile", True))
    if work.activation_offload:  # the entry point's save_on_cpu; absent means off
        params.append(("activation_offload", True))
    return params


def _offloads(offload: str) -> list[tuple[str, object]]:
    found: list[tuple[str, object]] = []
    if offload in ("optimizer", "all"):
        found.append(("offload_optimizer", "cpu"))
    if offload == "all":
        found.append(("offload_params", "cpu"))
    return found


def _scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)

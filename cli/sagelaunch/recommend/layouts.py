"""The ladder of distributed layouts on one instance type, and what each costs per rank.

Simplest first (rule of thumb: fill one instance before adding more; data parallel while a
replica fits; shard when it does not; split layers only when sharding is not enough):

* GPU: DDP -> FSDP sharded within an instance -> SMP v2 hybrid shard over a group of instances
  -> FSDP sharded over every instance -> train_pytorch.py's own tensor parallel (within an
  instance, with sequence parallelism where the sequence splits evenly) + FSDP -> pipeline
  stages across instances x tensor parallel. SMP layouts only where SMP v2 runs (instances.json
  `smp_v2_supported`); SMP v2's own tensor parallelism is not offered (see `_gpu_layouts`).
* Trainium: torchrun with neuronx-distributed: data parallel -> ZeRO-1 (optimizer state sharded)
  -> tensor parallel + ZeRO-1 -> pipeline stages x tensor parallel + ZeRO-1, only where no
  tensor parallel degree fits. Neuron has no FSDP; its sharding is TP and ZeRO-1.

A layout fits when its peak per-rank memory (the allocator's share included) is within the
device's memory (hardware.HEADROOM), in GB of 10^9 bytes as CUDA reports it (an "80 GB" H100:
84.9 GB; see `hardware.accelerator_memory_gb`). Each rank is the catalog's one value for it,
hardware.Hardware.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import NamedTuple

from sagelaunch.catalog import facts
from sagelaunch.errors import UsageError
from sagelaunch.recommend import hardware, steptime, zero
from sagelaunch.recommend.hardware import Hardware
from sagelaunch.recommend.memory import Breakdown, Sharding, distributed_optimizer, per_device
from sagelaunch.recommend.workload import Workload

# Host memory for DeepSpeed's CPU offload: the OS and the data loaders need their share of it.
HOST_HEADROOM = 0.90


def device(instance_type: str) -> Hardware:
    """One rank of an accelerated instance type the recommender can plan for (its catalog entry
    has a compute peak); UsageError else."""
    catalog = facts.catalog()
    known = catalog["instances"].get(instance_type)
    if known is None:
        close = difflib.get_close_matches(instance_type, list(catalog["instances"]), n=3)
        raise UsageError(
            f"unknown instance type {instance_type!r}",
            hint=f"did you mean {' or '.join(close)}?" if close else "e.g. ml.p4d.24xlarge",
        )
    if known["kind"] not in {"gpu", "trainium"}:
        raise UsageError(
            f"{instance_type} has no GPU or Trainium accelerator to plan memory for",
            hint="choose e.g. ml.p4d.24xlarge, ml.p5.48xlarge or ml.trn1.32xlarge",
        )
    if "bf16_tflops" not in known:
        why = known.get("unknown", {}).get("bf16_tflops", "no peak figure is known")
        raise UsageError(
            f"{instance_type}'s compute peak is unknown ({why}): recommend cannot time a step",
            hint="choose a type whose accelerator the catalog has figures for, e.g. "
            "ml.p5.48xlarge or ml.g6e.12xlarge",
        )
    return hardware.for_instance(instance_type)


# How a candidate runs (Candidate.parallelism, "parallelism" in --output json), in recommend's
# own words: the entry point's data parallelism under torchrun (DDP, FSDP, DEEPSPEED), SMP v2's
# hybrid sharding (SMP), the entry point's own tensor and pipeline parallelism (NATIVE_TP),
# torchrun on Trainium (NEURON). Not a config's distribution.strategy (a launcher: torchrun,
# smp): emit.py turns each into one, and into the entry point's flags.
DDP, FSDP, DEEPSPEED, SMP, NATIVE_TP, NEURON = (
    "ddp",
    "fsdp",
    "deepspeed",
    "smp",
    "torchrun",
    "torchrun-neuron",
)


@dataclass(frozen=True)
class Candidate:
    """One layout on a number of instances, with what each rank would hold."""

    parallelism: str  # how it runs: DDP | FSDP | DEEPSPEED | SMP | NATIVE_TP | NEURON
    instance_count: int
    sharding: Sharding
    memory: Breakdown
    device: Hardware
    layout: str  # one line for people, e.g. "FSDP full shard over 16 GPUs"
    family: str  # the rung of the ladder: ddp, fsdp, smp-hybrid, tp8, pp-tp8, dp, zero1, zero1-tp8
    hybrid: bool = False  # shard within a group of instances, replicate across groups

    @property
    def fits(self) -> bool:
        return self.memory.total <= self.device.usable_gb

    @property
    def margin_gb(self) -> float:
        """GB of the accelerator's memory left at peak (negative: over by that much)."""
        return self.device.memory_gb - self.memory.total

    @property
    def shard_group(self) -> int:
        """Ranks the sharded states are split over (1: replicated)."""
        return max(self.sharding.weights_over, self.sharding.optimizer_over)

    @property
    def tensor_parallel(self) -> int:
        return self.sharding.tensor_parallel

    @property
    def short(self) -> str:
        """The layout in a table cell: "replica", "shard 8 ×2", "TP8 SP + shard 11", "PP4 × TP8",
        "PP4 × TP2 SP + ZeRO-1 8" (SP: with sequence parallelism)."""
        sp = " SP" if self.sharding.sequence_parallel else ""
        tp = f"TP{self.tensor_parallel}{sp} + " if self.tensor_parallel > 1 else ""
        if self.sharding.pipeline_parallel > 1:
            zero1 = f" + ZeRO-1 {self.shard_group}" if self.shard_group > 1 else ""
            return f"PP{self.sharding.pipeline_parallel} × TP{self.tensor_parallel}{sp}{zero1}"
        if self.parallelism == DEEPSPEED:
            return f"ZeRO-{self.family.removeprefix('zero')} {self.shard_group}"
        if self.sharding.weights_over > 1:
            world = self.instance_count * self.device.ranks_per_host // self.tensor_parallel
            replicas = f" ×{world // self.shard_group}" if self.hybrid else ""
            return f"{tp}shard {self.shard_group}{replicas}"
        if self.sharding.optimizer_over > 1:
            return f"{tp}ZeRO-1 {self.shard_group}"
        return f"{tp}replica" if not tp else tp.removesuffix(" + ")

    def speed(self, workload: Workload) -> steptime.StepTime:
        """The roofline step time and tokens/s per dollar of this layout."""
        return steptime.estimate(workload, self.sharding, self.device, self.instance_count)

    def verdict(self) -> str:
        total, usable = self.memory.total, self.device.usable_gb
        if self.fits:
            return f"{self.layout}: fits ({total:.1f} of {usable:.1f} GB usable)"
        return f"{self.layout}: does not fit ({total:.1f} GB > {usable:.1f} GB usable)"

    def as_json(self, reason: str | None = None) -> dict[str, object]:
        return {
            "parallelism": self.parallelism,
            "instance_type": self.device.instance_type,
            "instance_count": self.instance_count,
            "tensor_parallel_degree": self.tensor_parallel,
            "pipeline_parallel_degree": self.sharding.pipeline_parallel,
            "sequence_parallel": self.sharding.sequence_parallel,
            "shard_group": self.shard_group,
            "layout": self.layout,
            "per_device_gb": self.memory.as_json(),
            "device_memory_gb": round(self.device.memory_gb, 2),
            "margin_gb": round(self.margin_gb, 2),
            "fits": self.fits,
            "reason": reason or self.verdict(),
        }


def layouts(workload: Workload, dev: Hardware, count: int) -> list[Candidate]:
    """Every layout on `count` instances, simplest first (with a ZeRO stage asked: that one)."""
    if workload.zero_stage and dev.kind == "gpu":
        return [zero_candidate(workload, dev, count)]
    make = _gpu_layouts if dev.kind == "gpu" else _neuron_layouts
    found = [_candidate(workload, dev, count, rung) for rung in make(dev, count, workload)]
    if dev.kind == "trainium" and not any(cand.fits for cand in found):
        found += [
            _candidate(workload, dev, count, rung)
            for rung in _neuron_pipelines(dev, count, workload)
        ]
    return found


def _candidate(workload: Workload, dev: Hardware, count: int, rung: _Rung) -> Candidate:
    return Candidate(
        parallelism=rung.parallelism,
        instance_count=count,
        sharding=rung.sharding,
        memory=per_device(workload, rung.sharding),
        device=dev,
        layout=rung.text,
        family=rung.family,
        hybrid=rung.hybrid,
    )


def zero_candidate(workload: Workload, dev: Hardware, count: int) -> Candidate:
    """DeepSpeed ZeRO over every GPU of the job, launched by torchrun (zero.py's memory)."""
    plan = zero.Zero(workload.zero_stage, workload.zero_offload)
    world = dev.ranks_per_host * count
    stage = workload.zero_stage
    sharding = Sharding(
        weights_over=world if stage == 3 else 1,
        gradients_over=world if stage >= 2 else 1,
        optimizer_over=world,
    )
    return Candidate(
        parallelism=DEEPSPEED,
        instance_count=count,
        sharding=sharding,
        memory=zero.per_device(workload, plan, dev.ranks_per_host, count),
        device=dev,
        layout=f"{plan.describe()} over {world} GPUs",
        family=f"zero{stage}",
    )


class _Rung(NamedTuple):
    parallelism: str
    family: str
    sharding: Sharding
    text: str
    hybrid: bool = False


def _sharded(over: int) -> Sharding:
    return Sharding(weights_over=over, gradients_over=over, optimizer_over=over)


def _gpu_layouts(dev: Hardware, count: int, workload: Workload) -> Iterator[_Rung]:
    """The GPU ladder. SMP v2 hybrid sharding, but not SMP v2's tensor parallelism: that splits
    only models torch.sagemaker.transform() rewrites, which train_pytorch.py (what --emit-config
    runs) never calls, so an SMP tensor_parallel_degree leaves its GPT unsplit; the entry point's
    own TP (a DTensor plan, with sequence parallelism, on the newer torchrun image) is what runs.
    Offering both listed one layout twice under two names."""
    per_host, world = dev.ranks_per_host, dev.ranks_per_host * count
    yield _Rung(DDP, "ddp", Sharding(), "DDP, a full replica per GPU")
    if per_host > 1 and count == 1:
        yield _Rung(FSDP, "fsdp", _sharded(per_host), f"FSDP full shard over {per_host} GPUs")
    elif per_host > 1:
        text = f"FSDP hybrid shard ({per_host} GPUs per shard group, {count} replicas)"
        yield _Rung(FSDP, "fsdp", _sharded(per_host), text, hybrid=True)
    if dev.smp_v2:
        for group in range(2, count):
            if count % group == 0:
                shard, replicas = group * per_host, count // group
                text = f"SMP v2 hybrid shard ({shard} GPUs per shard group, {replicas} replicas)"
                yield _Rung(SMP, "smp-hybrid", _sharded(shard), text, hybrid=True)
    if count > 1:
        yield _Rung(FSDP, "fsdp", _sharded(world), f"FSDP full shard over {world} GPUs")
    yield from _native_layouts(per_host, count, workload)


def _native_layouts(per_host: int, count: int, workload: Workload) -> Iterator[_Rung]:
    """train_pytorch.py's own TP (inside an instance) with FSDP, then with ZeRO-1 (`--zero1`:
    Megatron's distributed optimizer, torch_zero1.py), then pipelines: each TP degree × each
    pipeline depth that divides the job (PP outermost, as the entry point's mesh orders it), with
    ZeRO-1 over the data-parallel ranks left. TP with sequence parallelism (`--sequence_parallel`)
    wherever the sequence splits evenly: the same bytes on the TP links (a reduce-scatter and an
    all-gather for each all-reduce) for activations between the blocks' linears 1/t the size."""
    world = per_host * count
    degrees = _tp_degrees((2, 4, 8), per_host, workload)
    for tp in degrees:
        split, over = _tp_split(workload, tp), world // tp
        fsdp = replace(split, weights_over=over, gradients_over=over, optimizer_over=over)
        yield _Rung(NATIVE_TP, f"tp{tp}", fsdp, _tp_text(split) + _over(over, "FSDP"))
    for tp in degrees:
        if world > tp:
            split = _tp_split(workload, tp)
            zero1 = distributed_optimizer(split, world // tp, workload.precision)
            text = _tp_text(split) + _over(world // tp, "ZeRO-1")
            yield _Rung(NATIVE_TP, f"zero1-tp{tp}", zero1, text)
    if per_host > 1:
        yield from _pipelines(degrees, world, workload)


def _pipelines(degrees: list[int], world: int, workload: Workload) -> Iterator[_Rung]:
    """Pipeline stages × TP × ZeRO-1: every power-of-two depth the layers and the job allow."""
    for tp in degrees:
        for pp in _pipeline_depths(tp, world, workload):
            dp = world // (pp * tp)
            split = _tp_split(workload, tp, pp)
            zero1 = distributed_optimizer(split, dp, workload.precision)
            yield _Rung(NATIVE_TP, f"pp-tp{tp}", zero1, _tp_text(split) + _over(dp, "ZeRO-1"))


def _pipeline_depths(tp: int, world: int, workload: Workload) -> Iterator[int]:
    """Every power-of-two number of stages, from 2, that divides the job with `tp` and has a
    layer for each stage."""
    pp = 2
    while pp * tp <= world and pp <= workload.shape.layers:
        if world % (pp * tp) == 0:
            yield pp
        pp *= 2


def _tp_degrees(offered: tuple[int, ...], per_host: int, workload: Workload) -> list[int]:
    """The TP degrees that fit inside one instance and give every rank whole attention heads:
    train_pytorch.py refuses an --n_head that --tensor_parallel_degree does not divide
    (torch_config), and neuronx-distributed's attention divides the heads by the TP size (its
    Llama sample's neuronx_dist_utils.divide; key and value heads it may replicate up to the TP
    size, GQAQKVColumnParallelLinear's kv_size_multiplier, so only the query heads bind)."""
    heads = workload.shape.heads
    return [tp for tp in offered if tp <= per_host and per_host % tp == 0 and heads % tp == 0]


def _tp_text(split: Sharding) -> str:
    tp, pp = split.tensor_parallel, split.pipeline_parallel
    text = f"native tensor parallel {tp}{_sp_text(split.sequence_parallel)}"
    return f"native pipeline {pp} stages × {text.removeprefix('native ')}" if pp > 1 else text


def _sequence_parallel(workload: Workload, tp: int) -> bool:
    """The entry point takes --sequence_parallel when TP splits the sequence evenly."""
    return tp > 1 and workload.seq_len % tp == 0


def _tp_split(workload: Workload, tp: int, pp: int = 1) -> Sharding:
    """TP (and PP) with the entry point's TP options where they apply: --sequence_parallel (the
    sequence splits evenly) and --loss_parallel (the vocabulary does: the head and the logits
    1/tp per rank)."""
    sp = _sequence_parallel(workload, tp)
    return Sharding(
        tensor_parallel=tp,
        pipeline_parallel=pp,
        sequence_parallel=sp,
        sequence_parallel_gathers=sp,
        loss_parallel=workload.vocab % tp == 0,
    )


def _sp_text(sp: bool) -> str:
    return " with sequence parallelism" if sp else ""


def _neuron_layouts(dev: Hardware, count: int, workload: Workload) -> Iterator[_Rung]:
    per_host, world = dev.ranks_per_host, dev.ranks_per_host * count
    neuron = NEURON
    yield _Rung(
        neuron, "dp", Sharding(eager_autocast=False), "data parallel, a full replica per NeuronCore"
    )
    if world > 1:
        zero1 = _neuron_split(workload, 1, 1, world)
        yield _Rung(neuron, "zero1", zero1, f"ZeRO-1 over {world} NeuronCores")
    for tp in _tp_degrees(NEURON_TP_DEGREES, per_host, workload):
        sharding = _neuron_split(workload, tp, 1, world)
        yield _Rung(neuron, f"zero1-tp{tp}", sharding, _neuron_text(sharding))


def _neuron_pipelines(dev: Hardware, count: int, workload: Workload) -> Iterator[_Rung]:
    """Pipeline stages x TP + ZeRO-1, offered (by `layouts`) where no TP degree alone fits:
    neuronx-distributed's answer for a model too big for a node ("to fit a 70B model, we would
    have to use a higher pipeline-parallel degree", aws-neuron-sdk's training_llama_tp_pp
    tutorial), PP outermost."""
    world = dev.ranks_per_host * count
    for tp in _tp_degrees(NEURON_TP_DEGREES, dev.ranks_per_host, workload):
        for pp in _pipeline_depths(tp, world, workload):
            sharding = _neuron_split(workload, tp, pp, world)
            yield _Rung(NEURON, f"pp-tp{tp}", sharding, _neuron_text(sharding))


NEURON_TP_DEGREES = (2, 4, 8, 16, 32)


def _neuron_split(workload: Workload, tp: int, pp: int, world: int) -> Sharding:
    """neuronx-distributed's TP (its sequence parallelism is Megatron's,
    sequence_parallel_enabled) and pipeline stages, ZeRO-1 over the data-parallel ranks left,
    whose Standard Mixed Precision (the default with ZeRO-1 since Neuron 2.20) accumulates and
    reduces the gradients in fp32 (memory.py)."""
    dp = world // (tp * pp)
    return Sharding(
        tensor_parallel=tp,
        pipeline_parallel=pp,
        optimizer_over=dp,
        eager_autocast=False,
        sequence_parallel=_sequence_parallel(workload, tp),
        fp32_gradients=dp > 1,
    )


def _neuron_text(split: Sharding) -> str:
    """The layout's words, ZeRO-1 over the data-parallel ranks `_neuron_split` left it."""
    text = f"tensor parallel {split.tensor_parallel}{_sp_text(split.sequence_parallel)}"
    pp = split.pipeline_parallel
    staged = f"pipeline {pp} stages × {text}" if pp > 1 else text
    return staged + _over(split.optimizer_over, "ZeRO-1")


def _over(ranks: int, how: str) -> str:
    return f" + {how} over {ranks} data-parallel ranks" if ranks > 1 else ""

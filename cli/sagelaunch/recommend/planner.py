"""Choose a distributed layout: the fewest instances that fit, then the simplest strategy there.

The ladder, simplest first (rule of thumb: fill one instance before adding more; data parallel
while a replica fits; shard when it does not; split layers only when sharding is not enough):

* GPU: DDP -> FSDP sharded within an instance -> SMP v2 hybrid shard over a group of instances
  -> FSDP sharded over every instance -> SMP v2 tensor parallel (within an instance) + sharding.
* Trainium: torchrun with neuronx-distributed: data parallel -> ZeRO-1 (optimizer state sharded)
  -> ZeRO-1 + tensor parallel. Neuron has no FSDP; its sharding is TP and ZeRO-1.

A layout fits when its peak per-rank memory is at most HEADROOM of the device's memory.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from sagelaunch.config import facts
from sagelaunch.errors import UsageError
from sagelaunch.recommend.memory import Breakdown, Sharding, per_device, state_bytes
from sagelaunch.recommend.workload import Workload, format_params

HEADROOM = 0.90
MAX_INSTANCES = 256  # the launch config's compute.instance_count limit
FP8_ACCELERATORS = {"H100", "H200", "Trainium2"}


@dataclass(frozen=True)
class Device:
    """One rank's accelerator: a GPU, or a NeuronCore with its share of the chip's HBM."""

    instance_type: str
    kind: str
    accelerator: str
    ranks_per_host: int
    memory_gb: float
    network_gbps: float
    efa: bool
    smp_v2: bool

    @property
    def usable_gb(self) -> float:
        return HEADROOM * self.memory_gb

    @property
    def rank_name(self) -> str:
        return "NeuronCore" if self.kind == "trainium" else "GPU"


def device(instance_type: str) -> Device:
    """The catalog entry (data/instances.json) of an accelerated instance type; UsageError else."""
    catalog = facts.load("instances")
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
    ranks = facts.accelerators_per_host(instance_type)
    memory = known["accelerator_memory_gb"] * known["accelerators"] / ranks
    return Device(
        instance_type=instance_type,
        kind=known["kind"],
        accelerator=known["accelerator"],
        ranks_per_host=ranks,
        memory_gb=memory,
        network_gbps=float(known.get("network_gbps", 0)),
        efa=bool(known.get("efa")),
        smp_v2=instance_type in catalog.get("smp_v2_supported", []),
    )


@dataclass(frozen=True)
class Candidate:
    """One layout on a number of instances, with what each rank would hold."""

    strategy: str  # ddp | fsdp | smp | torchrun-neuron
    instance_count: int
    sharding: Sharding
    memory: Breakdown
    device: Device
    layout: str  # one line for people, e.g. "FSDP full shard over 16 GPUs"
    family: str  # the rung of the ladder: ddp, fsdp, smp-hybrid, smp-tp8, dp, zero1, zero1-tp8
    hybrid: bool = False  # shard within a group of instances, replicate across groups

    @property
    def fits(self) -> bool:
        return self.memory.total <= self.device.usable_gb

    @property
    def shard_group(self) -> int:
        """Ranks the sharded states are split over (1: replicated)."""
        return max(self.sharding.weights_over, self.sharding.optimizer_over)

    @property
    def tensor_parallel(self) -> int:
        return self.sharding.tensor_parallel

    @property
    def short(self) -> str:
        """The layout in a table cell: "replica", "shard 8 ×2", "TP8 + shard 11", "ZeRO-1 32"."""
        tp = f"TP{self.tensor_parallel} + " if self.tensor_parallel > 1 else ""
        if self.sharding.weights_over > 1:
            world = self.instance_count * self.device.ranks_per_host // self.tensor_parallel
            replicas = f" ×{world // self.shard_group}" if self.hybrid else ""
            return f"{tp}shard {self.shard_group}{replicas}"
        if self.sharding.optimizer_over > 1:
            return f"{tp}ZeRO-1 {self.shard_group}"
        return f"{tp}replica" if not tp else tp.removesuffix(" + ")

    def verdict(self) -> str:
        total, usable = self.memory.total, self.device.usable_gb
        if self.fits:
            return f"{self.layout}: fits ({total:.1f} of {usable:.0f} GB usable)"
        return f"{self.layout}: does not fit ({total:.1f} GB > {usable:.0f} GB usable)"

    def as_json(self, reason: str | None = None) -> dict[str, object]:
        return {
            "strategy": self.strategy,
            "instance_type": self.device.instance_type,
            "instance_count": self.instance_count,
            "tensor_parallel_degree": self.tensor_parallel,
            "shard_group": self.shard_group,
            "layout": self.layout,
            "per_device_gb": self.memory.as_json(),
            "device_memory_gb": round(self.device.memory_gb, 2),
            "fits": self.fits,
            "reason": reason or self.verdict(),
        }


@dataclass
class Recommendation:
    workload: Workload
    device: Device
    chosen: Candidate
    alternatives: list[Candidate]
    reason: str
    notes: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        body = self.chosen.as_json(self.reason)
        body["alternatives"] = [alt.as_json() for alt in self.alternatives]
        body["model"] = model_json(self.workload)
        body["notes"] = self.notes
        return body


def model_json(workload: Workload) -> dict[str, object]:
    per_param = sum(state_bytes(workload))
    return {
        "params": workload.params,
        "layers": workload.shape.layers,
        "hidden": workload.shape.hidden,
        "heads": workload.shape.heads,
        "shape_estimated": workload.shape.estimated,
        "seq_len": workload.seq_len,
        "micro_batch": workload.micro_batch,
        "precision": workload.precision,
        "optimizer": workload.optimizer,
        "activation_checkpointing": workload.activation_checkpointing,
        "fused_attention": workload.fused_attention,
        "state_bytes_per_param": per_param,
        "states_gb": round(workload.params * per_param / 1e9, 2),
    }


# --- layouts -------------------------------------------------------------------------------------


def layouts(workload: Workload, dev: Device, count: int) -> list[Candidate]:
    """Every layout on `count` instances, simplest first."""
    make = _gpu_layouts if dev.kind == "gpu" else _neuron_layouts
    return [
        Candidate(
            strategy=rung.strategy,
            instance_count=count,
            sharding=rung.sharding,
            memory=per_device(workload, rung.sharding),
            device=dev,
            layout=rung.text,
            family=rung.family,
            hybrid=rung.hybrid,
        )
        for rung in make(dev, count)
    ]


class _Rung(NamedTuple):
    strategy: str
    family: str
    sharding: Sharding
    text: str
    hybrid: bool = False


def _sharded(over: int, tp: int = 1) -> Sharding:
    return Sharding(tensor_parallel=tp, weights_over=over, gradients_over=over, optimizer_over=over)


def _gpu_layouts(dev: Device, count: int) -> Iterator[_Rung]:
    per_host, world = dev.ranks_per_host, dev.ranks_per_host * count
    yield _Rung("ddp", "ddp", Sharding(), "DDP, a full replica per GPU")
    if per_host > 1 and count == 1:
        yield _Rung("fsdp", "fsdp", _sharded(per_host), f"FSDP full shard over {per_host} GPUs")
    elif per_host > 1:
        text = f"FSDP hybrid shard ({per_host} GPUs per shard group, {count} replicas)"
        yield _Rung("fsdp", "fsdp", _sharded(per_host), text, hybrid=True)
    if dev.smp_v2:
        for group in range(2, count):
            if count % group == 0:
                shard, replicas = group * per_host, count // group
                text = f"SMP v2 hybrid shard ({shard} GPUs per shard group, {replicas} replicas)"
                yield _Rung("smp", "smp-hybrid", _sharded(shard), text, hybrid=True)
    if count > 1:
        yield _Rung("fsdp", "fsdp", _sharded(world), f"FSDP full shard over {world} GPUs")
    if dev.smp_v2:
        for tp in (2, 4, 8):
            if tp <= per_host and per_host % tp == 0:
                text = f"SMP v2 tensor parallel {tp}" + _over(world // tp, "shard")
                yield _Rung("smp", f"smp-tp{tp}", _sharded(world // tp, tp), text)


def _neuron_layouts(dev: Device, count: int) -> Iterator[_Rung]:
    per_host, world = dev.ranks_per_host, dev.ranks_per_host * count
    neuron = "torchrun-neuron"
    yield _Rung(neuron, "dp", Sharding(), "data parallel, a full replica per NeuronCore")
    if world > 1:
        zero1 = Sharding(optimizer_over=world)
        yield _Rung(neuron, "zero1", zero1, f"ZeRO-1 over {world} NeuronCores")
    for tp in (2, 4, 8, 16, 32):
        if tp <= per_host and per_host % tp == 0:
            sharding = Sharding(tensor_parallel=tp, optimizer_over=world // tp)
            text = f"tensor parallel {tp}" + _over(world // tp, "ZeRO-1")
            yield _Rung(neuron, f"zero1-tp{tp}", sharding, text)


def _over(ranks: int, how: str) -> str:
    return f" + {how} over {ranks} data-parallel ranks" if ranks > 1 else ""


# --- choosing ------------------------------------------------------------------------------------


def smallest_fit(
    workload: Workload, dev: Device, where: Callable[[Candidate], bool] = lambda c: True
) -> Candidate | None:
    """The simplest fitting layout on the fewest instances (None up to MAX_INSTANCES)."""
    for count in range(1, MAX_INSTANCES + 1):
        for candidate in layouts(workload, dev, count):
            if candidate.fits and where(candidate):
                return candidate
    return None


def recommend(workload: Workload, dev: Device, instance_count: int | None = None) -> Recommendation:
    """The layout to use: at `instance_count`, else on the fewest instances that fit (what the
    bill counts), and the simplest strategy there."""
    if instance_count is None:
        auto = smallest_fit(workload, dev)
        chosen = auto or _closest(layouts(workload, dev, MAX_INSTANCES))
        alternatives = [c for c in _per_family(workload, dev) if c.family != chosen.family]
    else:
        at_count = layouts(workload, dev, instance_count)
        fitting = [c for c in at_count if c.fits]
        chosen = fitting[0] if fitting else _closest(at_count)
        auto = chosen if fitting else smallest_fit(workload, dev)
        alternatives = [c for c in at_count if c is not chosen]
    reason = explain(workload, dev, chosen, auto)
    return Recommendation(workload, dev, chosen, alternatives, reason, _notes(workload, chosen))


def _closest(candidates: list[Candidate]) -> Candidate:
    return min(candidates, key=lambda c: c.memory.total)


def _per_family(workload: Workload, dev: Device) -> list[Candidate]:
    """Each strategy family (DDP, FSDP, ZeRO-1, each TP degree) on its fewest fitting instances,
    or on one instance when it never fits; in ladder order."""
    best: dict[str, Candidate] = {}
    for count in range(1, MAX_INSTANCES + 1):
        for cand in layouts(workload, dev, count):
            key = cand.family
            if not cand.hybrid and (key not in best or (cand.fits and not best[key].fits)):
                best[key] = cand
        if all(c.fits for c in best.values()):
            break
    return list(best.values())


# --- words ---------------------------------------------------------------------------------------


def explain(workload: Workload, dev: Device, chosen: Candidate, auto: Candidate | None) -> str:
    """One sentence: why this layout."""
    usable = f"{dev.usable_gb:.0f} GB usable of a {dev.memory_gb:.0f} GB {dev.accelerator}"
    if dev.kind == "trainium":
        usable = f"{dev.usable_gb:.0f} GB usable of a NeuronCore's {dev.memory_gb:g} GB share"
    total = f"{chosen.memory.total:.1f} GB per {dev.rank_name}"
    if not chosen.fits:
        return _no_fit(workload, dev, chosen, auto)
    if dev.kind == "trainium":
        return (
            f"Trainium trains with torchrun and neuronx-distributed, whose sharding is tensor "
            f"parallelism and ZeRO-1 (no FSDP on Neuron): {chosen.layout} on "
            f"{_instances(chosen)} needs {total}, within the {usable}."
        )
    ddp = layouts(workload, dev, chosen.instance_count)[0]
    states = (
        f"{format_params(workload.params)} parameters ({_states_gb(workload):.0f} GB of states)"
    )
    if chosen.strategy == "ddp":
        return (
            f"{states} need {total} under DDP, within the {usable}, so plain DDP on "
            f"{_instances(chosen)} is the simplest and fastest choice; add instances for "
            "throughput only."
        )
    why = f"{states} need {ddp.memory.total:.0f} GB per GPU under DDP, more than the {usable}"
    if chosen.tensor_parallel > 1:
        fsdp = smallest_fit(workload, dev, where=lambda c: c.tensor_parallel == 1)
        alone = (
            f"FSDP alone needs {_instances(fsdp)}"
            if fsdp
            else "sharding alone cannot fit the activations"
        )
        return (
            f"{why}, and {alone}: {chosen.layout} on {_instances(chosen)} splits each layer "
            f"and its activations {chosen.tensor_parallel} ways within an instance ({total})."
        )
    return f"{why}: {chosen.layout} on {_instances(chosen)} brings it to {total}."


def _no_fit(workload: Workload, dev: Device, chosen: Candidate, auto: Candidate | None) -> str:
    closest = f"closest: {chosen.layout}, {chosen.memory.total:.1f} GB > {dev.usable_gb:.0f} GB"
    if auto is not None:
        return (
            f"nothing fits on {_instances(chosen)} ({closest}); the fewest that fit are "
            f"{_instances(auto)} with {auto.layout}: pass --instance-count {auto.instance_count}."
        )
    return (
        f"nothing fits even on {MAX_INSTANCES} x {dev.instance_type} ({closest}): shorten "
        "--seq-len, lower --micro-batch or add --activation-checkpointing."
    )


def _notes(workload: Workload, chosen: Candidate) -> list[str]:
    dev, notes = chosen.device, []
    if workload.precision == "fp8" and dev.accelerator not in FP8_ACCELERATORS:
        notes.append(
            f"fp8 needs H100/H200 (p5, p5e, p5en) or Trainium2; {dev.accelerator} trains in bf16"
        )
    if chosen.instance_count > 1 and chosen.shard_group > dev.ranks_per_host and not dev.efa:
        notes.append(
            f"{dev.instance_type} has no EFA: sharding across instances runs over "
            f"{dev.network_gbps:g} Gbps TCP and will be slow"
        )
    if not workload.activation_checkpointing:
        with_ckpt = smallest_fit(_with_checkpointing(workload), dev)
        if with_ckpt and _simpler(with_ckpt, chosen):
            notes.append(
                f"with --activation-checkpointing (about 30% more compute): {with_ckpt.layout} "
                f"on {_instances(with_ckpt)}"
            )
    if workload.shape.estimated:
        shape = workload.shape
        notes.append(
            f"shape estimated from published GPT shapes: {shape.layers} layers x {shape.hidden} "
            "hidden; pass --layers/--hidden for your model"
        )
    return notes


def _simpler(a: Candidate, b: Candidate) -> bool:
    return (a.instance_count, a.tensor_parallel) < (b.instance_count, b.tensor_parallel) or (
        not b.fits and a.fits
    )


def _instances(cand: Candidate) -> str:
    plural = "instance" if cand.instance_count == 1 else "instances"
    return f"{cand.instance_count} {cand.device.instance_type} {plural}"


def _states_gb(workload: Workload) -> float:
    return workload.params * sum(state_bytes(workload)) / 1e9


def _with_checkpointing(workload: Workload) -> Workload:
    return replace(workload, activation_checkpointing=True)

"""Choose a layout: the fewest instances that fit (the capacity to find, which for p4d, p5 and
trn1 is the scarce part, and the hourly bill), then the simplest layout there (the ladder in
`layouts`); say why in one sentence, and name a layout that trains cheaper per token.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from sagelaunch.errors import UsageError
from sagelaunch.recommend import zero
from sagelaunch.recommend.hardware import Hardware
from sagelaunch.recommend.layouts import (
    DDP,
    DEEPSPEED,
    HOST_HEADROOM,
    Candidate,
    layouts,
    zero_candidate,
)
from sagelaunch.recommend.memory import state_bytes
from sagelaunch.recommend.workload import Workload, format_params

MAX_INSTANCES = 256  # the launch config's compute.instance_count limit
CHEAPER_PER_TOKEN = 1.1  # a fitting layout this much better in tokens per dollar gets a note
FP8_ACCELERATORS = {"H100", "H200", "Trainium2"}


@dataclass(frozen=True)
class CpuOffload:
    """DeepSpeed ZeRO-3 with the optimizer (and, if need be, the weights) in host memory: what
    fits when no GPU-resident layout does, at the price of PCIe traffic and a CPU optimizer."""

    candidate: Candidate
    plan: zero.Zero
    host_gb: float  # per instance, DeepSpeed's estimate with its 1.5 buffer
    pcie_gb: float  # per GPU and optimizer step
    pcie_s: float  # that traffic at the GPU's PCIe x16 rate

    def as_json(self, workload: Workload) -> dict[str, object]:
        return {
            **self.candidate.as_json(),
            "step_time": self.candidate.speed(workload).as_json(),
            "zero_stage": self.plan.stage,
            "offload": self.plan.offload,
            "host_memory_gb_per_instance": round(self.host_gb, 2),
            "host_memory_of_instance_gb": round(self.candidate.device.host_memory_gb, 2),
            "pcie_gb_per_gpu_per_step": round(self.pcie_gb, 2),
            "pcie_s_per_step": round(self.pcie_s, 3),
        }


@dataclass
class Recommendation:
    """The chosen layout, the others considered, one sentence of why, and caveats."""

    workload: Workload
    device: Hardware
    chosen: Candidate
    alternatives: list[Candidate]
    reason: str
    notes: list[str] = field(default_factory=list)
    cpu_offload: CpuOffload | None = None  # where nothing fits on the GPUs alone

    def ranked(self) -> list[Candidate]:
        """The alternatives, fitting ones first by estimated tokens per dollar (best first), then
        those that do not fit, closest to fitting first (a speed they cannot reach says nothing;
        how far each is over says what to change, as `_closest` picks the choice). Every
        candidate is on the same instance type, so tokens/s per instance orders them as tokens
        per dollar does, and still does where the catalog has no price for the type."""

        def key(cand: Candidate) -> tuple[bool, float]:
            if not cand.fits:
                return (True, cand.memory.total)
            return (False, -cand.speed(self.workload).tokens_per_s / cand.instance_count)

        return sorted(self.alternatives, key=key)

    def shown(self) -> list[Candidate]:
        """The layouts in the order the tables show them: the choice, then `ranked`."""
        return [self.chosen, *self.ranked()]

    def pick(self, number: int) -> Recommendation:
        """The same plan with the `number`th layout shown (1: the choice) as the choice, for
        `--pick`: what its tables, its JSON and --emit-config then describe."""
        shown = self.shown()
        if not 1 <= number <= len(shown):
            raise UsageError(
                f"--pick {number}: the tables show {len(shown)} layouts",
                hint=f"pick 1 (the recommendation) to {len(shown)}, counting rows from the top",
            )
        if number == 1:
            return self
        picked = shown[number - 1]
        reason = (
            f"{picked.layout} on {_instances(picked)}, picked with --pick {number} "
            f"({picked.memory.total:.1f} GB per {self.device.rank_name}); recommend's own "
            f"choice is {self.chosen.layout} on {_instances(self.chosen)}."
        )
        notes = [n for n in self.notes if not n.startswith("step ")]
        notes.append(_dominant(self.workload, picked))
        others = [c for c in shown if c is not picked]
        return replace(self, chosen=picked, alternatives=others, reason=reason, notes=notes)

    def as_json(self) -> dict[str, object]:
        body = self.chosen.as_json(self.reason)
        body["step_time"] = self.chosen.speed(self.workload).as_json()
        body["alternatives"] = [
            {**alt.as_json(), "step_time": alt.speed(self.workload).as_json()}
            for alt in self.ranked()
        ]
        body["model"] = model_json(self.workload)
        body["notes"] = self.notes
        if self.chosen.parallelism == DEEPSPEED:
            body.update(zero_json(self.workload, self.chosen))
        if self.cpu_offload is not None:
            body["cpu_offload"] = self.cpu_offload.as_json(self.workload)
        return body


def zero_json(workload: Workload, chosen: Candidate) -> dict[str, object]:
    """The DeepSpeed config for the chosen ZeRO layout and the host memory it needs."""
    plan = zero.Zero(workload.zero_stage, workload.zero_offload)
    per_host, nodes = chosen.device.ranks_per_host, chosen.instance_count
    largest = zero.largest_layer_params(workload)
    host = zero.host_bytes(workload.params, largest, plan, per_host, nodes)
    return {
        "deepspeed_config": zero.deepspeed_config(plan, workload.micro_batch, workload.precision),
        "host_memory_gb_per_instance": round(host / 1e9, 2),
    }


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
        "global_batch": workload.global_batch,
        "precision": workload.precision,
        "optimizer": workload.optimizer,
        "activation_checkpointing": workload.activation_checkpointing,
        # what selective checkpointing keeps (--selective-policy); None: whole blocks, or none
        "selective_checkpointing": (
            workload.selective_policy if workload.checkpoints_selectively else None
        ),
        "activation_offload": workload.activation_offload,
        "fused_attention": workload.fused_attention,
        "state_bytes_per_param": per_param,
        "states_gb": round(workload.params * per_param / 1e9, 2),
    }


# --- choosing ------------------------------------------------------------------------------------


def smallest_fit(
    workload: Workload, dev: Hardware, where: Callable[[Candidate], bool] = lambda c: True
) -> Candidate | None:
    """The simplest fitting layout on the fewest instances (None up to MAX_INSTANCES)."""
    for count in range(1, MAX_INSTANCES + 1):
        for candidate in layouts(workload, dev, count):
            if candidate.fits and where(candidate):
                return candidate
    return None


def recommend(
    workload: Workload, dev: Hardware, instance_count: int | None = None
) -> Recommendation:
    """The layout to use: at `instance_count`, else on the fewest instances that fit (what the
    bill counts), and the simplest layout there."""
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
    notes = _notes(workload, chosen, tips=instance_count is None or not chosen.fits)
    notes.append(_dominant(workload, chosen))
    notes += filter(None, [_cheaper_per_token(workload, chosen, alternatives)])
    offload = _offload_instead(workload, dev, chosen, instance_count)
    if offload is not None:
        notes.append(offload_note(workload, offload, suggested=True))
        if not chosen.fits:
            reason += f" DeepSpeed ZeRO-3 with CPU offload fits on {_instances(offload.candidate)}."
    elif chosen.parallelism == DEEPSPEED and workload.zero_offload != "none":
        plan = zero.Zero(workload.zero_stage, workload.zero_offload)
        notes.append(offload_note(workload, cpu_offload(workload, chosen, plan), suggested=False))
    return Recommendation(workload, dev, chosen, alternatives, reason, notes, offload)


def _offload_instead(
    workload: Workload, dev: Hardware, chosen: Candidate, instance_count: int | None
) -> CpuOffload | None:
    """ZeRO-3 with CPU offload where the ladder has nothing that fits at the asked instance
    count, or (no count asked) on fewer instances than the ladder needs; None where ZeRO was
    asked for, on Trainium, or where it fits nowhere sooner."""
    if workload.zero_stage or dev.kind != "gpu":
        return None
    if instance_count is not None:
        counts = range(instance_count, instance_count + 1) if not chosen.fits else range(0)
    else:
        counts = range(1, chosen.instance_count if chosen.fits else MAX_INSTANCES + 1)
    for count in counts:
        for offload in ("optimizer", "all"):  # the least traffic first
            asked = replace(workload, zero_stage=3, zero_offload=offload)
            plan = zero.Zero(3, offload)
            found = cpu_offload(workload, zero_candidate(asked, dev, count), plan)
            if found.candidate.fits and found.host_gb <= HOST_HEADROOM * dev.host_memory_gb:
                return found
    return None


def cpu_offload(workload: Workload, cand: Candidate, plan: zero.Zero) -> CpuOffload:
    """The host memory and PCIe traffic of `cand`, a ZeRO layout with CPU offload (`plan`)."""
    per_host, nodes = cand.device.ranks_per_host, cand.instance_count
    largest = zero.largest_layer_params(workload)
    host = zero.host_bytes(workload.params, largest, plan, per_host, nodes) / 1e9
    accumulated = cand.speed(workload).micro_batches
    moved = zero.pcie_bytes_per_gpu(workload.params, plan, per_host * nodes, accumulated)
    seconds = moved / zero.pcie_bytes_per_s(cand.device.accelerator)
    return CpuOffload(cand, plan, host, moved / 1e9, seconds)


def offload_note(workload: Workload, found: CpuOffload, suggested: bool) -> str:
    """What CPU offload costs: the host memory it takes, the PCIe traffic of each step and the
    CPU's optimizer step, neither of which the GPU step figures count."""
    cand, plan = found.candidate, found.plan
    gpu_s = cand.speed(workload).seconds
    flags = "--offload_optimizer cpu" + (" --offload_params cpu" if plan.offload == "all" else "")
    host = f"{found.host_gb:.0f} of the instance's {cand.device.host_memory_gb:.0f} GB host memory"
    cost = (
        f"expect it PCIe- and CPU-bound: each GPU moves {found.pcie_gb:.1f} GB over PCIe per "
        f"step ({found.pcie_s:.2f} s at {zero.pcie_bytes_per_s(cand.device.accelerator) / 1e9:.0f}"
        f" GB/s, beside the {gpu_s:.2f} s of the GPU step) and DeepSpeed's CPU Adam updates all "
        f"{format_params(workload.params)} parameters in host memory every step, which neither "
        "figure counts; time a few steps before a long run"
    )
    if not suggested:
        return f"CPU offload takes {host} per instance; {cost}"
    return (
        f"{cand.layout} fits on {_instances(cand)} ({cand.memory.total:.1f} GB per GPU, {host}): "
        f"plan it with --zero-stage 3 --offload {plan.offload} (--emit-config runs "
        f"train_pytorch.py --zero_stage 3 {flags}); {cost}"
    )


def _closest(candidates: list[Candidate]) -> Candidate:
    return min(candidates, key=lambda c: c.memory.total)


def _per_family(workload: Workload, dev: Hardware) -> list[Candidate]:
    """Each layout family (DDP, FSDP, ZeRO-1, each TP degree) on its fewest fitting instances,
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


def _usable(dev: Hardware) -> str:
    """What a rank may hold, in words: "42.5 GB of each A100"."""
    owner = "each NeuronCore's share" if dev.kind == "trainium" else f"each {dev.accelerator}"
    return f"{dev.usable_gb:.1f} GB of {owner}"


def explain(workload: Workload, dev: Hardware, chosen: Candidate, auto: Candidate | None) -> str:
    """One sentence: why this layout."""
    usable = _usable(dev)
    total = f"{chosen.memory.total:.1f} GB per {dev.rank_name}"
    if not chosen.fits:
        return _no_fit(workload, dev, chosen, auto)
    if dev.kind == "trainium":
        return (
            f"Trainium trains with torchrun and neuronx-distributed, whose sharding is tensor "
            f"parallelism and ZeRO-1 (no FSDP on Neuron; pipeline stages where no tensor "
            f"parallel degree fits): {chosen.layout} on "
            f"{_instances(chosen)} needs {total}, within the {usable}."
        )
    if chosen.parallelism == DEEPSPEED:
        return (
            f"{chosen.layout} on {_instances(chosen)} (as asked with --zero-stage) needs {total}, "
            f"within the {usable}; the fewest instances where it fits."
        )
    ddp = layouts(workload, dev, chosen.instance_count)[0]
    states = (
        f"{format_params(workload.params)} parameters ({_states_gb(workload):.0f} GB of states)"
    )
    if chosen.parallelism == DDP:
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


def _no_fit(workload: Workload, dev: Hardware, chosen: Candidate, auto: Candidate | None) -> str:
    closest = f"closest: {chosen.layout}, {chosen.memory.total:.1f} GB > {dev.usable_gb:.1f} GB"
    if auto is not None:
        return (
            f"nothing fits on {_instances(chosen)} ({closest}); the fewest that fit are "
            f"{_instances(auto)} with {auto.layout}: pass --instance-count {auto.instance_count}."
        )
    return (
        f"nothing fits even on {MAX_INSTANCES} x {dev.instance_type} ({closest}): shorten "
        "--seq-len, lower --micro-batch or add --activation-checkpointing."
    )


def _notes(workload: Workload, chosen: Candidate, tips: bool) -> list[str]:
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
    if tips and not workload.activation_checkpointing:
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


def _cheaper_per_token(
    workload: Workload, chosen: Candidate, alternatives: list[Candidate]
) -> str | None:
    """The fitting layout on more instances whose step model trains the most tokens per dollar,
    when it beats the choice by CHEAPER_PER_TOKEN: the choice saves instances, and more of them
    can finish sooner for less. (On as many instances the simplest layout stays the choice.)"""
    mine = chosen.speed(workload).tokens_per_dollar
    rivals = [
        (c.speed(workload).tokens_per_dollar or 0.0, c)
        for c in alternatives
        if c.fits and c.instance_count > chosen.instance_count
    ]
    if not chosen.fits or not mine or not rivals:
        return None
    best_per_dollar, best = max(rivals, key=lambda rival: rival[0])
    if best_per_dollar < CHEAPER_PER_TOKEN * mine:
        return None
    return (
        f"{best.layout} on {_instances(best)} trains about "
        f"{best_per_dollar / mine - 1:.0%} more tokens per dollar by the step model "
        f"({best_per_dollar / 1e6:.2f} vs {mine / 1e6:.2f} M), if you can get that capacity "
        "(compute, communication and memory traffic counted)"
    )


def _dominant(workload: Workload, chosen: Candidate) -> str:
    """Which term of the chosen layout's step dominates, and what would shrink it."""
    speed = chosen.speed(workload)
    # more micro-batches a step: a larger --global-batch where the user holds it, else --grad-accum
    more = "--global-batch" if workload.global_batch else "--grad-accum"
    what = {
        "compute": "matmuls and attention at the achieved efficiency; fp8 or a larger "
        "micro-batch raise it",
        "communication": f"collectives compute does not hide ({speed.link} for data parallel); "
        f"a larger micro-batch or {more} hides more of them",
        "memory": "the traffic of the non-matmul kernels and the optimizer; --compile fuses it",
        "bubble": f"the pipeline's fill and drain; more micro-batches ({more}) shrink it",
    }[speed.dominant]
    parts = (
        f"compute {speed.compute_s:.2f} s, communication {speed.communication_s:.2f} s exposed "
        f"({speed.communication_total_s:.2f} s in all), memory {speed.memory_s:.2f} s"
    )
    if speed.bubble_s:
        parts += f", bubble {speed.bubble_s:.2f} s"
    return f"step {speed.seconds:.2f} s: {speed.dominant} dominates ({parts}): {what}"


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

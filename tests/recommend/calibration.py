"""recommend's step time and memory held against published measured training throughputs
(tests/recommend/data/measured_throughput.json, each row with its source).

Each row is modelled as it ran: its model's shape, its layout (TP, PP, FSDP shard group, ZeRO-1,
sequence parallelism), micro-batch and accumulation, checkpointing, precision and kernels, on
the closest AWS instance with the cluster's own memory, HBM and network figures where they
differ. Nothing here is fitted per row.

    .venv/bin/python -m tests.recommend.calibration      # the tables and the summaries

Megatron-Core's rows (tests/recommend/data/megatron_throughput.json, `megatron_rows`: NeMo and
Megatron-Bridge, the first holdout) calibrate the "megatron" kernel kind and are summarized apart.
The holdout (holdout_throughput.json, `holdout_rows`), gathered after the model's Transformer
Engine facts were added, is modelled the same way: published rows never used to fit anything
(issue #42).

The second table runs the planner for each row as `recommend --model ... --instance-type ...
--instance-count N` would (the row's shape, sequence, micro-batch, checkpointing and precision)
and says where the published layout ranks among what it shows.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sagelaunch.recommend import hardware, layouts, planner, steptime
from sagelaunch.recommend.layouts import Candidate
from sagelaunch.recommend.memory import Sharding, per_device
from sagelaunch.recommend.workload import Shape, Workload

DATA = Path(__file__).parent / "data" / "measured_throughput.json"
HOLDOUT = Path(__file__).parent / "data" / "holdout_throughput.json"
MEGATRON = Path(__file__).parent / "data" / "megatron_throughput.json"


def rows(path: Path = DATA) -> list[dict[str, Any]]:
    return json.loads(path.read_text(encoding="utf-8"))["rows"]


def megatron_rows() -> list[dict[str, Any]]:
    """Megatron-Core with Transformer Engine (NeMo, Megatron-Bridge): the first holdout, on which
    the "megatron" kernel kind's constant is fitted."""
    return rows(MEGATRON)


def holdout_rows() -> list[dict[str, Any]]:
    """Published measured rows kept outside the calibration: never used to fit anything."""
    return rows(HOLDOUT)


def workload(row: dict[str, Any]) -> Workload:
    m, lay = row["model"], row["layout"]
    shape = Shape(
        m["layers"],
        m["hidden"],
        m["heads"],
        estimated=False,
        kv_heads=m["kv_heads"],
        ffn_hidden=m["ffn"],
        gated_mlp=m["gated_mlp"],
        tied_embeddings=m["tied"],
        learned_positions=m["positions"] == "learned",
    )
    micro = lay.get("pipeline_microbatches") or row["grad_accum"]
    return Workload(
        params=m["params"],
        shape=shape,
        seq_len=row["seq_len"],
        micro_batch=row["micro_batch"],
        precision=row["precision"],
        activation_checkpointing=row["checkpointing"] != "none",
        selective_checkpointing=row["checkpointing"] in ("selective", "op"),
        selective_policy="ops" if row["checkpointing"] == "op" else "activations",
        vocab=m["vocab"],
        grad_accum=micro,
        kernels=row["kernels"],
        attention=row.get("attention", "flash"),
        attention_dropout=bool(row.get("attention_dropout")),
        fused_loss=row.get("loss") == "fused_crossentropy",
        eager_loss=row.get("loss") == "eager_crossentropy",
    )


def sharding(row: dict[str, Any]) -> Sharding:
    lay = row["layout"]
    sp = bool(lay.get("sequence_parallel"))
    interleave = lay.get("virtual_pipeline", 1)  # as published; 1: plain 1F1B
    # bf16 weights, with ZeRO-1 (neuronx-distributed, Megatron's distributed optimizer) or, "dp",
    # plain data parallelism (NeMo and Megatron-LM on Neuron without ZeRO)
    if lay["parallelism"] in ("zero1", "dp"):
        return Sharding(
            tensor_parallel=lay["tp"],
            optimizer_over=lay["replicate"] if lay["parallelism"] == "zero1" else 1,
            pipeline_parallel=lay["pp"],
            pipeline_interleave=interleave,
            eager_autocast=False,
            sequence_parallel=sp,
            fp32_gradients=bool(lay.get("grad_reduce_in_fp32")),
            stochastic_rounding=bool(lay.get("stochastic_rounding")),
        )
    over = lay["shard"]
    return Sharding(
        lay["tp"],
        over,
        over,
        over,
        lay["pp"],
        interleave,
        sequence_parallel=sp,
        bf16_reduce=lay.get("reduce_dtype") == "bf16",
    )


def device(row: dict[str, Any]) -> hardware.Hardware:
    where = row["where"]
    return hardware.for_instance(
        row["instance_type"],
        memory_gb=where.get("memory_gb"),
        hbm_gb_per_s=where.get("hbm_gb_per_s"),
        network_gbps=where.get("network_gbps"),
        bf16_tflops=where.get("bf16_tflops"),
        fp8_tflops=where.get("fp8_tflops"),
    )


@dataclass(frozen=True)
class Check:
    row: dict[str, Any]
    predicted: float  # tokens/s per GPU (per Trainium chip)
    measured: float
    memory_gb: float  # per rank
    device_gb: float
    timed: steptime.StepTime

    @property
    def ratio(self) -> float:
        return self.predicted / self.measured

    @property
    def fits(self) -> bool:
        """A layout that ran must fit the device it ran on."""
        return self.memory_gb <= self.device_gb

    @property
    def within_usable(self) -> bool:
        """Within the planner's usable share of the device (hardware.HEADROOM): what recommend
        itself calls fitting."""
        return self.memory_gb <= hardware.HEADROOM * self.device_gb


def check(row: dict[str, Any]) -> Check:
    hw, work, shard = device(row), workload(row), sharding(row)
    instances = max(1, row["gpus"] * hw.ranks_per_host // _chips_per_host(row) // hw.ranks_per_host)
    timed = steptime.step(work, shard, hw, instances)
    predicted = timed.tokens_per_s / row["gpus"]
    memory = per_device(work, shard).total
    return Check(row, predicted, row["tokens_per_s_per_gpu"], memory, hw.memory_gb, timed)


def _chips_per_host(row: dict[str, Any]) -> int:
    return 16 if row["instance_type"].startswith("ml.trn") else 8


@dataclass(frozen=True)
class Summary:
    rows: int
    within_25: int
    median_error: float
    median_ratio: float
    does_not_fit: int
    over_usable: int  # within the device but above the planner's HEADROOM share of it

    @property
    def within_25_share(self) -> float:
        return self.within_25 / self.rows


def summarize(checks: list[Check]) -> Summary:
    errors = [abs(c.ratio - 1) for c in checks]
    return Summary(
        rows=len(checks),
        within_25=sum(e <= 0.25 for e in errors),
        median_error=statistics.median(errors),
        median_ratio=statistics.median(c.ratio for c in checks),
        does_not_fit=sum(not c.fits for c in checks),
        over_usable=sum(c.fits and not c.within_usable for c in checks),
    )


def table(checks: list[Check]) -> str:
    columns = ("measured", "model", "ratio", "comp", "comm", "mem", "bubble", "GB")
    widths = (9, 9, 6, 6, 6, 6, 6, 11)
    head = f"{'row':44} " + " ".join(f"{n:>{w}}" for n, w in zip(columns, widths, strict=True))
    lines = [head]
    for c in checks:
        t = c.timed
        share = {
            k: v / t.seconds
            for k, v in (
                ("c", t.compute_s),
                ("n", t.communication_s),
                ("m", t.memory_s),
                ("b", t.bubble_s),
            )
        }
        lines.append(
            f"{c.row['id']:44} {c.measured:9.0f} {c.predicted:9.0f} {c.ratio:6.2f} "
            f"{share['c']:6.0%} {share['n']:6.0%} {share['m']:6.0%} {share['b']:6.0%} "
            f"{c.memory_gb:5.1f}/{c.device_gb:<5.0f}{'' if c.fits else ' NO FIT'}"
        )
    s = summarize(checks)
    lines.append(
        f"within ±25%: {s.within_25}/{s.rows} ({s.within_25_share:.0%}); median error "
        f"{s.median_error:.1%}; median model/measured {s.median_ratio:.2f}; "
        f"ran but over the device's memory: {s.does_not_fit}; within it but over the "
        f"planner's {hardware.HEADROOM:.0%} usable: {s.over_usable}"
    )
    return "\n".join(lines)


GIB_IN_GB = 2**30 / 1e9


def memory_checks(checks: list[Check]) -> list[tuple[Check, float]]:
    """The rows whose source also reports memory per GPU, with that figure in GB (torchtitan's
    is the allocator's peak reserved memory: fragmentation and cached blocks included)."""
    return [(c, c.row["memory_gib"] * GIB_IN_GB) for c in checks if "memory_gib" in c.row]


def memory_table(checks: list[Check]) -> str:
    lines = [f"{'row':44} {'reported GB':>11} {'model GB':>9} {'ratio':>6}"]
    for c, reported in memory_checks(checks):
        lines.append(
            f"{c.row['id']:44} {reported:11.1f} {c.memory_gb:9.1f} {c.memory_gb / reported:6.2f}"
        )
    return "\n".join(lines)


# --- the planner against the published layouts ---------------------------------------------------


def published(candidate: Candidate, row: dict[str, Any]) -> bool:
    """The candidate is the row's published layout: its TP and PP degrees, and its shard group
    (FSDP, by any launcher: FSDP, SMP v2 or the entry point's own) or ZeRO-1 group (Megatron's
    distributed optimizer, neuronx-distributed's ZeRO-1; plain data parallelism over bf16 weights
    matches either, the planner offering ZeRO-1 wherever it offers TP on Trainium)."""
    lay, shard = row["layout"], candidate.sharding
    if (shard.tensor_parallel, shard.pipeline_parallel) != (lay["tp"], lay["pp"]):
        return False
    if lay["parallelism"] == "zero1":
        return shard.weights_over == 1 and shard.optimizer_over == lay["replicate"]
    if lay["parallelism"] == "dp":  # the same TP × PP × data parallel, optimizer sharded or not
        return shard.weights_over == 1
    return candidate.parallelism != "ddp" and shard.weights_over == lay["shard"]


def planned(row: dict[str, Any]) -> list[Candidate]:
    """What `recommend` shows for the row's model, run and instance count, in its order (the
    choice, then the alternatives, fitting ones first by tokens per dollar); on the cluster's
    own device memory where the row gives one (torchtitan's 96 GB H100s), and at the row's
    global batch (`--global-batch`: each layout trains as many sequences a step as the run did;
    it changed no count when it came, 83 of 116 in the top 3 before and after)."""
    dev = layouts.device(row["instance_type"])
    if row["where"].get("memory_gb"):
        dev = replace(dev, memory_gb=row["where"]["memory_gb"])
    count = row["gpus"] // _chips_per_host(row)
    work = workload(row)
    lay = row["layout"]
    replicas = row["gpus"] * dev.ranks_per_host // _chips_per_host(row) // (lay["tp"] * lay["pp"])
    work = replace(work, global_batch=work.micro_batch * work.grad_accum * replicas)
    rec = planner.recommend(work, dev, count)
    return rec.shown()


def published_rank(row: dict[str, Any]) -> int | None:
    """Where the published layout stands in `planned` (0: recommend's choice; None: absent)."""
    return next((i for i, c in enumerate(planned(row)) if published(c, row)), None)


def top3_table(all_rows: list[dict[str, Any]]) -> str:
    lines, hits = [f"{'row':48} {'rank':>4}  top 3"], 0
    for row in all_rows:
        rank, top = published_rank(row), planned(row)[:3]
        hits += rank is not None and rank < 3
        shown = " | ".join(f"{c.short}{'' if c.fits else ' (no fit)'}" for c in top)
        lines.append(f"{row['id']:48} {'-' if rank is None else rank + 1:>4}  {shown}")
    lines.append(f"published layout among the top 3: {hits}/{len(all_rows)}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table([check(row) for row in rows()]))
    print()
    print(top3_table(rows()))
    print()
    print("Megatron-Core (fits the megatron kernel kind):")
    print(table([check(row) for row in megatron_rows()]))
    print()
    print("holdout (never used to fit):")
    held = [check(row) for row in holdout_rows()]
    print(table(held))
    for kind in sorted({c.row["kernels"] for c in held}):
        k = summarize([c for c in held if c.row["kernels"] == kind])
        print(
            f"  {kind}: {k.within_25}/{k.rows} within ±25%, median error {k.median_error:.1%}, "
            f"median model/measured {k.median_ratio:.2f}"
        )
    print()
    print(top3_table(holdout_rows()))
    print()
    print("memory, where the source reports it (calibration and holdout):")
    print(memory_table([check(row) for row in rows()] + held))

"""`make gpu-check`: the PyTorch entry point on this machine's accelerator, in one report.

    python -m tests.gpu.check [--tiny] [--parts throughput,memory,resume,paths] [--out DIR]

Four parts, each on the entry point's own code:

* throughput: train_pytorch.py's GPT at about 350M and 1.3B parameters, bf16 with SDPA, eager
  and under torch.compile (--benchmark): steady tokens/s and model-FLOP utilisation, beside
  `recommend`'s step-time model for the same model on one accelerator of this kind;
* memory: one training step under PyTorch's memory trackers on the real device, each category
  against `recommend`'s memory model (tests/recommend/oracle.py, on real tensors instead of fake
  ones), and the CUDA allocator's peak against the model's total;
* resume: a run killed at step N and restarted ends bit-identical to one never killed (CUDA RNG
  included, dropout on), and two uninterrupted runs agree (the kernels repeat), for plain
  single-device training and for FSDP2 over a process group (NCCL on CUDA);
* paths: tensor parallelism with sequence parallelism under FSDP2, on a one-rank mesh, trains
  as the plain model does.

On a GPU it takes a few minutes (about 5 on one H100). `--tiny` runs the same parts with tiny
models in seconds on any machine, CPU included, which is how `make test` knows the script works
before any GPU time is spent on it. The report is printed as Markdown tables (what the docs'
performance page holds) and written, with every figure as JSON, to --out. The exit status is 1
when something is wrong (a run failed, a resume or path differs); goals missed are reported,
not failed.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from sagelaunch.recommend import hardware, steptime
from sagelaunch.recommend.memory import Sharding
from sagelaunch.recommend.workload import Shape, Workload
from tests.entrypoints.conftest import TorchJob
from tests.recommend import oracle

PARTS = ("throughput", "memory", "resume", "paths")
PATHS_DRIVER = Path(__file__).with_name("paths_driver.py")
MFU_GOAL = 0.45  # the compiled 1.3B run, on a GPU
MEMORY_GOAL = 0.10  # each category within 10% of the trackers


@dataclass(frozen=True)
class Model:
    name: str
    layers: int
    hidden: int
    heads: int

    def args(self, seq_len: int, vocab: int, batch: int) -> list[str]:
        return [
            *("--model", "gpt", "--n_layer", str(self.layers), "--n_head", str(self.heads)),
            *("--n_embd", str(self.hidden), "--seq_len", str(seq_len)),
            *("--vocab_size", str(vocab), "--batch_size", str(batch)),
        ]


@dataclass(frozen=True)
class Sizes:
    """What one mode runs: the GPU's sizes, or tiny ones that run anywhere in seconds."""

    models: tuple[Model, ...]  # throughput, eager then (where compile_too) compiled
    compile_too: bool
    seq_len: int
    vocab: int
    batch: int
    steps: int
    warmup: int
    cells: tuple[oracle.Cell, ...]  # memory
    resume_model: Model
    resume_seq_len: int
    resume_steps: int
    kill_after: int
    checkpoint_every: int
    # "single" (one device, no group), "fsdp" (FSDP2 over a group); "-default": without
    # --deterministic, to see whether this device's default kernels repeat
    resume_variants: tuple[str, ...]
    paths: dict[str, int]


GPU = Sizes(
    models=(Model("350M", *oracle.SIZES["350M"]), Model("1.3B", *oracle.SIZES["1.3B"])),
    compile_too=True,
    seq_len=2048,
    vocab=32_000,
    batch=8,
    steps=20,
    warmup=6,  # the first steps compile (under --compile) and warm the allocator
    cells=(
        oracle.Cell("350M", "ddp", micro_batch=4, device="cuda"),
        oracle.Cell("1.3B", "ddp", micro_batch=4, device="cuda"),
        oracle.Cell("1.3B", "ddp", micro_batch=4, checkpointing=True, device="cuda"),
    ),
    resume_model=Model("50M", 6, 512, 8),  # checkpoints of 0.8 GB: the runs start and stop
    resume_seq_len=512,
    resume_steps=20,
    kill_after=12,
    checkpoint_every=10,
    resume_variants=("single", "fsdp", "single-default"),
    paths={"layers": 4, "hidden": 1024, "heads": 16, "seq_len": 1024, "vocab": 32_000},
)
TINY_CELL: dict[str, Any] = {"seq_len": 256, "micro_batch": 4, "vocab": 4096, "device": "cpu"}
TINY = Sizes(
    models=(Model("tiny", 2, 64, 2),),
    compile_too=False,  # inductor's C++ build on a CPU: half a minute, proven in tests/entrypoints
    seq_len=64,
    vocab=256,
    batch=4,
    steps=8,
    warmup=3,
    cells=(
        # one cell: checkpointing's recomputed block is most of a 2-block model's activations
        oracle.Cell("tiny", "ddp", **TINY_CELL),
    ),
    resume_model=Model("tiny", 1, 32, 2),
    resume_seq_len=16,
    resume_steps=12,
    kill_after=6,
    checkpoint_every=4,
    # one variant: the script's resume code is the same for each (the entry point's FSDP2 resume
    # on gloo is tests/entrypoints' own)
    resume_variants=("single",),
    paths={"layers": 2, "hidden": 128, "heads": 4, "seq_len": 64, "vocab": 512},
)


@dataclass
class Part:
    """One part's figures, its problems (failures) and its goals (name -> met)."""

    name: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    goals: dict[str, bool] = field(default_factory=dict)
    seconds: float = 0.0


@dataclass(frozen=True)
class Machine:
    device: str  # "cuda" or "cpu"
    name: str
    precision: str

    @property
    def job_env(self) -> dict[str, str]:
        """Entry-point runs get every core here (tests run them on one: two share a CPU); the
        model is built on the CPU first, 1.3B random weights a thread cannot draw quickly."""
        return {"OMP_NUM_THREADS": str(os.cpu_count() or 1)} if self.device == "cuda" else {}

    @staticmethod
    def here() -> Machine:
        if torch.cuda.is_available():
            return Machine("cuda", torch.cuda.get_device_name(0), "bf16")
        return Machine("cpu", "CPU", "fp32")

    def hardware(self) -> hardware.Hardware | None:
        """The catalog's figures for one accelerator of this kind (None: not in the catalog)."""
        if self.device != "cuda":
            return None
        from sagelaunch.catalog import facts

        for instance_type, known in facts.load("instances")["instances"].items():
            if known.get("kind") == "gpu" and str(known.get("accelerator")) in self.name:
                return dataclasses.replace(hardware.for_instance(instance_type), ranks_per_host=1)
        return None


# --------------------------------------------------------------------------------- throughput


def throughput(sizes: Sizes, machine: Machine, work: Path) -> Part:
    part = Part("throughput")
    hw = machine.hardware()
    for model in sizes.models:
        for compiled in (False, True) if sizes.compile_too else (False,):
            label = f"{model.name}{'-compiled' if compiled else ''}"
            args = model.args(sizes.seq_len, sizes.vocab, sizes.batch)
            args += ["--max_steps", str(sizes.steps), "--log_every", str(sizes.steps)]
            args += ["--benchmark", "--warmup_steps", str(sizes.warmup)]
            args += ["--precision", machine.precision] + (["--compile"] if compiled else [])
            job = TorchJob(work / label, machine.job_env)
            done = job.run(*args, timeout=900)
            if done.returncode != 0:
                part.problems.append(f"{label}: exit {done.returncode}: {done.stderr[-2000:]}")
                continue
            metrics = job.metrics()
            row = {
                "model": model.name,
                "params": metrics["num_params"],
                "compile": compiled,
                "tokens_per_s": metrics["steady_tokens_per_sec"],
                "mfu": metrics.get("mfu"),
            }
            if hw is not None:
                predicted = _predicted_tokens_per_s(model, sizes, metrics, compiled, hw)
                row["recommend_tokens_per_s"] = predicted
                row["recommend_ratio"] = predicted / metrics["steady_tokens_per_sec"]
            part.rows.append(row)
    largest = [r for r in part.rows if r["model"] == sizes.models[-1].name and r["compile"]]
    if machine.device == "cuda" and largest:
        part.goals[f"compiled {largest[0]['model']} MFU >= {MFU_GOAL:.0%}"] = (
            largest[0]["mfu"] or 0
        ) >= MFU_GOAL
    return part


def _predicted_tokens_per_s(
    model: Model, sizes: Sizes, metrics: dict[str, Any], compiled: bool, hw: hardware.Hardware
) -> float:
    work = Workload(
        params=metrics["num_params"],
        shape=Shape(model.layers, model.hidden, model.heads, estimated=False),
        seq_len=sizes.seq_len,
        micro_batch=sizes.batch,
        vocab=sizes.vocab,
        kernels="compiled" if compiled else "eager",
    )
    return steptime.step(work, Sharding(), hw, 1).tokens_per_s


# ------------------------------------------------------------------------------------- memory


def memory(sizes: Sizes, machine: Machine, work: Path) -> Part:
    part = Part("memory")
    cells = [dataclasses.replace(cell, device=machine.device) for cell in sizes.cells]
    for res in oracle.measure(cells):
        row: dict[str, Any] = {"cell": res.cell.name}
        for cat in oracle.COMPARED:
            row[cat] = {
                "recommend_gb": res.predicted[cat],
                "measured_gb": res.measured[cat],
                "ratio": res.ratios[cat],
            }
        if "allocator_peak" in res.measured:  # CUDA: the allocator's steady-state step
            predicted = oracle.breakdown(res)
            row["allocator_peak_gb"] = res.measured["allocator_peak"]
            row["allocator_reserved_gb"] = res.measured["allocator_reserved"]
            row["recommend_tensors_gb"] = predicted.total - predicted.overhead
            row["recommend_total_gb"] = predicted.total
        part.rows.append(row)
        part.goals[f"{res.cell.name} within {MEMORY_GOAL:.0%}"] = not oracle.breaches(res)
    return part


# ------------------------------------------------------------------------------------- resume


def resume(sizes: Sizes, machine: Machine, work: Path) -> Part:
    """Per variant: two uninterrupted runs (do the kernels repeat?) and one SIGKILLed after
    `kill_after` steps then restarted (does it end bit-identical?). Variants ending in
    "-default" run without --deterministic and are not killed: whether the default kernels
    repeat on this device."""
    part = Part("resume")
    model = sizes.resume_model.args(sizes.resume_seq_len, sizes.vocab, sizes.batch)
    run = [
        *model,
        *("--dropout", "0.1", "--precision", machine.precision, "--log_every", "1"),
        *("--checkpoint_every", str(sizes.checkpoint_every)),
        *("--max_steps", str(sizes.resume_steps)),
    ]
    for variant in sizes.resume_variants:
        extra = ["--parallel", "fsdp"] if variant.startswith("fsdp") else []
        default = variant.endswith("-default")
        extra += [] if default else ["--deterministic"]
        first, second = (TorchJob(work / f"{variant}-{n}", machine.job_env) for n in "ab")
        runs = [job.run(*run, *extra, timeout=600) for job in (first, second)]
        row: dict[str, Any] = {"variant": variant, "deterministic": not default}
        if not default:
            killed = TorchJob(work / f"{variant}-killed", machine.job_env)
            stopped = killed.kill_after_step(sizes.kill_after, *run, *extra)
            runs.append(killed.run(*run, *extra, timeout=600))
            if stopped.returncode != -9:
                part.problems.append(f"{variant}: the kill missed (exit {stopped.returncode})")
                continue
            row["killed_after_step"] = max(stopped.steps())
        failed = [r for r in runs if r.returncode != 0]
        if failed:
            part.problems.append(
                f"{variant}: exit {failed[0].returncode}: {failed[0].stderr[-2000:]}"
            )
            continue
        row["repeatable"] = _same(first.model(), second.model())
        if not default:
            resumed = runs[2].steps()
            row["resumed_at_step"] = min(resumed) - 1
            row["bit_identical"] = _same(killed.model(), first.model())
            row["losses_identical"] = all(resumed[s] == runs[0].steps()[s] for s in resumed)
            if not (row["bit_identical"] and row["losses_identical"]):
                part.problems.append(
                    f"{variant}: the resumed run differs from the uninterrupted one"
                )
        part.rows.append(row)
    return part


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


# -------------------------------------------------------------------------------------- paths


def paths(sizes: Sizes, machine: Machine, work: Path) -> Part:
    part = Part("paths")
    spec = {**sizes.paths, "device": machine.device, "micro_batch": 4, "steps": 4}
    spec["precision"] = machine.precision
    done = subprocess.run(
        [sys.executable, str(PATHS_DRIVER), json.dumps(spec)], capture_output=True, text=True
    )
    if done.returncode != 0:
        part.problems.append(f"tp+sp+fsdp: exit {done.returncode}: {done.stderr[-2000:]}")
        return part
    found = json.loads(done.stdout.splitlines()[-1])
    worst = max(
        abs(a - b) / abs(a) for a, b in zip(found["plain"], found["tp_sp_fsdp"], strict=True)
    )
    found["max_relative_difference"] = worst
    part.rows.append(found)
    if found["dtensor_parameters"] != found["parameters"]:
        part.problems.append("tp+sp+fsdp: some parameters are not DTensors (not sharded)")
    if worst > 0.01:  # bf16 weights in FSDP2 against autocast over fp32 weights: ~1e-4 apart
        part.problems.append(f"tp+sp+fsdp: losses differ from the plain model's by {worst:.2%}")
    return part


RUNNERS: dict[str, Callable[[Sizes, Machine, Path], Part]] = {
    "throughput": throughput,
    "memory": memory,
    "resume": resume,
    "paths": paths,
}


# ------------------------------------------------------------------------------------- report


def report(machine: Machine, parts: list[Part]) -> str:
    """The Markdown the docs' performance page holds."""
    cuda = torch.version.cuda or "none"
    lines = [
        f"gpu-check on {machine.name}, torch {torch.__version__} (CUDA {cuda}), "
        f"{datetime.date.today().isoformat()}",
        "",
    ]
    for part in parts:
        lines += [f"### {part.name} ({part.seconds:.0f} s)", ""]
        lines += [*TABLES[part.name](part.rows), ""]
        lines += [
            f"- goal {'met' if met else 'MISSED'}: {goal}" for goal, met in part.goals.items()
        ]
        lines += [f"- PROBLEM: {problem}" for problem in part.problems]
        lines += [""] if part.goals or part.problems else []
    return "\n".join(lines)


def _md(header: list[str], rows: list[list[str]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "|".join(" --- " for _ in header) + "|",
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


def _count(n: int) -> str:
    return f"{n / 1e9:.2f}B" if n >= 1e9 else f"{n / 1e6:.0f}M" if n >= 1e6 else f"{n:,}"


def _fmt(value: float | None, spec: str) -> str:
    return "–" if value is None else format(value, spec)


def _throughput_table(rows: list[dict[str, Any]]) -> list[str]:
    header = ["model", "parameters", "compile", "tokens/s", "MFU", "recommend tokens/s", "ratio"]
    return _md(
        header,
        [
            [
                r["model"],
                _count(r["params"]),
                "yes" if r["compile"] else "no",
                f"{r['tokens_per_s']:,.0f}",
                _fmt(r["mfu"], ".1%"),
                _fmt(r.get("recommend_tokens_per_s"), ",.0f"),
                _fmt(r.get("recommend_ratio"), ".2f"),
            ]
            for r in rows
        ],
    )


def _memory_table(rows: list[dict[str, Any]]) -> list[str]:
    header = [
        "cell",
        *oracle.COMPARED,
        "steady step: allocated / reserved, recommend's tensors / total",
    ]
    body = []
    for r in rows:
        cats = [
            f"{r[c]['recommend_gb']:.2f} / {r[c]['measured_gb']:.2f} ({r[c]['ratio']:.2f}×)"
            for c in oracle.COMPARED
        ]
        peak = "–"
        if "allocator_peak_gb" in r:
            peak = (
                f"{r['allocator_peak_gb']:.2f} / {r['allocator_reserved_gb']:.2f}, "
                f"{r['recommend_tensors_gb']:.2f} / {r['recommend_total_gb']:.2f} GB"
            )
        body.append([r["cell"], *cats, peak])
    note = "(per category: recommend GB / tracker GB, and their ratio; the trackers' step is"
    note += " the first, the allocator's the next, with the optimizer's state in place)"
    return [*_md(header, body), "", note]


def _resume_table(rows: list[dict[str, Any]]) -> list[str]:
    header = ["variant", "--deterministic", "runs repeat", "killed after", "resumed at"]
    header.append("resume bit-identical")
    body = []
    for r in rows:
        killed = "killed_after_step" in r
        identical = r.get("bit_identical") and r.get("losses_identical")
        body.append(
            [
                r["variant"],
                "yes" if r["deterministic"] else "no",
                "yes" if r["repeatable"] else "no",
                f"step {r['killed_after_step']}" if killed else "–",
                f"step {r['resumed_at_step']}" if killed else "–",
                ("yes" if identical else "NO") if killed else "–",
            ]
        )
    return _md(header, body)


def _paths_table(rows: list[dict[str, Any]]) -> list[str]:
    header = ["path", "backend", "DTensor parameters", "loss, plain", "loss, TP+SP+FSDP2"]
    return _md(
        header,
        [
            [
                "TP + SP + FSDP2, one rank",
                r["backend"],
                f"{r['dtensor_parameters']} of {r['parameters']}",
                " ".join(f"{x:.4f}" for x in r["plain"]),
                " ".join(f"{x:.4f}" for x in r["tp_sp_fsdp"]),
            ]
            for r in rows
        ],
    )


TABLES: dict[str, Callable[[list[dict[str, Any]]], list[str]]] = {
    "throughput": _throughput_table,
    "memory": _memory_table,
    "resume": _resume_table,
    "paths": _paths_table,
}


# --------------------------------------------------------------------------------------- main


def run(tiny: bool, names: list[str], out: Path | None, work: Path) -> tuple[list[Part], str]:
    machine = Machine.here()
    sizes = TINY if tiny else GPU
    parts = []
    for name in names:
        began = time.monotonic()
        try:
            part = RUNNERS[name](sizes, machine, work / name)
        except Exception as exc:  # one part's crash must not lose the others' figures
            part = Part(name, problems=[f"{type(exc).__name__}: {exc}"])
        part.seconds = time.monotonic() - began
        parts.append(part)
        print(f"{name}: done in {part.seconds:.0f} s", file=sys.stderr, flush=True)
        if out is not None:  # after every part: a run cut short keeps what it measured
            _write(out, machine, parts)
    return parts, report(machine, parts)


def _write(out: Path, machine: Machine, parts: list[Part]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    figures = {"machine": dataclasses.asdict(machine), "torch": torch.__version__}
    figures["parts"] = [dataclasses.asdict(part) for part in parts]
    (out / "gpu-check.json").write_text(json.dumps(figures, indent=2, default=str))
    (out / "gpu-check.md").write_text(report(machine, parts))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="tiny models: seconds, on any device")
    parser.add_argument("--parts", default=",".join(PARTS), help="comma-separated subset")
    parser.add_argument("--out", type=Path, help="write gpu-check.md and gpu-check.json here")
    args = parser.parse_args(argv)
    names = [name for name in args.parts.split(",") if name]
    unknown = sorted(set(names) - set(PARTS))
    if unknown:
        parser.error(f"unknown parts {unknown}; choose from {', '.join(PARTS)}")
    tiny = args.tiny or not torch.cuda.is_available()
    if tiny and not args.tiny:
        print("no CUDA device here: the tiny dry run (the GPU sizes need a GPU)", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as work:
        parts, text = run(tiny, names, args.out, Path(work))
    print(text, flush=True)
    return 1 if any(part.problems for part in parts) else 0


if __name__ == "__main__":
    sys.exit(main())

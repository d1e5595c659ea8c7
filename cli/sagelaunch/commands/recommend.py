"""`sagelaunch recommend --params 7B`: DDP, FSDP or model parallel, and how many instances."""

from __future__ import annotations

import shlex
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer
from rich.table import Table

from sagelaunch.errors import UsageError
from sagelaunch.output import OutputFormat, OutputOption, print_json, stderr, stdout

if TYPE_CHECKING:
    from sagelaunch.recommend.layouts import Candidate, Device
    from sagelaunch.recommend.planner import Recommendation
    from sagelaunch.recommend.workload import Model
    from sagelaunch.recommend.workload import Optimizer as OptimizerChoice
    from sagelaunch.recommend.workload import Precision as PrecisionName


class Precision(str, Enum):
    bf16 = "bf16"
    fp32 = "fp32"
    fp8 = "fp8"


class Offload(str, Enum):
    none = "none"
    optimizer = "optimizer"
    all = "all"


class OptimizerName(str, Enum):
    adamw = "adamw"
    adam = "adam"
    sgd = "sgd"


class SelectivePolicy(str, Enum):
    activations = "activations"
    ops = "ops"


def recommend(
    ctx: typer.Context,
    params: Annotated[
        str | None,
        typer.Option("--params", help="Model size: 125M, 1.3B, 7B, 70B, 7e9, 7000000000."),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            help="A published shape: llama2-7b/13b/70b, llama3-8b/70b/405b, mistral-7b, "
            "gpt-neox-20b.",
        ),
    ] = None,
    model_config: Annotated[
        Path | None,
        typer.Option("--model-config", help="A Hugging Face config.json to read the shape from."),
    ] = None,
    instance_type: Annotated[
        str, typer.Option("--instance-type", help="Training instance type.")
    ] = "ml.p4d.24xlarge",
    instance_count: Annotated[
        int | None,
        typer.Option(
            "--instance-count",
            min=1,
            max=256,
            help="Plan for this many instances (default: the fewest that fit).",
        ),
    ] = None,
    precision: Annotated[
        Precision, typer.Option("--precision", help="bf16 mixed precision, fp32, or fp8.")
    ] = Precision.bf16,
    optimizer: Annotated[
        OptimizerName, typer.Option("--optimizer", help="adamw/adam (2 states) or sgd (momentum).")
    ] = OptimizerName.adamw,
    seq_len: Annotated[int, typer.Option("--seq-len", min=1, help="Tokens per sample.")] = 2048,
    micro_batch: Annotated[
        int, typer.Option("--micro-batch", min=1, help="Samples per device per micro-step.")
    ] = 1,
    layers: Annotated[
        int | None, typer.Option("--layers", min=1, help="Transformer blocks (default: estimated).")
    ] = None,
    hidden: Annotated[
        int | None, typer.Option("--hidden", min=1, help="Hidden size (default: estimated).")
    ] = None,
    activation_checkpointing: Annotated[
        bool,
        typer.Option("--activation-checkpointing", help="Recompute activations in backward."),
    ] = False,
    activation_offload: Annotated[
        bool,
        typer.Option(
            "--activation-offload",
            help="Keep saved activations in host memory (train_pytorch.py --activation_offload).",
        ),
    ] = False,
    eager_attention: Annotated[
        bool,
        typer.Option(
            "--eager-attention",
            help="Attention without SDPA/flash: every score stored, and timed through memory.",
        ),
    ] = False,
    selective_checkpointing: Annotated[
        bool,
        typer.Option(
            "--selective-checkpointing",
            help="With --activation-checkpointing: recompute only part of each block "
            "(--selective-policy says which).",
        ),
    ] = False,
    selective_policy: Annotated[
        SelectivePolicy,
        typer.Option(
            "--selective-policy",
            help="What --selective-checkpointing keeps: 'activations' every matmul's output "
            "(the activation functions recomputed); 'ops' torchtitan's per-op policy "
            "(selective_ac_option 'op': the attention's and every second matmul's outputs).",
        ),
    ] = SelectivePolicy.activations,
    grad_accum: Annotated[
        int,
        typer.Option(
            "--grad-accum",
            min=1,
            help="Micro-batches per optimizer step (a pipeline's micro-batches).",
        ),
    ] = 1,
    global_batch: Annotated[
        int | None,
        typer.Option(
            "--global-batch",
            min=1,
            help="Sequences per optimizer step over every data-parallel rank, the same for "
            "each layout: each accumulates its share (instead of --grad-accum).",
        ),
    ] = None,
    compile_: Annotated[
        bool,
        typer.Option("--compile", help="torch.compile: fused kernels, less memory traffic."),
    ] = False,
    zero_stage: Annotated[
        int,
        typer.Option(
            "--zero-stage", min=0, max=3, help="Plan DeepSpeed ZeRO 1, 2 or 3 (0: the ladder)."
        ),
    ] = 0,
    offload: Annotated[
        Offload, typer.Option("--offload", help="ZeRO: optimizer (2, 3) or all (3) on the CPU.")
    ] = Offload.none,
    output: OutputOption = OutputFormat.table,
    emit_deepspeed_config: Annotated[
        Path | None,
        typer.Option("--emit-deepspeed-config", help="Write the ZeRO layout's DeepSpeed JSON."),
    ] = None,
    emit_config: Annotated[
        Path | None,
        typer.Option("--emit-config", help="Write a launch config that runs the recommendation."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite --emit-config's file.")] = False,
    pick: Annotated[
        int,
        typer.Option(
            "--pick",
            min=1,
            help="Take the Nth layout of the tables (1: the recommendation) as the plan: "
            "for the output and --emit-config.",
        ),
    ] = 1,
) -> None:
    """Pick DDP, FSDP, SMP v2 or Neuron torchrun and an instance count from a memory model."""
    from sagelaunch.cli_params import output_file
    from sagelaunch.recommend import layouts, planner
    from sagelaunch.recommend.workload import (
        DEFAULT_VOCAB,
        Workload,
        estimate_shape,
        parse_params,
    )

    output_file(emit_config, "--emit-config", "job.yaml")
    output_file(emit_deepspeed_config, "--emit-deepspeed-config", "ds_config.json")
    if emit_config is not None and emit_config.exists() and not force:
        raise UsageError(f"{emit_config} exists", hint="pass --force to overwrite it")
    _check_checkpointing(activation_checkpointing, selective_checkpointing, selective_policy)
    if global_batch is not None and grad_accum > 1:
        raise UsageError(
            "--global-batch and --grad-accum both set the micro-batches of a step",
            hint="give --global-batch (each layout accumulates its share) or --grad-accum",
        )
    known = _model(params, model, model_config)
    count = known.params if known else parse_params(params or "")
    shape = known.shape if known else estimate_shape(count, layers, hidden)
    workload = Workload(
        params=count,
        shape=shape,
        vocab=known.vocab if known else DEFAULT_VOCAB,
        selective_checkpointing=selective_checkpointing,
        selective_policy=selective_policy.value,
        grad_accum=grad_accum,
        global_batch=global_batch,
        kernels="compiled" if compile_ else "eager",
        seq_len=seq_len,
        micro_batch=micro_batch,
        precision=cast("PrecisionName", precision.value),
        optimizer=cast("OptimizerChoice", optimizer.value),
        activation_checkpointing=activation_checkpointing,
        activation_offload=activation_offload,
        attention="unfused" if eager_attention else "flash",
        attention_dropout=bool(known and known.attention_dropout),
        zero_stage=_zero_stage(zero_stage, offload, emit_deepspeed_config),
        zero_offload=offload.value,
    )
    rec = planner.recommend(workload, layouts.device(instance_type), instance_count).pick(pick)
    if output is OutputFormat.json:
        print_json(rec.as_json())
    else:
        _print(rec)
    if emit_config is not None:
        _write_config(emit_config, rec, _invocation(ctx))
    if emit_deepspeed_config is not None:
        _write_deepspeed_config(emit_deepspeed_config, rec, force)


def _model(params: str | None, name: str | None, config: Path | None) -> Model | None:
    """The shape from --model or --model-config (exactly one of them or --params)."""
    import json

    from sagelaunch.recommend.workload import config_model, named_model

    given = [
        flag
        for flag, value in (("--params", params), ("--model", name), ("--model-config", config))
        if value
    ]
    if len(given) != 1:
        raise UsageError(
            "give one of --params, --model and --model-config"
            + (f" (got {' and '.join(given)})" if given else ""),
            hint="e.g. --params 7B, --model llama3-70b or --model-config config.json",
        )
    if name:
        return named_model(name)
    if config:
        try:
            data = json.loads(config.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise UsageError(f"cannot read {config}: {err}") from err
        if not isinstance(data, dict):
            raise UsageError(f"{config} is not a JSON object")
        return config_model(data, config.name)
    return None


def _zero_stage(stage: int, offload: Offload, emit: Path | None) -> int:
    if offload is not Offload.none and not stage:
        raise UsageError("--offload is a ZeRO setting", hint="add --zero-stage 2 or 3")
    if offload is Offload.all and stage != 3:
        raise UsageError("--offload all needs --zero-stage 3 (ZeRO-3 partitions the weights)")
    if emit is not None and not stage:
        raise UsageError("--emit-deepspeed-config needs --zero-stage 1, 2 or 3")
    return stage


def _write_deepspeed_config(target: Path, rec: Recommendation, force: bool) -> None:
    import json

    from sagelaunch.recommend.planner import zero_json

    if target.exists() and not force:
        raise UsageError(f"{target} exists", hint="pass --force to overwrite it")
    config = zero_json(rec.workload, rec.chosen)["deepspeed_config"]
    target.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    stderr.print(
        f"wrote [bold]{target}[/bold] — pass it as the hyperparameter deepspeed_config "
        "(relative to source_dir)"
    )


def _write_config(target: Path, rec: Recommendation, command: str) -> None:
    from sagelaunch.recommend.emit import launch_config, not_in_job

    if not rec.chosen.fits:
        raise UsageError(
            f"not writing {target}: the recommended layout does not fit",
            hint="follow the reason above (more instances, --activation-checkpointing, ...)",
        )
    target.write_text(launch_config(rec, command), encoding="utf-8")
    for missing in not_in_job(rec.workload):
        stderr.print(f"warning: not in {target} (train_pytorch.py has no flag for it): {missing}")
    stderr.print(f"wrote [bold]{target}[/bold] — next: sagelaunch validate {target}")


def _check_checkpointing(activation: bool, selective: bool, policy: SelectivePolicy) -> None:
    """Each checkpointing option only refines the one before it: alone it would change nothing."""
    if policy != SelectivePolicy.activations and not selective:
        raise UsageError(
            "--selective-policy chooses what --selective-checkpointing keeps",
            hint="add --activation-checkpointing --selective-checkpointing",
        )
    if selective and not activation:
        raise UsageError(
            "--selective-checkpointing recomputes part of each checkpointed block",
            hint="add --activation-checkpointing",
        )


def _invocation(ctx: typer.Context) -> str:
    """The planning options as a command line, for the emitted config's header."""
    parts = ["sagelaunch", "recommend"]
    for param in ctx.command.params:
        value = ctx.params.get(param.name or "")
        value = value.value if isinstance(value, Enum) else value
        default = param.default.value if isinstance(param.default, Enum) else param.default
        if param.name in _NOT_PLANNING or value is None or value is False or value == default:
            continue
        parts += [param.opts[0]] if value is True else [param.opts[0], str(value)]
    return shlex.join(parts)


_NOT_PLANNING = {"output", "emit_config", "emit_deepspeed_config", "force", "model_config"}


def _print(rec: Recommendation) -> None:
    from sagelaunch.recommend.planner import model_json

    model = model_json(rec.workload)
    chosen, dev = rec.chosen, rec.device
    verdict = "[green]recommend[/green]" if chosen.fits else "[red]no fit[/red]"
    stdout.print(
        f"{verdict} [bold]{chosen.parallelism}[/bold] on [bold]{chosen.instance_count} × "
        f"{dev.instance_type}[/bold]: {chosen.layout}"
    )
    stdout.print(rec.reason)
    stdout.print(
        f"[dim]model: {model['params']:,} params, {model['layers']} layers × {model['hidden']} "
        f"hidden, seq {model['seq_len']} × micro-batch {model['micro_batch']}, "
        f"{model['precision']} {model['optimizer']}: {model['state_bytes_per_param']} B/param = "
        f"{model['states_gb']} GB of states before sharding; {dev.ranks_per_host} × "
        f"{dev.memory_gb:.1f} GB (10^9 bytes{_as_reported(dev)}) per instance, "
        f"{dev.usable_gb:.1f} GB usable[/dim]"
    )
    stdout.print(_table(rec, rec.shown(), chosen))
    stdout.print(_speed_table(rec, rec.shown(), chosen))
    for note in rec.notes:
        stdout.print(f"[yellow]note:[/yellow] {note}")


def _as_reported(dev: Device) -> str:
    """GPUs' memory is the capacity CUDA reports (hardware.accelerator_memory_gb); a
    NeuronCore's is its share of the chip's published HBM."""
    if dev.kind != "gpu":
        return ", a NeuronCore's share of its chip"
    if dev.measured:
        return ", as CUDA reports it"
    return f", the datasheet's nominal figure: what CUDA reports on {dev.accelerator} is unknown"


def _speed_table(rec: Recommendation, rows: list[Candidate], chosen: Candidate) -> Table:
    """Step time, throughput and cost per layout, in the memory table's order."""
    table = Table(box=None, header_style="bold", padding=(0, 1, 0, 0), pad_edge=False)
    dev = chosen.device
    table.title = (
        f"Step time ({dev.accelerator}): compute at the achieved efficiency, exposed "
        "communication, memory traffic (and pipeline bubble), seconds per optimizer step; "
        "bound: the largest term"
    )
    table.title_justify = "left"
    _layout_columns(table)
    pipelined = any(cand.sharding.pipeline_parallel > 1 for cand in rows)
    for name in ("comp", "comm", "mem", *(["bubble"] if pipelined else []), "step s"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("bound", no_wrap=True)
    for name in ("tok/s", "Mtok/$"):
        table.add_column(name, justify="right", no_wrap=True)
    for cand in rows:
        speed = cand.speed(rec.workload)
        per_dollar = speed.tokens_per_dollar
        bubble = [f"{speed.bubble_s:.2f}"] if pipelined else []
        table.add_row(
            cand.parallelism,
            str(cand.instance_count),
            cand.short,
            f"{speed.compute_s:.2f}",
            f"{speed.communication_s:.2f}",
            f"{speed.memory_s:.2f}",
            *bubble,
            f"{speed.seconds:.2f}",
            {"communication": "comm", "compute": "comp", "memory": "mem"}.get(
                speed.dominant, speed.dominant
            ),
            f"{speed.tokens_per_s:,.0f}",
            f"{per_dollar / 1e6:.2f}" if per_dollar is not None else "?",
            style="bold" if cand is chosen else None,
        )
    return table


def _table(rec: Recommendation, rows: list[Candidate], chosen: Candidate) -> Table:
    rank = chosen.device.rank_name
    table = Table(box=None, header_style="bold", padding=(0, 1, 0, 0), pad_edge=False)
    table.title = (
        f"GB per {rank} at peak (usable: {chosen.device.usable_gb:.1f}); "
        "recommended first, then fitting layouts by tokens per dollar"
    )
    table.title_justify = "left"
    _layout_columns(table)
    for name in ("weights", "grads", "optim", "activ", "other", "total"):  # GB
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("fits?", no_wrap=True)
    for cand in rows:
        mem = cand.memory
        cells = [mem.weights, mem.gradients, mem.optimizer, mem.activations, mem.overhead]
        table.add_row(
            cand.parallelism,
            str(cand.instance_count),
            cand.short,
            *(f"{value:.1f}" for value in cells),
            f"[bold]{mem.total:.1f}[/bold]",
            "[green]yes[/green]" if cand.fits else "[red]no[/red]",
            style="bold" if cand is chosen else None,
        )
    return table


def _layout_columns(table: Table) -> None:
    """parallelism, inst and layout; on a narrow terminal a long layout ("TP2 SP + shard 112")
    wraps rather than the figures to its right being cut."""
    for name in ("parallelism", "inst"):
        table.add_column(name, no_wrap=True)
    table.add_column("layout", min_width=9)

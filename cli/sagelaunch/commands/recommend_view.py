"""How `recommend` looks: the verdict and its reason, the model's figures, the memory table and
the step-time table (recommended first, then fitting layouts by tokens per dollar), the notes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table

from sagelaunch.output import stdout

if TYPE_CHECKING:
    from sagelaunch.recommend.hardware import Hardware
    from sagelaunch.recommend.layouts import Candidate
    from sagelaunch.recommend.planner import Recommendation


def render(rec: Recommendation) -> None:
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


def _as_reported(dev: Hardware) -> str:
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

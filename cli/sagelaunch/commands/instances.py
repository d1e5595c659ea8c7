"""`sagelaunch instances [TYPE...]`: the instance catalog as plan, validate and recommend read it;
`--refresh` rebuilds it from EC2's live DescribeInstanceTypes answers into the cache folder."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from sagelaunch.errors import UsageError
from sagelaunch.output import OutputFormat, OutputOption, RegionOption, show, stderr, stdout


def instances(
    ctx: typer.Context,
    types: Annotated[
        list[str] | None,
        typer.Argument(help="Instance types to show (default: every GPU and Trainium type)."),
    ] = None,
    refresh: Annotated[
        bool,
        typer.Option(
            "--refresh",
            help="Ask EC2 (DescribeInstanceTypes, needs AWS credentials) and keep its answers "
            "in the cache folder, where plan, validate and recommend then read them.",
        ),
    ] = False,
    output: OutputOption = OutputFormat.table,
    region: RegionOption = None,
) -> None:
    """Show the instance catalog: accelerators, memory, network, EFA, processes per host."""
    from sagelaunch.catalog import facts

    if refresh:
        _refresh(ctx, region)
    catalog = facts.catalog()
    wanted = list(types or [t for t, e in catalog["instances"].items() if e["kind"] != "cpu"])
    _require_known(wanted, catalog)
    rows = [{"instance_type": t, **catalog["instances"][t]} for t in wanted]
    for row in rows:
        row["processes_per_host"] = facts.accelerators_per_host(row["instance_type"])
    show(rows, output, _render)


def _require_known(wanted: list[str], catalog: dict[str, Any]) -> None:
    from sagelaunch.nearest import nearest

    for name in wanted:
        if name in catalog["instances"]:
            continue
        close = nearest(name, catalog["instances"], cutoff=0.85)
        why = catalog["excluded"].get(name)
        raise UsageError(
            f"{name} is not in the instance catalog"
            + (f" ({why})" if why else f" ({catalog['sources']['types']})"),
            hint=f"did you mean {' or '.join(close)}?" if close else "e.g. ml.p5.48xlarge",
        )


def _refresh(ctx: typer.Context, region: str | None) -> None:
    from sagelaunch.services.catalog_refresh import refresh
    from sagelaunch.services.clients import connect

    refreshed = refresh(connect(ctx.obj, region), progress=stderr.print)
    stderr.print(refreshed.summary)
    for change in refreshed.changes:
        stderr.print(f"  {change}")


def _render(rows: list[dict[str, Any]]) -> None:
    from rich.table import Table

    table = Table(box=None, header_style="bold", padding=(0, 1, 0, 0), pad_edge=False)
    for column in ("type", "accelerators", "memory", "vCPUs", "RAM GiB", "network", "EFA", "procs"):
        table.add_column(column)
    for row in rows:
        unknown = row.get("unknown", {})
        network = row.get("network_gbps")
        table.add_row(
            row["instance_type"],
            f"{row['accelerators']} × {row['accelerator']}" if row["accelerators"] else "-",
            f"{row['accelerator_memory_gb']} GB" if row.get("accelerator_memory_gb") else "-",
            str(row["vcpus"]),
            str(row["memory_gib"]),
            f"{network} Gbps" if network is not None else f"unknown ({unknown['network_gbps']})",
            "yes" if row["efa"] else "no",
            str(row["processes_per_host"]),
        )
    stdout.print(table)

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
            help="Ask EC2 (DescribeInstanceTypes, needs AWS credentials) for every training "
            "type and keep the catalog built from its answers in the cache folder, where plan, "
            "validate and recommend then read it.",
        ),
    ] = False,
    output: OutputOption = OutputFormat.table,
    region: RegionOption = None,
) -> None:
    """Show the instance catalog: accelerators, memory, network, EFA, processes per host."""
    from sagelaunch.catalog import facts

    _require_known(list(types or []), facts.catalog())  # a typo costs no call to EC2
    if refresh:
        _refresh(ctx, region)
    catalog = facts.catalog()
    wanted = list(types or [t for t, e in catalog["instances"].items() if e["kind"] != "cpu"])
    rows = [{"instance_type": t, **catalog["instances"][t]} for t in dict.fromkeys(wanted)]
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

    refreshed = refresh(connect(ctx.obj, region), progress=stderr.status)
    stderr.print(refreshed.summary)
    for change in refreshed.changes:
        stderr.print(f"  {change}")
    if refreshed.kept:
        stderr.print(f"  kept from the shipped catalog: {', '.join(refreshed.kept)}")


def _render(rows: list[dict[str, Any]]) -> None:
    from rich.table import Table

    table = Table(box=None, header_style="bold", padding=(0, 1, 0, 0), pad_edge=False)
    for column in ("type", "accelerators", "accel. memory", "vCPUs", "memory GiB", "network"):
        table.add_column(column)
    for column in ("EFA", "procs/host", "source"):
        table.add_column(column)
    for row in rows:
        table.add_row(
            row["instance_type"],
            f"{row['accelerators']} × {row['accelerator']}" if row["accelerators"] else "-",
            _figure(row, "accelerator_memory_gb", "GB") if row["accelerators"] else "-",
            str(row["vcpus"]),
            _figure(row, "memory_gib", ""),
            _figure(row, "network_gbps", "Gbps"),
            "yes" if row["efa"] else "no",
            str(row["processes_per_host"]),
            _source(str(row.get("source", ""))),
        )
    stdout.print(table)


def _figure(row: dict[str, Any], key: str, unit: str) -> str:
    """A figure with its unit, or ``unknown (why)`` where the entry records why it is unknown."""
    why = row.get("unknown", {}).get(key)
    if why:
        return f"unknown ({why})"
    value = row.get(key)
    return "-" if value is None else f"{value} {unit}".strip()


def _source(source: str) -> str:
    """The entry's source, short: EC2's data as shipped, EC2 asked live, or AWS's page."""
    if source == "ec2" or source.startswith("the shipped catalog"):
        return "EC2 data (shipped)"
    if source.startswith("ec2 DescribeInstanceTypes "):
        return "EC2 " + source.removeprefix("ec2 DescribeInstanceTypes ")
    return source.split(" ")[0]  # AWS's published page, with what it says after it

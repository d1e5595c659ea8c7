"""`sagelaunch metrics JOB|RUN_DIR`: metric series as a table, a terminal chart or a PNG."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sagelaunch.output import OutputFormat, OutputOption, RegionOption, print_json, stderr, stdout

if TYPE_CHECKING:
    from sagelaunch.services.metric_sources import Found


def metrics(
    ctx: typer.Context,
    target: Annotated[
        str,
        typer.Argument(
            help="A training job name, a local run (its folder, or its name under "
            ".sagelaunch/runs), or a sweep's results file (sweep --results F.json)."
        ),
    ],
    metric: Annotated[
        str | None,
        typer.Option("--metric", "-m", help="Only this metric (e.g. train:loss), every point."),
    ] = None,
    plot: Annotated[
        bool, typer.Option("--plot", help="Draw the series in the terminal (needs plotext).")
    ] = False,
    png: Annotated[
        Path | None,
        typer.Option("--png", help="Write the series as a PNG chart here (needs matplotlib)."),
    ] = None,
    output: OutputOption = OutputFormat.table,
    region: RegionOption = None,
) -> None:
    """Show a job's or a local run's metrics over time: table, chart, PNG.

    A local run's metrics are read from its host logs with the job's metric definitions (x: the
    step); a SageMaker job's from CloudWatch (x: seconds since its first point); a sweep's per
    trial (x: the trial). json keys: source (local, sagemaker, sweep), name, metrics, series
    (metric, host, x, points)."""
    from sagelaunch.cli_params import output_file
    from sagelaunch.services.clients import connect
    from sagelaunch.services.metric_sources import find

    output_file(png, "--png", "metrics.png")
    found = find(target, metric, lambda: connect(ctx.obj, region))
    if not found.series:
        stderr.print(f"no metric points recorded for {found.name} yet", highlight=False)
    if png is not None and found.series:
        from sagelaunch.metrics.charts import png as draw_png

        draw_png(found.series, found.name, png)
        stderr.print(f"wrote {png}", highlight=False)
    if output is OutputFormat.json:
        print_json(found.as_json())
    elif plot and found.series:
        from sagelaunch.metrics.charts import terminal

        typer.echo(terminal(found.series, Path(found.name).name))
    else:
        _table(found, metric)


def _table(found: Found, metric: str | None) -> None:
    from rich.table import Table

    if metric is not None:
        _points(found, metric)
        return
    table = Table(box=None, header_style="bold", title=f"metrics of {found.name}")
    for column in ("metric", "host", "points", "first", "last", "min", "max"):
        table.add_column(column, justify="left" if column in ("metric", "host") else "right")
    for series in found.series:
        row = series.summary()
        table.add_row(
            *(
                _cell(row[key])
                for key in ("metric", "host", "points", "first", "last", "min", "max")
            )
        )
    stdout.print(table)


def _points(found: Found, metric: str) -> None:
    """One row per step (or time), one column per host."""
    from rich.table import Table

    x_label = found.series[0].x_label
    hosts = [s.host for s in found.series]
    rows: dict[float, dict[str, float]] = {}
    for series in found.series:
        for point in series.points:
            rows.setdefault(point.x, {})[series.host] = point.value
    table = Table(box=None, header_style="bold", title=f"{metric} — {found.name}")
    table.add_column(x_label, justify="right")
    for host in hosts:
        table.add_column(host, justify="right")
    for x in sorted(rows):
        table.add_row(_cell(x), *(_cell(rows[x].get(host)) for host in hosts))
    stdout.print(table)


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:g}" if not value.is_integer() else str(int(value))
    return str(value)

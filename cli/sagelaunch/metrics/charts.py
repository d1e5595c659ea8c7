"""Charts of metric series: in the terminal (plotext) and as a PNG (matplotlib, Agg backend).

Both libraries are the optional `charts` extra, imported only here and only when a chart is
asked for; without them the command says how to install them (exit 2).
"""

from __future__ import annotations

import importlib
import io
from pathlib import Path
from types import ModuleType

from sagelaunch import atomic
from sagelaunch.errors import UsageError
from sagelaunch.metrics.series import Series, metric_names


def install_hint() -> str:
    from sagelaunch.install_hint import install_extra

    return f"{install_extra('charts')} (in a checkout: make setup)"


def _require(module: str, what: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UsageError(
            f"{what} needs {module.split('.')[0]}, which is not installed", hint=install_hint()
        ) from None


def terminal(
    series: list[Series], title: str, width: int | None = None, height: int | None = None
) -> str:
    """One chart per metric, every host a line, as text for the terminal."""
    plt = _require("plotext", "--plot")
    charts = []
    for name in metric_names(series):
        plt.clear_figure()
        if width and height:
            plt.plotsize(width, height)
        for s in (s for s in series if s.metric == name):
            plt.plot([p.x for p in s.points], [p.value for p in s.points], label=s.host)
        plt.title(f"{name} — {title}")
        plt.xlabel(series[0].x_label)
        charts.append(plt.build())
    return "\n".join(charts)


def png(series: list[Series], title: str, path: Path) -> None:
    """One panel per metric (shared x axis), every host a line, written to ``path``."""
    matplotlib = _require("matplotlib", "--png")
    matplotlib.use("Agg")  # files only: no display, no GUI toolkit
    pyplot = importlib.import_module("matplotlib.pyplot")
    names = metric_names(series)
    figure, axes = pyplot.subplots(
        len(names), 1, figsize=(8, 2.6 * len(names) + 0.6), sharex=True, squeeze=False
    )
    for axis, name in zip(axes[:, 0], names, strict=True):
        for s in (s for s in series if s.metric == name):
            marker = "o" if len(s.points) <= 60 else None  # few points: show where they are
            axis.plot(
                [p.x for p in s.points],
                [p.value for p in s.points],
                label=s.host,
                linewidth=1.4,
                marker=marker,
                markersize=3,
            )
        axis.set_ylabel(name)
        axis.grid(True, alpha=0.3)
        if len({s.host for s in series if s.metric == name}) > 1:
            axis.legend(loc="best", fontsize="small")
    axes[-1, 0].set_xlabel(series[0].x_label)
    figure.suptitle(f"metrics of {title}")
    figure.tight_layout()
    image = io.BytesIO()
    figure.savefig(image, format="png", dpi=120)
    pyplot.close(figure)
    atomic.write_bytes(path, image.getvalue())  # a reader never sees half a PNG

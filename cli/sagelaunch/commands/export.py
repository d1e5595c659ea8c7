"""`sagelaunch export CONFIG`: the job as a plain SageMaker SDK script (v2 or v3)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from sagelaunch.output import RegionOption, SetOption, stderr


class Sdk(str, Enum):
    v2 = "v2"
    v3 = "v3"


def export(
    target: Annotated[
        Path, typer.Argument(help="Launch config (YAML) or a saved plan (plan.json).")
    ],
    sdk: Annotated[
        Sdk | None,
        typer.Option(
            "--sdk",
            help="v2: the estimator and fit() (the exact planned request); v3: ModelTrainer "
            "(sagemaker-train), for the strategies it supports. Default: the config's sdk (v2).",
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the script here (default: stdout).")
    ] = None,
    overrides: SetOption = None,
    region: RegionOption = None,
    job_name: Annotated[
        str | None,
        typer.Option("--job-name", help="Exact job name (default: job_name, or NAME-timestamp)."),
    ] = None,
) -> None:
    """Write a runnable SageMaker SDK script that creates the same training job."""
    from sagelaunch import atomic
    from sagelaunch.cli_params import output_file
    from sagelaunch.services import exporting

    output_file(out, "--out", "job.py")
    plan = exporting.plan_of(
        target,
        overrides,
        region,
        job_name,
        progress=lambda: stderr.status("building the request with the SageMaker SDK (offline)…"),
    )
    name = out.name if out else f"{plan.job_name}.py"
    chosen = sdk.value if sdk else exporting.config_sdk(target, overrides)
    text = exporting.script(plan, chosen, source=str(target), name=name)
    if out is None:
        typer.echo(text, nl=False)
        return
    atomic.write_text(out, text)
    stderr.print(f"wrote {out}; run it with: python {out}", highlight=False)

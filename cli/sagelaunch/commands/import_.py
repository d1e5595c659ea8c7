"""`sagelaunch import SOURCE`: an existing training job as a launch config."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sagelaunch.output import RegionOption, stderr


def import_job(
    source: Annotated[
        str,
        typer.Argument(
            help="Training job name or ARN, or a JSON file: a CreateTrainingJob request, a "
            "DescribeTrainingJob answer, a saved plan, or a CreateHyperParameterTuningJob "
            "request / DescribeHyperParameterTuningJob answer (a config with tuning:)."
        ),
    ],
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the config here (default: stdout).")
    ] = None,
    source_dir: Annotated[
        Path | None,
        typer.Option("--source-dir", help="Where the job's code goes (default ./JOB-code/)."),
    ] = None,
    region: RegionOption = None,
) -> None:
    """Turn an existing training job into a launch config that plans to the same request."""
    from sagelaunch.cli_params import folder_option, output_file
    from sagelaunch.services import importing

    output_file(out, "--out", "job.yaml")
    folder_option(source_dir, "--source-dir")
    path = Path(source)
    if path.suffix == ".json" or path.is_file():
        request = importing.request_from_file(path)
        name = importing.job_name(request) or path.stem
        code_dir = source_dir or Path(f"{name}-code")
        unpacked = importing.unpack_saved_bundle(path, code_dir)
        if unpacked:
            stderr.print(unpacked)
    else:
        name = source.rsplit("/", 1)[-1]
        code_dir = source_dir or Path(f"{name}-code")
        request = importing.request_from_job(source, region, code_dir)
        stderr.print(f"code of {name} unpacked into {code_dir}/")
    base = (out.parent if out else Path.cwd()).resolve()
    relative = Path(code_dir).resolve()
    try:
        shown = str(relative.relative_to(base))
    except ValueError:
        shown = str(relative)
    text = importing.to_yaml(importing.launch_config(request, source_dir=shown), source)
    note = importing.secrets_note(importing.replaced_secrets(request))
    if note:
        stderr.print(note, markup=False, highlight=False)
    if out:
        out.write_text(text, encoding="utf-8")
        stderr.print(f"wrote {out}; check it with: sagelaunch plan {out}")
    else:
        typer.echo(text, nl=False)

"""`sagelaunch plan CONFIG`: the exact CreateTrainingJob request, offline, with cost, topology."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from sagelaunch.output import RegionOption, SetOption, print_json, stderr, stdout
from sagelaunch.redact import redact


class PlanFormat(str, Enum):
    table = "table"
    json = "json"
    yaml = "yaml"


def plan(
    config: Annotated[Path, typer.Argument(help="Launch config (YAML).")],
    overrides: SetOption = None,
    output: Annotated[
        PlanFormat, typer.Option("--output", "-o", help="table, json (SPEC keys) or yaml.")
    ] = PlanFormat.table,
    out: Annotated[
        Path | None, typer.Option("--out", help="Save the plan (and its code bundle) for submit.")
    ] = None,
    region: RegionOption = None,
    job_name: Annotated[
        str | None, typer.Option("--job-name", help="Exact job name (default: NAME-timestamp).")
    ] = None,
) -> None:
    """Show exactly what submit would send: estimator, request, cost, topology, upload."""
    result, bundle_data = make_plan(config, overrides, region, job_name)
    if out:
        from sagelaunch import plan_file

        plan_file.save(out, result, bundle_data)
        stderr.print(f"saved plan to [bold]{out}[/bold]; submit it with: sagelaunch submit {out}")
    shown = redact(result)  # secret-looking environment values: the display only, not the file
    if output is PlanFormat.json:
        print_json(shown)
    elif output is PlanFormat.yaml:
        _print_yaml(shown)
    else:
        from sagelaunch.commands.plan_view import render

        render(shown)


def make_plan(
    config: Path, overrides: list[str] | None, region: str | None, job_name: str | None
) -> tuple[dict[str, Any], bytes | None]:
    """Load, check, bundle and capture: shared by `plan` and `submit CONFIG`."""
    from sagelaunch import bundle, naming
    from sagelaunch.config.validation import load_valid

    loaded, warnings = load_valid(config, overrides)
    with stderr.status("building the request with the SageMaker SDK (offline)…"):
        from sagelaunch.sdk.plan import build_plan, resolve_region, resolve_role

        code = None if loaded.config.is_builtin_algorithm else bundle.build(loaded.source_dir)
        result = build_plan(
            loaded,
            job_name=job_name or naming.timestamped(loaded.config.name),
            region=resolve_region(loaded, region),
            role=resolve_role(loaded),
            bundle=code,
            warnings=warnings,
        )
    return result, code.data if code else None


def _print_yaml(data: dict[str, Any]) -> None:
    import sys

    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.dump(data, sys.stdout)
    stdout.file.flush()

"""`sagelaunch init [TEMPLATE]`: write a starter launch config."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from sagelaunch.errors import UsageError
from sagelaunch.output import stderr, stdout

# What a template writes beside its config where the config alone does not run: the Hugging Face
# template's Trainer script (a copy, the user's to edit: the job uploads it from there) and a
# short text its local train channel reads. Path beside the config -> (package folder, file).
COMPANIONS = {
    "huggingface": {
        "train_huggingface.py": ("sagelaunch.entrypoints", "huggingface/train_huggingface.py"),
        "data/train.txt": ("sagelaunch", "templates/huggingface-train.txt"),
    }
}


def templates() -> dict[str, str]:
    """Template name -> YAML text, from the package's templates/ folder."""
    folder = resources.files("sagelaunch").joinpath("templates")
    return {
        entry.name.removesuffix(".yaml"): entry.read_text("utf-8")
        for entry in sorted(folder.iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".yaml")
    }


def describe(text: str) -> str:
    """A template's first comment line is its one-line description."""
    first = text.splitlines()[0] if text else ""
    return first.lstrip("# ").strip()


def init(
    template: Annotated[
        str | None, typer.Argument(help="Template name; omit to list the templates.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Where to write (default: ./TEMPLATE.yaml).")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Write a starter launch config from a template (one per distributed strategy)."""
    available = templates()
    if template is None:
        _list(available)
        return
    if template not in available:
        raise UsageError(
            f"unknown template {template!r}",
            hint=f"choose one of: {', '.join(available)}",
        )
    from sagelaunch.cli_params import output_file

    target = output_file(out, "--out", f"{template}.yaml") or Path(f"{template}.yaml")
    companions = {target.parent / name: data for name, data in _companions(template).items()}
    existing = [str(path) for path in [target, *companions] if path.exists()]
    if existing and not force:
        raise UsageError(
            f"{', '.join(existing)} exist{'s' if len(existing) == 1 else ''}",
            hint="pass --force to overwrite, or --out elsewhere",
        )
    target.write_text(with_settings(available[template]), encoding="utf-8")
    for path, data in companions.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    wrote = ", ".join(f"[bold]{path}[/bold]" for path in [target, *companions])
    stderr.print(f"wrote {wrote} — next: sagelaunch validate {target}")


def _companions(template: str) -> dict[str, bytes]:
    """The files ``template`` writes beside its config (COMPANIONS), by their path there."""
    return {
        name: resources.files(package).joinpath(file).read_bytes()
        for name, (package, file) in COMPANIONS.get(template, {}).items()
    }


def with_settings(text: str) -> str:
    """The template with the region and role this machine already gives (the AWS config's
    region, $SAGELAUNCH_ROLE) written in; a commented placeholder stays where none is found."""
    from sagelaunch.config.plan_settings import ROLE_VARIABLE, environment_region, environment_role

    found = {
        "region": (environment_region(), "found in $AWS_REGION or the AWS config file"),
        "role": (environment_role(), f"found in ${ROLE_VARIABLE}"),
    }
    lines = []
    for line in text.splitlines(keepends=True):
        key = line[2:].split(":", 1)[0] if line.startswith("# ") else ""
        value, origin = found.get(key, (None, ""))
        lines.append(f"{key}: {value}   # {origin}\n" if value else line)
    return "".join(lines)


def _list(available: dict[str, str]) -> None:
    table = Table(box=None, header_style="bold")
    table.add_column("template")
    table.add_column("what it sets up")
    for name, text in available.items():
        table.add_row(name, describe(text))
    stdout.print(table)
    stdout.print("write one with: sagelaunch init TEMPLATE [--out FILE]")

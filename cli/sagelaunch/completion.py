"""Shell completion (Typer's own: `sagelaunch --install-completion`): command names from the
static table, config and plan files, template names, local runs and (briefly) AWS job names.

Completers run on every TAB, so they stay cheap: file names from one directory listing, template
names from the package folder, local runs from `.sagelaunch/runs/`; job names ask SageMaker once
with short timeouts and give up quietly (see `aws.completion`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from sagelaunch.config.paths import CONFIG_SUFFIXES

PLAN_SUFFIXES = (*CONFIG_SUFFIXES, ".json")
RUNS = Path(".sagelaunch") / "runs"

Completer = Callable[[Any, Any, str], list[str]]


def _files(incomplete: str, suffixes: tuple[str, ...]) -> list[str]:
    """Files with ``suffixes`` and folders that start with ``incomplete``. Folders alone give
    nothing, so the shell's own file completion takes over (it walks into them)."""
    folder, _, start = incomplete.rpartition("/")
    base = Path(folder or ".")
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError:
        return []
    prefix = f"{folder}/" if folder else ""
    visible = [e for e in entries if e.name.startswith(start) and not e.name.startswith(".")]
    files = [prefix + e.name for e in visible if e.is_file() and e.name.endswith(suffixes)]
    folders = [prefix + e.name + "/" for e in visible if e.is_dir()]
    return files + folders if files else []


def configs(ctx: Any, param: Any, incomplete: str) -> list[str]:
    return _files(incomplete, CONFIG_SUFFIXES)


def configs_and_plans(ctx: Any, param: Any, incomplete: str) -> list[str]:
    return _files(incomplete, PLAN_SUFFIXES)


def templates(ctx: Any, param: Any, incomplete: str) -> list[str]:
    folder = resources.files("sagelaunch").joinpath("templates")
    names = sorted(p.name[: -len(".yaml")] for p in folder.iterdir() if p.name.endswith(".yaml"))
    return [name for name in names if name.startswith(incomplete)]


def local_runs(incomplete: str) -> list[str]:
    """Run folders (with logs/) that start with ``incomplete``, and run names under RUNS."""
    folder, _, start = incomplete.rpartition("/")
    prefix = f"{folder}/" if folder else ""
    found = [
        prefix + p.name
        for p in _listing(Path(folder or "."))
        if p.name.startswith(start) and (p / "logs").is_dir()
    ]
    return found + [p.name for p in _listing(RUNS) if p.name.startswith(incomplete)]


def _listing(folder: Path) -> list[Path]:
    try:
        return sorted(folder.iterdir())
    except OSError:
        return []


def jobs(ctx: Any, param: Any, incomplete: str) -> list[str]:
    if os.environ.get("SAGELAUNCH_COMPLETE_JOBS", "1") == "0":  # opt out of the AWS call
        return []
    from sagelaunch.aws.completion import recent_job_names

    return recent_job_names(incomplete)


def runs_and_jobs(ctx: Any, param: Any, incomplete: str) -> list[str]:
    return local_runs(incomplete) + jobs(ctx, param, incomplete)


def json_files_and_jobs(ctx: Any, param: Any, incomplete: str) -> list[str]:
    return _files(incomplete, (".json",)) + jobs(ctx, param, incomplete)


# (command, parameter) first; then the parameter's name alone, so that new commands taking a
# `config` argument complete it without an entry here.
BY_COMMAND: dict[tuple[str, str], Completer] = {
    ("init", "template"): templates,
    ("export", "target"): configs_and_plans,
    ("submit", "target"): configs_and_plans,
    ("metrics", "target"): runs_and_jobs,
    ("import", "source"): json_files_and_jobs,
}
BY_NAME: dict[str, Completer] = {"config": configs, "paths": configs, "job": jobs}


def attach(command_name: str, command: Any) -> None:
    """Give the command's arguments their completers (Typer's `autocompletion` hook)."""
    for param in command.params:
        completer = BY_COMMAND.get((command_name, param.name)) or BY_NAME.get(param.name)
        if completer is not None and param.param_type_name == "argument":
            param._custom_shell_complete = completer


def commands(table: dict[str, Any], incomplete: str) -> list[Any]:
    """Command names with their summaries, from the static table (no command module built)."""
    from typer._click.shell_completion import CompletionItem

    return [
        CompletionItem(name, help=entry.summary)
        for name, entry in table.items()
        if name.startswith(incomplete)
    ]

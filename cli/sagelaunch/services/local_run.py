"""A local run end to end: check, prepare, plan (cached), run the hosts through the local backend
(services.backends.local_runs); and the --docker path.

The command hands in how to show things (host lines, messages, a spinner); everything else is
here and in `sagelaunch.local`.
"""

from __future__ import annotations

import importlib.util
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sagelaunch.errors import UsageError
from sagelaunch.local.software import FRAMEWORK_MODULES

if TYPE_CHECKING:
    from collections.abc import Callable

    from sagelaunch.bundle import Bundle
    from sagelaunch.config.loader import LoadedConfig
    from sagelaunch.errors import Problem
    from sagelaunch.local.job import Result
    from sagelaunch.local.options import Options
    from sagelaunch.local.supervisor import Printer
    from sagelaunch.plan_model import Plan
    from sagelaunch.services.planning import Progress

# What installs each framework's module: the extra, from where this sagelaunch came from
# (install_hint: never `pip install 'sagelaunch[local]'`, which the public index would answer).
INSTALL_IN_CHECKOUT = "make setup"


@dataclass(frozen=True)
class Display:
    """How the command shows a run: host output lines, messages, a spinner while planning."""

    printer: Printer
    say: Callable[[str], None]
    progress: Progress


def run(config: Path, overrides: list[str] | None, options: Options, display: Display) -> Result:
    """Run ``config`` here as SageMaker would, one emulated host per process tree."""
    from sagelaunch.local import warm, warm_hint

    hint = warm_hint.key(config, overrides, options)
    # A rerun starts the agents its last run needed before the (heavy) imports and the check.
    with warm.guessed(warm_hint.guess(hint)) as guessed:
        from sagelaunch.checks.validation import load_valid
        from sagelaunch.config.references import resolve_references
        from sagelaunch.local import preflight
        from sagelaunch.services.backends.base import Sending
        from sagelaunch.services.backends.local_runs import LocalRuns, Preflight

        loaded, warnings = load_valid(config, overrides)
        loaded = resolve_references(loaded, local=True)
        refuse_workdir_in_code(loaded, options.workdir)
        require_framework(loaded.config.framework)
        prepared = preflight.prepare(loaded, options)
        warm_hint.remember(hint, preflight.agents_needed(prepared))
        with preflight.warm_start(prepared, guessed) as agents:
            plan, code = local_plan(prepared.plannable, warnings, display.progress)
            for warning in plan.warnings:
                display.say(f"[yellow]warning:[/yellow] {warning}")
            ready = Preflight(prepared, options, display.printer, display.say, agents or [])
            runs = LocalRuns(preflight=ready)
            return runs.schedule(runs.dry_run(plan, code, may_exist=False), Sending())


def refuse_workdir_in_code(loaded: LoadedConfig, workdir: Path | None) -> None:
    """A run folder inside source_dir would be uploaded by the next plan (the run's outputs,
    checkpoints, logs): refused, unless the ignore files already leave it out."""
    from sagelaunch import bundle_walk
    from sagelaunch.checks.rules.code import walks_source_dir

    if workdir is None or not walks_source_dir(loaded):
        return
    code = loaded.source_dir
    folder = workdir.resolve()
    if folder == code or code in folder.parents:
        if folder != code and bundle_walk.excluded(code, folder, loaded.config.respect_gitignore):
            return
        raise UsageError(
            f"--workdir {workdir} is inside source_dir {code}: the next plan would upload "
            "this run's outputs",
            hint="use a folder outside it (the default is .sagelaunch/runs/JOB_NAME), or add "
            "it to .sagelaunchignore",
        )


def require_framework(framework: str) -> None:
    """A clear install command instead of an ImportError from inside a host (nothing imported)."""
    module = FRAMEWORK_MODULES.get(framework)
    if module is None or _installed(module):
        return
    raise UsageError(
        f"sagelaunch local runs {framework} jobs with {module}, which is not installed in this "
        "Python environment",
        hint=f"install it: {install_command(framework)}  (in a sagelaunch checkout: "
        f"{INSTALL_IN_CHECKOUT})",
    )


def install_command(framework: str) -> str:
    """TensorFlow has an extra of its own (it is large); the other frameworks come with local."""
    from sagelaunch.install_hint import install_extra

    return install_extra("tensorflow" if framework == "tensorflow" else "local")


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a finder that refuses it, a broken install
        return False


def local_plan(
    planned: LoadedConfig, warnings: list[Problem], progress: Progress = nullcontext
) -> tuple[Plan, Bundle | None]:
    """The request SageMaker would get for ``planned``, the local variant of the config (offline,
    cached)."""
    from sagelaunch import bundle, naming
    from sagelaunch.services import planning

    code = bundle.for_config(planned)
    plan = planning.planned(
        planned,
        job_name=naming.job_name_for(planned.config),
        region=str(planned.config.region),
        role=str(planned.config.role),
        code=code,
        warnings=warnings,
        code_in_key=False,  # edited scripts re-run without the SDK: the code URI is moved
        progress=progress,
    )
    return planning.with_code_warnings(plan, code), code


def run_in_docker(
    config: Path, overrides: list[str] | None, hosts: int | None, workdir: Path | None
) -> None:
    """--docker: the SDK's own local mode, with the same estimator `plan` would build."""
    from sagelaunch.checks.validation import load_valid
    from sagelaunch.config.references import resolve_references
    from sagelaunch.local import docker as docker_mode

    loaded = resolve_references(load_valid(config, overrides)[0], local=True)
    _refuse_groups(loaded)
    docker_mode.require()
    _run_sdk_local_mode(loaded, hosts, workdir)


def _refuse_groups(loaded: LoadedConfig) -> None:
    """AWS documents that SageMaker local mode cannot run heterogeneous clusters."""
    if loaded.config.compute.groups:
        raise UsageError(
            "SageMaker local mode (--docker) cannot run instance groups (heterogeneous clusters)",
            "drop --docker: `sagelaunch local` emulates every group's hosts",
        )


def _run_sdk_local_mode(loaded: LoadedConfig, hosts: int | None, workdir: Path | None) -> None:
    from sagelaunch.local.variant import local_variant
    from sagelaunch.sdk import local_mode

    placeholders = local_variant(loaded).config  # role and region a laptop may not have
    compute = loaded.config.compute
    spec = local_mode.local_mode_spec(
        loaded,
        role=str(placeholders.role),
        region=str(placeholders.region),
        hosts=hosts or loaded.config.local.hosts or min(compute.instance_count, 2),
        output_dir=workdir or Path(".sagelaunch") / "docker" / loaded.config.name,
    )
    local_mode.run(spec, str(placeholders.region))

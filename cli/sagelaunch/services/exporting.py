"""`sagelaunch export`: the plan of a config (or a saved plan), rendered as an SDK script."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

from sagelaunch.plan_model import Plan
from sagelaunch.services.planning import Progress

SDKS = ("v2", "v3")


def plan_of(
    target: Path,
    overrides: list[str] | None,
    region: str | None,
    job_name: str | None,
    progress: Progress = nullcontext,
) -> Plan:
    """The plan `plan` shows for a config, or the one a saved plan file holds."""
    if target.suffix == ".json":
        from sagelaunch import plan_file

        plan, _ = plan_file.load(target)
        return plan.renamed(job_name) if job_name else plan
    from sagelaunch.services.planning import make_plan

    return make_plan(target, overrides, region, job_name, progress=progress).plan


def config_sdk(target: Path, overrides: list[str] | None) -> str:
    """The SDK a config says it targets (its `sdk` key); a saved plan's is v2's request."""
    if target.suffix == ".json":
        return "v2"
    from sagelaunch.config.loader import load

    return load(target, overrides).config.sdk


def script(plan: Plan, sdk: str, *, source: str, name: str) -> str:
    """The script's text for SDK ``sdk`` (v2 or v3); v3 refuses what ModelTrainer cannot run."""
    if sdk == "v3":
        from sagelaunch.translate import sdk_v3

        return sdk_v3.render(plan, source=source, script=name)
    from sagelaunch.translate import sdk_v2

    return sdk_v2.render(plan, source=source, script=name)

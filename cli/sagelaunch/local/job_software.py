"""The software a local run's hosts import, put together once per run: the framework's version
checked (and installed when local.framework: match), the job's requirements.txt, what the job's
image ships that the scripts import and this venv lacks (container_packages), and sagelaunch's
stand-ins for the containers' own libraries. software.py installs; container_packages.py knows
what each image ships."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sagelaunch.local import container_packages, software


def prepare(
    framework: str,
    framework_version: str | None,
    instance_type: str | None,
    policy: str,
    code: Path,
    say: Callable[[str], None],
) -> tuple[list[Path], list[str]]:
    """The overlays the hosts import from (first wins) and the warnings to show."""
    folders: list[Path] = []
    warning = software.version_warning(framework, framework_version)
    if warning and policy == "match":
        folders.append(software.framework_overlay(framework, str(framework_version), say))
        warning = None
    pins = container_packages.missing_pins(framework, code, framework_version, instance_type, say)
    installed = software.overlay(code, pins, say)
    folders += [installed] if installed else []
    stand_ins = container_packages.stand_ins(framework, code)
    if stand_ins:
        say(f"  container library: sagelaunch's stand-in for {', '.join(stand_ins)}")
        folders.append(container_packages.STAND_INS_DIR)
    return folders, [warning] if warning else []

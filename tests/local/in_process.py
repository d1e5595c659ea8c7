"""`sagelaunch local` refused in its preflight, run in the test's own process.

The same CLI app as `run_local`'s `python -m sagelaunch local` (its exit code, its stdout and
stderr), in the environment and working folder that subprocess gets (``clean_env``,
``config.parent``): for a test of what a run that stops before any host starts says, where a new
interpreter importing sagelaunch (about a second of CPU each) is not what the test checks.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.local.conftest import clean_env


def local_in_process(
    cli: Any, monkeypatch: pytest.MonkeyPatch, config: Path, *args: Any, **env: str
) -> Any:
    """``cli("local", config, *args)`` in ``config.parent`` with ``clean_env(**env)``; the
    Result (exit_code, stdout, stderr, output)."""
    monkeypatch.chdir(config.parent)
    wanted = clean_env(**env)
    for variable in os.environ.keys() - wanted.keys():
        monkeypatch.delenv(variable)
    for variable, value in wanted.items():
        monkeypatch.setenv(variable, value)
    return cli("local", config, *args)


def run_local_in_env(
    monkeypatch: pytest.MonkeyPatch, config: Path, *args: str, env: dict[str, str], **kwargs: Any
) -> Any:
    """``run_local(config, *args, env=env)`` with this process in ``env`` too while it warms the
    plan (warm_plan): the plan cache's key holds where the SDK's defaults files are (under HOME
    and XDG_CONFIG_HOME), so a run with a HOME of its own misses a plan warmed in this process's
    HOME, and its subprocess imports the SDK to plan (seconds of CPU)."""
    from tests.local.conftest import run_local

    with monkeypatch.context() as patch:
        for variable in os.environ.keys() - env.keys():
            patch.delenv(variable)
        for variable, value in env.items():
            patch.setenv(variable, value)
        return run_local(config, *args, env=env, **kwargs)

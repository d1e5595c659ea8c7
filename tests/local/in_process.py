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

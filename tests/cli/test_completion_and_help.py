"""Shell completion through Typer's own mechanism, and --help as users expect it.

Completion is asked the way the shell asks (`_SAGELAUNCH_COMPLETE=complete_bash` with COMP_WORDS),
in-process; one test installs the bash script into a scratch HOME and lets a real bash complete.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sagelaunch.app import COMMANDS, app

SAGELAUNCH = Path(sys.executable).parent / "sagelaunch"


def complete(words: str, cwd: Path | None = None, jobs: bool = False) -> list[str]:
    """What bash would offer for ``words`` (the last word is the one being completed)."""
    parts = words.split(" ")
    env = {
        "_SAGELAUNCH_COMPLETE": "complete_bash",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(parts) - 1),
        "SAGELAUNCH_COMPLETE_JOBS": "1" if jobs else "0",  # AWS: tests/aws only
    }
    old = Path.cwd()
    try:
        if cwd:
            os.chdir(cwd)
        result = CliRunner().invoke(app, [], env=env, prog_name="sagelaunch")
    finally:
        os.chdir(old)
    assert result.exit_code == 0, result.output
    return result.stdout.split()


def test_command_names_complete_from_the_table():
    assert complete("sagelaunch ") == list(COMMANDS)
    assert complete("sagelaunch ex") == ["export"]
    assert complete("sagelaunch --show") == ["--show-completion"]


def test_template_names_and_options():
    assert complete("sagelaunch init smp") == ["smp-v1", "smp-v2"]
    assert "--output" in complete("sagelaunch plan x.yaml --ou")


def test_config_paths_runs_and_plans(tmp_path):
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "a.yaml").write_text("name: a\n")
    (tmp_path / "job.yaml").write_text("name: b\n")
    (tmp_path / "plan.json").write_text("{}")
    (tmp_path / "notes.txt").write_text("")
    (tmp_path / "run-1" / "logs").mkdir(parents=True)
    assert complete("sagelaunch plan j", tmp_path) == ["job.yaml", "jobs/"]
    assert complete("sagelaunch validate jobs/", tmp_path) == ["jobs/a.yaml"]
    assert complete("sagelaunch submit p", tmp_path) == ["plan.json"]
    assert complete("sagelaunch plan n", tmp_path) == []  # not a config: the shell's own files
    assert complete("sagelaunch metrics ru", tmp_path) == ["run-1"]


@pytest.mark.slow
def test_install_completion_then_bash_completes(tmp_path):
    env = {**os.environ, "HOME": str(tmp_path), "SHELL": "/bin/bash"}
    env["PATH"] = f"{SAGELAUNCH.parent}{os.pathsep}{env['PATH']}"
    # Typer finds the shell among the command's parent processes (shellingham), as a user's
    # terminal has it: run it from bash, which stays its parent (a second command after it, so
    # bash does not exec it in its own place), whatever started pytest.
    installed = subprocess.run(
        ["bash", "-c", f'"{SAGELAUNCH}" --install-completion; exit $?'],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    script = next((tmp_path / ".bash_completions").glob("sagelaunch*"))
    assert str(script) in (tmp_path / ".bashrc").read_text()
    probe = f'source "{script}"; COMP_WORDS=(sagelaunch me); COMP_CWORD=1; '
    probe += '_sagelaunch_completion sagelaunch; echo "${COMPREPLY[@]}"'
    done = subprocess.run(
        ["bash", "-c", probe], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.stdout.split() == ["metrics"], done.stderr


SUBCOMMANDS = [f"capacity {sub}" for sub in ("search", "reserve", "list", "describe", "extend")]


@pytest.mark.parametrize("name", [*COMMANDS, *SUBCOMMANDS])
def test_help_shows_flags_bare_and_values_as_metavars(cli, name):
    result = cli(*name.split(), "--help", env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    assert not re.search(r"<(bool|str|int|float|path|list\[)", result.output), result.output
    flags = [line for line in result.output.splitlines() if re.search(r"│ +--help", line)]
    assert flags and re.search(r"--help +Show this message", flags[0])  # no type after a flag


def test_capacity_subcommands_and_their_config_complete(tmp_path):
    assert complete("sagelaunch capacity ") == [
        "search",
        "reserve",
        "list",
        "describe",
        "extend",
    ]
    (tmp_path / "job.yaml").write_text("name: b\n")
    (tmp_path / "notes.txt").write_text("")
    assert complete("sagelaunch capacity search j", tmp_path) == ["job.yaml"]

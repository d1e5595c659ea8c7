"""`--docker`: what the SDK's local mode (Docker Compose) needs, checked before anything runs."""

from __future__ import annotations

import shutil
import subprocess

from sagelaunch.errors import UsageError

DEFAULT_MODE_HINT = "drop --docker to run without Docker (sagelaunch's own local mode)"


def missing() -> str | None:
    """What is missing for Docker local mode, or None when Docker and Compose are usable."""
    if shutil.which("docker") is None:
        return "the docker command is not installed"
    # The SDK accepts `docker compose` only when its version output says v2, else docker-compose.
    compose = _output(["docker", "compose", "version"])
    if "v2" not in compose and shutil.which("docker-compose") is None:
        return "Docker Compose is not installed (neither `docker compose` v2 nor docker-compose)"
    if not _answers(["docker", "info"]):
        return "the Docker engine does not answer (`docker info` failed): is the daemon running?"
    return None


def require() -> None:
    """Raise a one-line UsageError unless Docker local mode can run here."""
    problem = missing()
    if problem:
        raise UsageError(f"--docker needs Docker with Docker Compose: {problem}", DEFAULT_MODE_HINT)


def _output(command: list[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout + done.stderr if done.returncode == 0 else ""


def _answers(command: list[str]) -> bool:
    try:
        done = subprocess.run(command, capture_output=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0

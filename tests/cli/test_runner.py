"""The shared runner's hang guard (tests/cli/runner.py): a forked run past its timeout is ended
and raises TimeoutExpired, as subprocess.run does, so a test of an error path that must not
wait fails instead of hanging the suite."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.cli.runner import sagelaunch


def test_a_run_past_its_timeout_raises_timeout_expired(tmp_path: Path) -> None:
    """`status` against an endpoint that takes the connection and never answers waits on
    botocore's read timeout (a minute); the runner ends it after 2 s."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # the kernel completes the handshake; nothing ever reads or answers
        env = {
            **os.environ,
            "AWS_ENDPOINT_URL": f"http://127.0.0.1:{silent.getsockname()[1]}",
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
        }
        started = time.monotonic()
        with pytest.raises(subprocess.TimeoutExpired) as stopped:
            sagelaunch(tmp_path, "status", "some-job", env=env, timeout=2)
    assert stopped.value.timeout == 2 and time.monotonic() - started < 30
    # the server forks the next run as before
    assert sagelaunch(tmp_path, "--help").returncode == 0

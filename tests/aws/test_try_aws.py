"""`make try-aws`: the AWS side without an account, end to end, as a newcomer runs it.

The route (tests/aws/try_aws.py) runs in a subprocess with this machine's AWS settings removed
and a HOME of its own: it starts moto's server on loopback, and plan, submit, status, logs and
wait run against it; then moto is stopped.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.integration

COMMANDS = ["plan", "submit", "status", "logs", "wait"]


def test_make_try_aws_runs_the_route() -> None:
    makefile = (REPO / "Makefile").read_text()
    recipe = re.search(r"^try-aws:.*\n\t(.*)$", makefile, re.MULTILINE)
    assert recipe is not None and recipe.group(1) == "$(PY) -m tests.aws.try_aws"
    assert re.search(r"^\.PHONY:.* try-aws\b", makefile, re.MULTILINE)


def test_the_route_submits_follows_and_waits_without_an_account(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(HOME=str(tmp_path / "home"), PYTHONUNBUFFERED="1", COLUMNS="80")
    done = subprocess.run(
        [sys.executable, "-m", "tests.aws.try_aws"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=240,
    )
    out = done.stdout
    assert done.returncode == 0, out
    shown = re.findall(r"^\$ \.venv/bin/sagelaunch (\w+) ", out, re.MULTILINE)
    assert shown == COMMANDS  # each command as the reader would type it, in order
    endpoint = re.search(r"^moto's server on (http://127\.0\.0\.1:(\d+)):", out, re.MULTILINE)
    assert endpoint is not None, out
    job = re.search(r"^created job (\S+) \(InProgress\)$", out, re.MULTILINE)
    assert job is not None, out
    assert re.search(rf"^job\s+{job.group(1)}\s*$", out, re.MULTILINE)  # status of that job
    assert re.search(r"^status\s+Completed", out, re.MULTILINE)
    assert out.rstrip().endswith("without AWS_ENDPOINT_URL.")
    assert "Completed · Completed" in out.split("$ .venv/bin/sagelaunch wait", 1)[1]
    # moto serves no ListServiceQuotas: said as such, not as an outage.
    quota = [line for line in out.splitlines() if "quotas not checked" in line]
    assert [line.split(":", 1)[0] for line in quota] == ["note", "warning"]  # plan's, submit's
    for line in quota:
        assert "Service Quotas is not served by this endpoint" in line
        assert f"({endpoint.group(1)}: ListServiceQuotas answered 500)" in line
    assert "throttling" not in out and "Traceback" not in out
    with socket.socket() as probe:  # moto stopped: nothing listens on its port any more
        assert probe.connect_ex(("127.0.0.1", int(endpoint.group(2)))) != 0
    assert not (tmp_path / "home" / ".aws").exists()

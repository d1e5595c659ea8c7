"""Harness for `sagelaunch local` tests: configs written to tmp_path, the CLI run as a subprocess.

Runs go through a real `python -m sagelaunch local` with a timeout, so a hung host fails the test
instead of the suite, and the test sees exactly what a user sees (exit code, stdout, stderr).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from sagelaunch.local import network, sandbox, software
from tests.conftest import ENTRYPOINTS, REPO

# Whether a job's hosts get networks of their own here (network.py): a sandbox, the namespace
# tools and pasta; where not, they share this machine's, each host at a loopback address.
OWN_NETWORKS = network.choose(sandbox.choose("auto").isolated, isolation=False).own


def host_address(index: int) -> str:
    """Where host ``index`` (from 0) of a job without MPI is, as its /etc/hosts says."""
    return network.netns_keeper.address(index) if OWN_NETWORKS else sandbox.address(index)


# Variables a launcher or a real job would set; runs start without them.
# SAGEMAKER_BASE_DIR: importing the training toolkit where /opt/ml does not exist sets it in
# the importing process (a test worker); no job of ours may inherit it.
_FOREIGN = re.compile(
    r"^(SM_.*|SAGEMAKER_BASE_DIR|TRAINING_JOB_NAME|RANK|WORLD_SIZE|MASTER_ADDR|MASTER_PORT)$"
)

# A GPT small enough that a step takes milliseconds on one CPU core.
TINY_GPT = {
    "model": "gpt",
    "n_layer": 1,
    "n_head": 2,
    "n_embd": 32,
    "seq_len": 16,
    "vocab_size": 64,
    "batch_size": 4,
    "log_every": 1,
}


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not _FOREIGN.match(k)}
    env.update({"AWS_EC2_METADATA_DISABLED": "true", "COLUMNS": "200", **extra})
    return env


def run_local(
    config: Path,
    *args: str,
    timeout: float = 120,
    env: dict[str, str] | None = None,
    python: str = sys.executable,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        local_command(config, *args, python=python),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=config.parent,
        env=env or clean_env(),
    )


def local_command(config: Path, *args: str, python: str = sys.executable) -> list[str]:
    """`python -m sagelaunch local CONFIG ARGS`, its plan warmed first (warm_plan)."""
    warm_plan(config, *args)
    return [python, "-m", "sagelaunch", "local", str(config), *args]


def venv_at_a_path_with_spaces(tmp_path: Path) -> str:
    """This venv's interpreter reached through a folder named with spaces (a link to the venv),
    as a user's venv under "My Projects" is: every path sagelaunch derives from it has them."""
    link = tmp_path / "my projects" / "a venv"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(sys.prefix, target_is_directory=True)
    return str(link / "bin" / Path(sys.executable).name)


def warm_plan(config: Path, *args: str) -> None:
    """Plan ``config``'s local run in this process, into the session's one plan cache
    (tests/conftest.py's ``one_cache``), where the `sagelaunch local` subprocess finds it as a
    user's rerun does: the SDK is imported once per test worker instead of once per run (seconds
    of CPU each). The first-plan path of `local` is the in-process `cli("local", ...)` tests'.
    Only a warm-up: whatever this cannot plan the same way (a config reading the environment, a
    broken one), the subprocess plans, or refuses, itself."""
    overrides = [value for flag, value in itertools.pairwise(args) if flag == "--set"]
    try:
        if "${env:" in config.read_text():
            return
        from sagelaunch.checks.validation import load_valid
        from sagelaunch.local.variant import local_variant
        from sagelaunch.services.local_run import local_plan

        local_plan(local_variant(load_valid(config, overrides or None)[0]), [])
    except Exception:  # the run itself reports what is wrong
        return


def in_uv_cache(requirement: str, tmp_path: Path) -> bool:
    """Whether uv installs ``requirement`` from its cache alone (no index asked): a real install
    into a scratch folder, since a dry run needs only the metadata, not the wheel."""
    command = [*software.uv_command(), "pip", "install", "--offline", "--no-deps"]
    command += ["--python", sys.executable, "--target", str(tmp_path / "probe"), requirement]
    return subprocess.run(command, capture_output=True, check=False).returncode == 0


def wait_until(
    ready: Callable[[], Any], run: subprocess.Popen[str], what: str, timeout_s: float = 180
) -> None:
    """Poll ``ready`` while ``run`` lives; fail on its exit, or after ``timeout_s`` (a hung run
    fails the test instead of holding the suite)."""
    deadline = time.monotonic() + timeout_s
    while not ready():
        assert run.poll() is None, run.communicate()
        assert time.monotonic() < deadline, f"{what}: not within {timeout_s:g} s"
        time.sleep(0.05)


def alive(pid: int) -> bool:
    """Running (zombies awaiting their reaper do not count)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in {"Z", "X"}


@pytest.fixture
def write_config(tmp_path: Path):
    """Write a launch config (dict) to tmp_path/NAME; ``code`` files go to tmp_path/code/."""

    def write(config: dict[str, Any], code: dict[str, str] | None = None, name: str = "job.yaml"):
        for file, text in (code or {}).items():
            (tmp_path / "code" / file).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / "code" / file).write_text(text)
        path = tmp_path / name
        path.write_text(yaml.safe_dump(config, sort_keys=False))
        return path

    return write


def pytorch_config(**over: Any) -> dict[str, Any]:
    """A team config with no role, region or output path: local runs must not need them."""
    config: dict[str, Any] = {
        "name": "local-test",
        "framework": "pytorch",
        "entry_point": "train_pytorch.py",
        "source_dir": str(ENTRYPOINTS / "pytorch"),
        "framework_version": "2.2.0",
        "compute": {"instance_type": "ml.g5.xlarge", "instance_count": 2},
        "distribution": {"strategy": "torchrun"},
        "hyperparameters": {},
    }
    config.update(over)
    return config


# The one 2-host torchrun run of a tiny GPT on a token channel (``two_host_torchrun``).
CHANNEL_GPT = {**TINY_GPT, "data": "channel", "max_steps": 4, "data_augment_cost": 2}
TWO_HOST_TORCHRUN = "local-two-host-torchrun"  # the xdist_group of the tests sharing it


@pytest.fixture(scope="session")
def two_host_torchrun(tmp_path_factory: pytest.TempPathFactory):
    """(its folder, its result): a homogeneous 2-host torchrun `sagelaunch local --output json`
    of CHANNEL_GPT, its train channel ``tokens`` (tests/local/tokens.py), in the default workdir
    (ROOT/.sagelaunch/runs/JOB), made once for the tests that assert on it (4 torch processes a
    run): test_runs.py's (what a run leaves) and test_hetero.py's (the losses a heterogeneous run
    must equal). They are marked ``xdist_group(TWO_HOST_TORCHRUN)``, so one worker makes it."""
    from tests.local.tokens import write_tokens

    root = tmp_path_factory.mktemp("two-host-torchrun")
    write_tokens(root / "tokens")
    config = pytorch_config(
        hyperparameters=dict(CHANNEL_GPT),
        inputs={"train": "s3://bucket/tokens/"},
        local={"inputs": {"train": "tokens"}, "hosts": 2},
    )
    path = root / "homogeneous.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return root, run_local(path, "--output", "json")


def visible_root(purpose: str) -> Path:
    """A new folder a sandboxed script sees (read-only): in the checkout, unless it is under /tmp
    (each sandbox has its own /tmp, where the user's files would be out of the script's reach)."""
    base = Path("/var/tmp") if REPO.is_relative_to("/tmp") else REPO / ".sagelaunch"
    return base / purpose / uuid.uuid4().hex


def checksums(root: Path) -> dict[str, str]:
    """Every file under ``root``, by path, with its sha256."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def read_json(path: Path) -> Any:
    return json.loads(path.read_text())


def survivors(token: str) -> list[int]:
    """Every live process that inherited the token ``RUN_TOKEN``: a run's whole process tree, found
    from outside (the pids a script reports are its PID namespace's own)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if f"RUN_TOKEN={token}".encode() in environ.split(b"\0") and alive(int(entry.name)):
            found.append(int(entry.name))
    return found

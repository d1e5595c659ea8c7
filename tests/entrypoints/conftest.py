"""Harness for the entry-point tests: run a script as SageMaker would, in a fake /opt/ml.

Each job gets its own directories under tmp_path and an environment built from scratch (SM_* set
by hand, launcher variables removed), so nothing leaks in from the developer's shell or another
test. Scripts run from entrypoints/, as they do from /opt/ml/code.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from sagelaunch.local.ports import free_port
from tests.conftest import REPO
from tests.entrypoints.sigkill import kill_at_once

ENTRYPOINTS = REPO / "entrypoints" / "pytorch"

STEP_LINE = re.compile(
    r"^step=(\d+) train_loss=([0-9.eE+-]+) samples_per_sec=([0-9.eE+-]+) "
    r"tokens_per_sec=([0-9.eE+-]+)"
)

# A GPT small enough that a step takes milliseconds on one CPU core.
TINY_GPT = [
    *("--model", "gpt", "--n_layer", "1", "--n_head", "2", "--n_embd", "32"),
    *("--seq_len", "16", "--vocab_size", "64", "--batch_size", "4", "--log_every", "1"),
]

# Variables a launcher or a real job would set; a test sets the ones it wants explicitly.
_LAUNCHER_VARS = re.compile(
    r"^(SM_.*|TRAINING_JOB_NAME|RANK|LOCAL_RANK|WORLD_SIZE|LOCAL_WORLD_SIZE|GROUP_RANK|"
    r"MASTER_ADDR|MASTER_PORT|TORCHELASTIC_.*|OMPI_.*|PYTEST_XDIST_.*)$"
)


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str

    def steps(self) -> dict[int, float]:
        """step -> train_loss from the metric lines, parsed the way a metric regex would."""
        found = (STEP_LINE.match(line) for line in self.stdout.splitlines())
        return {int(m.group(1)): float(m.group(2)) for m in found if m}

    def warnings(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.startswith("WARNING:")]


def torchrun(nproc: int, agent_files: Path) -> list[str]:
    """torchrun with NPROC ranks, its agent's files in ``agent_files`` (it would leave a folder
    in the machine's /tmp after every run, as sagelaunch local keeps it from doing)."""
    return [
        *(sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", str(nproc)),
        *("--log-dir", str(agent_files)),
    ]


@dataclass
class TorchJob:
    """One training job's fake container: model, output and checkpoint dirs under ``root``."""

    root: Path
    extra_env: dict[str, str] = field(default_factory=dict)

    @property
    def model_dir(self) -> Path:
        return self.root / "model"

    @property
    def output_dir(self) -> Path:
        return self.root / "output"

    @property
    def checkpoint_dir(self) -> Path:
        return self.root / "checkpoints"

    def env(self, **overrides: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not _LAUNCHER_VARS.match(k)}
        env.update(
            SM_MODEL_DIR=str(self.model_dir),
            SM_OUTPUT_DIR=str(self.output_dir),
            SM_OUTPUT_DATA_DIR=str(self.output_dir / "data"),
            SM_HOSTS='["algo-1"]',
            SM_CURRENT_HOST="algo-1",
            OMP_NUM_THREADS="1",  # tests run side by side on two cores
            PYTHONUNBUFFERED="1",
        )
        env.update(self.extra_env)
        env.update(overrides)
        return env

    def command(self, args: list[str], nproc: int | None = None) -> list[str]:
        script = ["train_pytorch.py", "--checkpoint_dir", str(self.checkpoint_dir), *args]
        if nproc is None:
            return [sys.executable, *script]
        rendezvous = ["--nnodes", "1", "--master_addr", "127.0.0.1"]
        launcher = torchrun(nproc, self.root / "torchelastic")
        return [*launcher, *rendezvous, "--master_port", str(free_port()), *script]

    def run(self, *args: str, nproc: int | None = None, timeout: float = 120, **env: str) -> Result:
        proc = subprocess.run(
            self.command(list(args), nproc),
            cwd=ENTRYPOINTS,
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return Result(proc.returncode, proc.stdout, proc.stderr)

    def run_ok(self, *args: str, nproc: int | None = None, **env: str) -> Result:
        result = self.run(*args, nproc=nproc, **env)
        assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
        return result

    def kill_after_step(self, step: int, *args: str, nproc: int | None = None) -> Result:
        """Start the job and SIGKILL all its processes once it logs ``step=<step>``.

        The result holds everything the job printed before it died; its returncode is -9 when
        the kill landed while the job was still running.
        """
        proc = subprocess.Popen(
            self.command(list(args), nproc),
            cwd=ENTRYPOINTS,
            env=self.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        assert proc.stdout is not None
        seen: list[str] = []
        deadline = time.monotonic() + 120
        for line in proc.stdout:
            seen.append(line)
            match = STEP_LINE.match(line)
            if match and int(match.group(1)) >= step:
                _kill_tree(proc.pid)
                break
            assert time.monotonic() < deadline, "job never reached the step"
        # What it printed before the kill landed (a loaded machine runs on past our read).
        seen.extend(proc.stdout)
        proc.stdout.close()
        return Result(proc.wait(timeout=60), "".join(seen), "")

    def model(self) -> dict[str, Any]:
        import torch

        return torch.load(self.model_dir / "model.pt", weights_only=True)

    def metrics(self) -> dict[str, Any]:
        return json.loads((self.output_dir / "data" / "metrics.json").read_text())

    def failure(self) -> str:
        return (self.output_dir / "failure").read_text()


def _descendants(pid: int) -> list[int]:
    """Child processes of ``pid``, recursively (torchrun starts workers in their own sessions,
    so killing its process group would leave them running)."""
    children: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return children + [d for child in children for d in _descendants(child)]


def _kill_tree(pid: int) -> None:
    kill_at_once([pid, *_descendants(pid)])


def assert_same_weights(actual: dict[str, Any], expected: dict[str, Any]) -> None:
    import torch

    assert actual.keys() == expected.keys()
    different = [name for name in expected if not torch.equal(actual[name], expected[name])]
    assert not different, f"tensors differ: {different}"


@pytest.fixture
def torch_job(tmp_path: Path):
    """Factory for TorchJob instances in fresh directories under tmp_path."""
    count = 0

    def make(name: str | None = None, **extra_env: str) -> TorchJob:
        nonlocal count
        count += 1
        return TorchJob(tmp_path / (name or f"job{count}"), extra_env)

    return make


@pytest.fixture
def entrypoints_on_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Import the entry point's modules in-process, with a clean fake SageMaker environment."""
    monkeypatch.syspath_prepend(str(ENTRYPOINTS))
    for key in list(os.environ):
        if key.startswith("SM_") or key in ("TRAINING_JOB_NAME", "RANK", "WORLD_SIZE"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("SM_MODEL_DIR", str(tmp_path / "model"))
    monkeypatch.setenv("SM_OUTPUT_DIR", str(tmp_path / "output"))
    return tmp_path


@pytest.fixture
def train_pytorch_main(entrypoints_on_path: Path, monkeypatch: pytest.MonkeyPatch, capsys):
    """Run train_pytorch's main() in this process (no torch import per run), as smenv.run would.

    ``root`` picks the job's fake /opt/ml (default: tmp_path). Returns (exit status, captured
    output, root).
    """

    def run(*argv: str, root: Path | None = None, **env: str) -> tuple[int, Result, Path]:
        import smenv
        import train_pytorch

        root = root or entrypoints_on_path
        env = {"SM_MODEL_DIR": str(root / "model"), "SM_OUTPUT_DIR": str(root / "output"), **env}
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        argv = ("--checkpoint_dir", str(root / "checkpoints"), *argv)
        status = smenv.run(train_pytorch.main, argv)
        out, err = capsys.readouterr()
        return status, Result(status, out, err), root

    return run


def metrics_at(root: Path) -> dict[str, Any]:
    """metrics.json of an in-process run (see train_pytorch_main)."""
    return json.loads((root / "output" / "data" / "metrics.json").read_text())


def model_at(root: Path) -> dict[str, Any]:
    import torch

    return torch.load(root / "model" / "model.pt", weights_only=True)

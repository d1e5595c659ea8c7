"""A parameter-server job whose worker dies where no launcher sees it (another host, a lost
network) must fail within --ps_timeout_s, naming the server and the timeout, instead of waiting
for torch's 600 s RPC default. (Under one torchrun, torchrun itself stops the job at once.)

Each rank runs as a process of its own emulated host (RANK/WORLD_SIZE/MASTER_* set by hand, as a
multi-node torchrun would), so killing one worker tells nobody."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.entrypoints.conftest import ENTRYPOINTS, STEP_LINE, TINY_GPT, TorchJob, free_port

TIMEOUT_S = 10  # also the start-up rendezvous: the 3 processes import torch side by side
ARGS = [*TINY_GPT, "--parallel", "ps", "--ps_mode", "sync", "--max_steps", "1000"]
ARGS += ["--ps_timeout_s", str(TIMEOUT_S)]


def start_ranks(root: Path, world: int) -> list[tuple[TorchJob, subprocess.Popen[str]]]:
    port = str(free_port())
    ranks = []
    for rank in range(world):
        job = TorchJob(root / f"host{rank}")
        env = job.env(
            RANK=str(rank),
            WORLD_SIZE=str(world),
            MASTER_ADDR="127.0.0.1",
            MASTER_PORT=port,
            SM_HOSTS=str([f"algo-{r + 1}" for r in range(world)]).replace("'", '"'),
            SM_CURRENT_HOST=f"algo-{rank + 1}",
        )
        proc = subprocess.Popen(
            job.command(ARGS),
            cwd=ENTRYPOINTS,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        ranks.append((job, proc))
    return ranks


def test_the_timeout_must_be_at_least_a_second(entrypoints_on_path):
    import smenv
    import torch_hparams

    env = smenv.current()
    assert torch_hparams.parse_args([], env).ps_timeout_s == 120
    assert torch_hparams.parse_args(["--ps_timeout_s", "2.5"], env).ps_timeout_s == 2.5
    with pytest.raises(smenv.UsageError, match="--ps_timeout_s must be at least 1, got 0"):
        torch_hparams.parse_args(["--ps_timeout_s", "0"], env)


@pytest.mark.slow
def test_a_dead_worker_fails_the_job_within_the_timeout_naming_the_server(tmp_path):
    ranks = start_ranks(tmp_path, 3)  # ps0, worker0 (rank 1), worker1 (rank 2)
    try:
        server = ranks[0][1]
        assert server.stdout is not None
        for line in server.stdout:
            match = STEP_LINE.match(line)
            if match and int(match.group(1)) >= 2:
                break
        ranks[2][1].send_signal(signal.SIGKILL)  # worker1 vanishes mid-training
        outputs = [proc.communicate(timeout=90) for _, proc in ranks]
    finally:
        for _, proc in ranks:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)

    server_err = outputs[0][1]
    assert server.returncode == 1, server_err
    expected = f"parameter server ps0: nothing from worker1 (rank 2) for {TIMEOUT_S} s"
    assert expected in server_err and "(--ps_timeout_s)" in server_err
    assert expected in ranks[0][0].failure()  # SageMaker's FailureReason
    worker_err = outputs[1][1]
    assert ranks[1][1].returncode == 1, worker_err
    assert "worker0: no answer from the parameter servers (ps0)" in worker_err
    assert "PeerTimeout" in ranks[1][0].failure()
    assert not (ranks[0][0].model_dir / "model.pt").exists()

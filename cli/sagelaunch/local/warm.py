"""Warm start for torchrun agents: each host's agent imports torch while sagelaunch plans.

Planning (the SageMaker SDK import above all) and a torchrun agent's start (importing torch) each
take seconds; one after the other they would be most of a short local run's overhead. So for
torchrun launches every host's process starts before planning as ``python -m
sagelaunch.local.warm``, imports torch.distributed.run, and waits on stdin. Once the plan exists,
the supervisor sends one JSON line with the real command line, working directory and environment,
and the process becomes ``python torchrun_agent.py ARGS`` as launched cold: its workers are
fresh interpreters started with that environment. End of input without a command (planning
failed, sagelaunch died) makes it exit quietly at once, even while it is still importing torch.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from sagelaunch.local.netns_keeper import die_with_parent

# How a host runs torchrun: its agent's script, by path (it imports no sagelaunch).
AGENT_SCRIPT = str(Path(__file__).with_name("torchrun_agent.py"))
TORCHRUN_AGENT = (sys.executable, AGENT_SCRIPT)


def is_warmable(argv: list[str]) -> bool:
    return tuple(argv[:2]) == TORCHRUN_AGENT


def start(env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """One waiting agent, in a session of its own (as every host process is)."""
    return subprocess.Popen(
        [sys.executable, "-m", __name__],
        env=dict(env),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=die_with_parent,  # never outlives sagelaunch, however it ends
    )


def release(
    proc: subprocess.Popen[bytes], argv: list[str], cwd: str, env: Mapping[str, str]
) -> None:
    """Hand a waiting agent its command; it runs from here on like a cold start."""
    assert proc.stdin is not None and is_warmable(argv)
    order = {"args": argv[len(TORCHRUN_AGENT) :], "cwd": cwd, "env": dict(env)}
    with contextlib.suppress(BrokenPipeError):
        proc.stdin.write((json.dumps(order) + "\n").encode())
        proc.stdin.close()


@contextlib.contextmanager
def agents(
    count: int, env: Mapping[str, str], started: list[subprocess.Popen[bytes]] | None = None
) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``count`` waiting agents, taken first from ``started`` (emptied: those not needed are
    killed, they are only importing torch); any still waiting when the block ends is sent away."""
    spare = started if started is not None else []
    procs = [spare.pop() if spare else start(env) for _ in range(count)]
    kill(spare)
    try:
        yield procs
    finally:
        for proc in procs:
            if proc.stdin is not None and not proc.stdin.closed:
                _dismiss(proc)


@contextlib.contextmanager
def guessed(count: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``count`` agents started before the run knows it needs them (warm_hint.py); whichever
    the run did not take (it empties the list it takes from) are killed when the block ends."""
    procs = [start(os.environ) for _ in range(count)]
    try:
        yield procs
    finally:
        kill(procs)


def kill(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        proc.kill()
        proc.wait()
    procs.clear()


def _dismiss(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdin is not None
    with contextlib.suppress(BrokenPipeError):
        proc.stdin.close()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _serve(stdin: IO[str]) -> int:
    orders: list[str] = []
    listener = threading.Thread(target=_listen, args=(stdin, orders), daemon=True)
    listener.start()
    from torch.distributed import run  # noqa: F401 - the slow import, overlapped with planning

    from sagelaunch.local import torchrun_agent

    listener.join()
    order: dict[str, Any] = json.loads(orders[0])
    os.chdir(order["cwd"])
    os.environ.clear()
    os.environ.update(order["env"])
    torchrun_agent.main(order["args"])
    return 0


def _listen(stdin: IO[str], orders: list[str]) -> None:
    """Wait for the command; sent away (end of input) leave at once, even halfway through
    importing torch, which takes many seconds on a loaded machine."""
    line = stdin.readline()
    if not line:
        os._exit(0)
    orders.append(line)


if __name__ == "__main__":
    sys.exit(_serve(sys.stdin))

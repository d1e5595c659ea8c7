"""Run train_pytorch's main() several times in one torchrun job, sharing its process group.

    torchrun --nproc_per_node 4 layout_driver.py runs.json

``runs.json`` lists ``{"root": dir, "argv": [...], "resume_from": dir | null}``; each run gets its
own fake /opt/ml under ``root`` (model/, output/, checkpoints/), rank 0's stdout goes to
``root/stdout.txt``, and ``resume_from`` (a checkpoint dir) is copied into its checkpoints first.
One gloo group for all runs: starting torch and rendezvousing four processes is most of a tiny
run's cost on a two-core machine, so the layout tests pay it once.

A run with ``"kill_after_step": N`` is killed for real: each rank forks a child (torch is already
imported, so a fork costs milliseconds where a new torchrun costs seconds) that joins a process
group of its own, and once rank 0's child logs step N every child gets SIGKILL at once, like a
spot interruption, wherever it is (often in the middle of writing a checkpoint). Its output goes
to ``root/killed.txt``, each rank's wait status to ``root/status.<rank>``, and what rank 0 found
in ``model/`` once its child was dead to ``root/model_after_kill.json``. These runs go first,
before this process makes its own group (a process group does not survive a fork).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
import time
from pathlib import Path

ENTRYPOINTS = Path(__file__).resolve().parents[2] / "entrypoints" / "pytorch"
sys.path.insert(0, str(ENTRYPOINTS))

import torch.distributed as dist  # noqa: E402
from sigkill import kill_at_once  # noqa: E402  (this file's folder: tests/entrypoints)

import smenv  # noqa: E402
import torch_dist  # noqa: E402
import train_pytorch  # noqa: E402

RANK = int(os.environ["RANK"])
WORLD = int(os.environ["WORLD_SIZE"])


def _job_env(root: Path) -> None:
    os.environ["SM_MODEL_DIR"] = str(root / "model")
    os.environ["SM_OUTPUT_DIR"] = str(root / "output")
    os.environ["SM_OUTPUT_DATA_DIR"] = str(root / "output" / "data")


def _argv(root: Path, spec: dict) -> list[str]:
    return ["--checkpoint_dir", str(root / "checkpoints"), *spec["argv"]]


def run_one(spec: dict) -> int:
    root = Path(spec["root"])
    if RANK == 0 and spec.get("resume_from"):
        source = Path(spec["resume_from"])
        shutil.copytree(source, root / "checkpoints" / source.name)
    dist.barrier()
    _job_env(root)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = smenv.run(train_pytorch.main, _argv(root, spec))
    if RANK == 0:
        (root / "stdout.txt").write_text(out.getvalue())
    return status


# ----------------------------------------------------------------------------- killed runs


def run_killed(spec: dict) -> None:
    """Fork this rank's child, and on rank 0 SIGKILL every rank's child after the chosen step."""
    root = Path(spec["root"])
    (root / "pids").mkdir(parents=True, exist_ok=True)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        _child(root, spec, write)
    os.close(write)
    with os.fdopen(read) as lines:
        if RANK == 0:
            _watch(root, lines, int(spec["kill_after_step"]))
        else:
            lines.read()  # until the child is gone
    _, status = os.waitpid(pid, 0)
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    (root / f"status.{RANK}").write_text(str(code))
    if RANK == 0:  # rank 0 writes model.pt: what the kill left of it
        model = root / "model"
        left = sorted(p.name for p in model.iterdir()) if model.is_dir() else []
        (root / "model_after_kill.json").write_text(json.dumps(left))


def _child(root: Path, spec: dict, write: int) -> None:
    status = 70
    try:
        os.dup2(write, 1)
        sys.stdout = os.fdopen(1, "w", buffering=1)
        (root / "pids" / str(RANK)).write_text(str(os.getpid()))
        store = dist.FileStore(str(root / "store"), WORLD)
        dist.init_process_group("gloo", store=store, rank=RANK, world_size=WORLD)
        _job_env(root)
        status = smenv.run(train_pytorch.main, _argv(root, spec))
        sys.stdout.flush()
    finally:
        os._exit(status)  # a forked child must not run the parent's exit path


def _watch(root: Path, lines: io.TextIOBase, step: int) -> None:
    with (root / "killed.txt").open("w") as seen:
        for line in lines:
            seen.write(line)
            if line.startswith(f"step={step} "):
                _kill_all(root)
                break
    with contextlib.suppress(OSError):
        lines.read()


def _kill_all(root: Path) -> None:
    deadline = time.monotonic() + 60
    while len(list((root / "pids").iterdir())) < WORLD and time.monotonic() < deadline:
        time.sleep(0.01)  # every child wrote its pid before it joined the group
    kill_at_once(int(path.read_text()) for path in (root / "pids").iterdir())


def _preload(specs: list[dict]) -> None:
    """Import what train_pytorch imports lazily (the torch.distributed modules of its layouts,
    DeepSpeed where a killed run uses it) before forking, so the killed runs' children inherit
    it: each child would otherwise import them itself (~1.4 s per rank, four ranks on two cores,
    for each of the killed runs; DeepSpeed costs several seconds more)."""
    import torch.distributed.checkpoint.state_dict
    import torch.distributed.fsdp
    import torch.distributed.optim
    import torch.distributed.pipelining
    import torch.distributed.tensor.parallel
    import torch.nn.parallel  # noqa: F401

    zero = {"--zero_stage", "--deepspeed_config"}
    if any(spec.get("kill_after_step") and zero & set(spec["argv"]) for spec in specs):
        os.environ.setdefault("DS_ACCELERATOR", "cpu")  # as torch_deepspeed sets it on a CPU
        import deepspeed.ops

        # deepspeed.initialize's optimizer check imports its Muon optimizer, whose module
        # torch.compiles at import (~1.8 s CPU): once here rather than in every child and again
        # in every rank. (Only a preload: a DeepSpeed without it imports what it has.)
        with contextlib.suppress(ImportError):
            import deepspeed.runtime.zero.muon.muon_optimizer  # noqa: F401


def main(path: str) -> int:
    specs = json.loads(Path(path).read_text())
    _preload(specs)
    for spec in specs:
        if spec.get("kill_after_step"):
            run_killed(spec)
    dist.init_process_group("gloo")
    status = 0
    for spec in specs:
        if not spec.get("kill_after_step"):
            status |= run_one(spec)
    dist.barrier()
    return status


if __name__ == "__main__":
    torch_dist.exit_process(main(sys.argv[1]))

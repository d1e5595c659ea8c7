"""Crash-safe checkpoints: a job killed at any instant resumes from the newest complete one.

Layout under the checkpoint dir (SageMaker syncs it to S3 as it changes)::

    step_000120/COMPLETE    JSON manifest, written last: file sizes (and sha256 where cheap)
    step_000120/state.pt    DDP / single process: model, optimizer, RNG states, data position
    step_000120/extra.pt    FSDP, TP, PP: RNG states and data position beside ...
    step_000120/.metadata, __<rank>_0.distcp   ... torch.distributed.checkpoint shards
    step_000130.tmp/        being written; never read, removed on the next start

Shards are named by the whole model's parameter names (optimizer state flattened the same way),
so a checkpoint written under one layout (say tp2 × fsdp2) resumes under another (fsdp4, pp2 × dp2,
one process): torch.distributed.checkpoint reshards on load.

Each checkpoint is written into ``<name>.tmp``, every file fsync'ed, the manifest added, and the
directory renamed into place: a reader sees all of a checkpoint or none of it. Anything that
fails the manifest check (a torn S3 sync, a truncated file) is skipped with a warning.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import torch

import shared_outputs
import smenv
import torch_dist
import torch_parallel

MARKER = "COMPLETE"
STATE_FILE = "state.pt"
EXTRA_FILE = "extra.pt"
NAME = re.compile(r"^step_(\d+)$")


class CheckpointError(Exception):
    """A checkpoint that is incomplete or damaged; the caller skips it."""


def step_name(step: int) -> str:
    return f"step_{step:06d}"


# ---------------------------------------------------------------------------- durable file writes


class _HashingWriter:
    """File wrapper that hashes what torch.save writes, so verifying costs no second read."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw = raw
        self.sha = hashlib.sha256()

    def write(self, data: bytes) -> int:
        self.sha.update(data)
        return self.raw.write(data)

    def flush(self) -> None:
        self.raw.flush()


def save_file(obj: object, path: Path) -> str:
    """torch.save to ``path`` durably (fsync) and return the content's sha256."""
    with path.open("wb") as raw:
        writer = _HashingWriter(raw)
        torch.save(obj, writer)  # type: ignore[arg-type]  # needs only write() and flush()
        raw.flush()
        os.fsync(raw.fileno())
    return writer.sha.hexdigest()


def atomic_save(obj: object, path: Path) -> None:
    """torch.save ``obj`` over ``path`` all at once (shared_outputs.atomic_write)."""
    shared_outputs.atomic_write(path, lambda handle: torch.save(obj, handle))


def load_verified(path: Path, sha256: str | None) -> Any:
    """torch.load a file after checking its hash; CheckpointError on any damage."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CheckpointError(f"{path.name}: {exc}") from None
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        raise CheckpointError(f"{path.name}: content does not match its recorded sha256")
    try:
        # weights_only: tensors and plain containers only, nothing a tampered file could execute.
        return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as exc:  # any unpickling failure means a damaged file
        raise CheckpointError(f"{path.name}: cannot be read ({exc})") from None


# ---------------------------------------------------------------------------------- RNG states


def capture_rng(ctx: torch_dist.DistContext) -> dict[str, Any]:
    """Every random stream training may draw from, in weights_only-safe types."""
    kind, keys, pos, has_gauss, cached = np.random.get_state(legacy=True)
    assert isinstance(keys, np.ndarray)
    state: dict[str, Any] = {
        "torch": torch.get_rng_state(),
        "numpy": [kind, torch.from_numpy(keys.astype(np.int64)), pos, has_gauss, cached],
        "python": _listify(random.getstate()),
    }
    if ctx.device.type == "cuda":
        state["cuda"] = torch.cuda.get_rng_state(ctx.device)
    if ctx.xm is not None:
        state["xla"] = ctx.xm.get_rng_state()
    return state


def restore_rng(state: dict[str, Any], ctx: torch_dist.DistContext) -> None:
    torch.set_rng_state(state["torch"])
    kind, keys, pos, has_gauss, cached = state["numpy"]
    np.random.set_state((kind, keys.numpy().astype(np.uint32), pos, has_gauss, cached))
    random.setstate(_tuplify(state["python"]))
    if "cuda" in state and ctx.device.type == "cuda":
        torch.cuda.set_rng_state(state["cuda"], ctx.device)
    if "xla" in state and ctx.xm is not None:
        ctx.xm.set_rng_state(state["xla"])


def _listify(value: Any) -> Any:
    return [_listify(v) for v in value] if isinstance(value, tuple) else value


def _tuplify(value: Any) -> Any:
    return tuple(_tuplify(v) for v in value) if isinstance(value, list) else value


# -------------------------------------------------------------------------------- checkpointer


@dataclass
class Checkpointer:
    """Saves and restores training state under ``root``; every rank calls every method."""

    root: Path
    keep: int
    par: torch_parallel.Parallel
    optimizer: torch.optim.Optimizer
    warn: Callable[[str], None]
    signature: dict[str, Any]  # settings the saved state's shapes depend on
    _shards_touched: bool = False

    @property
    def ctx(self) -> torch_dist.DistContext:
        return self.par.ctx

    @property
    def sharded(self) -> bool:
        return self.par.uses_dcp

    @property
    def format_name(self) -> str:
        return "dcp" if self.sharded else "torch"

    @property
    def committer(self) -> bool:
        # Sharded checkpoints have files from every host, so each host commits its own copy
        # (SageMaker merges them in S3); a rank-0 checkpoint has one writer.
        return self.ctx.local_rank == 0 if self.sharded else self.ctx.is_main

    def clean_partial(self) -> None:
        """Remove half-written checkpoints a killed run left behind."""
        if self.committer and self.root.is_dir():
            for stale in self.root.glob("step_*.tmp"):
                shutil.rmtree(stale, ignore_errors=True)
        torch_dist.barrier(self.ctx)

    def save(self, step: int, extra: dict[str, Any]) -> None:
        final = self.root / step_name(step)
        temp = final.with_name(final.name + ".tmp")
        if self.committer:
            # Leftovers of a killed run at this step (a partial temp, or a damaged copy that
            # resume skipped) go now, before the barrier: after it, another host on a shared
            # disk may already have committed this step.
            shutil.rmtree(temp, ignore_errors=True)
            shutil.rmtree(final, ignore_errors=True)
            temp.mkdir(parents=True, exist_ok=True)
        torch_dist.barrier(self.ctx)
        rng = torch_dist.gather_to_main(capture_rng(self.ctx), self.ctx)
        extra = {**extra, "signature": self.signature, "rng": rng}
        hashes = self._write(temp, extra)
        torch_dist.barrier(self.ctx)
        if self.committer:
            self._commit(temp, final, step, hashes)
            self._prune()
        torch_dist.barrier(self.ctx)

    def _write(self, temp: Path, extra: dict[str, Any]) -> dict[str, str]:
        if self.sharded:
            import torch.distributed.checkpoint as dcp

            dcp.save(torch_parallel.sharded_state(self.par, self.optimizer), checkpoint_id=temp)
            return {EXTRA_FILE: save_file(extra, temp / EXTRA_FILE)} if self.ctx.is_main else {}
        local = torch_parallel.local_state(self.par, self.optimizer)  # every rank (ZeRO-1)
        if local is None:
            return {}
        return {STATE_FILE: save_file({**local, "extra": extra}, temp / STATE_FILE)}

    def _commit(self, temp: Path, final: Path, step: int, hashes: dict[str, str]) -> None:
        try:
            for path in temp.iterdir():
                _fsync_file(path)  # DCP's own fsync is optional, so do it for every shard
            manifest = {
                "step": step,
                "format": self.format_name,
                "files": {
                    p.name: {"size": p.stat().st_size, "sha256": hashes.get(p.name)}
                    for p in sorted(temp.iterdir())
                },
            }
            shared_outputs.atomic_write_text(temp / MARKER, json.dumps(manifest, indent=1))
            os.rename(temp, final)
        except FileNotFoundError:
            if not (final / MARKER).exists():  # on a shared disk another host committed it
                raise
        shared_outputs.fsync_dir(self.root)

    def _prune(self) -> None:
        steps = sorted(self._complete_steps(), reverse=True)
        for old in steps[self.keep :]:
            shutil.rmtree(self.root / step_name(old), ignore_errors=True)

    def _complete_steps(self) -> list[int]:
        if not self.root.is_dir():
            return []
        found = (NAME.match(p.name) for p in self.root.iterdir() if (p / MARKER).is_file())
        return sorted(int(m.group(1)) for m in found if m)

    def _candidates(self) -> list[int]:
        """Step numbers of every step_* dir, newest first, complete or not (to warn about)."""
        if not self.root.is_dir():
            return []
        found = (NAME.match(p.name) for p in self.root.iterdir() if p.is_dir())
        return sorted((int(m.group(1)) for m in found if m), reverse=True)

    # ------------------------------------------------------------------------------ restore

    def restore(self) -> dict[str, Any] | None:
        """Load the newest loadable checkpoint into model and optimizer; its ``extra``, or None."""
        self.clean_partial()
        candidates = torch_dist.broadcast_from_main(self._candidates(), self.ctx)
        for step in candidates:
            extra = self._try_load(step)
            if extra is not None:
                return extra
        if self._shards_touched:
            # A failed DCP load may have overwritten part of the fresh model; starting over from
            # that would silently train a different model.
            raise RuntimeError(f"no checkpoint under {self.root} could be loaded; remove them")
        return None

    def _try_load(self, step: int) -> dict[str, Any] | None:
        path = self.root / step_name(step)
        error = None
        try:
            manifest = read_manifest(path)
            extra = self._load(path, manifest)
        except CheckpointError as exc:
            error, extra = str(exc), None
        # Every rank must agree, or one would resume while another starts over.
        if torch_dist.all_ranks_ok(error is None, self.ctx):
            return extra
        if self.ctx.is_main:
            self.warn(f"skipping checkpoint {path.name}: {error or 'unreadable on another rank'}")
        return None

    def _load(self, path: Path, manifest: dict[str, Any]) -> dict[str, Any]:
        files = manifest["files"]
        written_by = manifest.get("format")
        if written_by not in (None, "torch", "dcp"):  # e.g. "deepspeed": torch_deepspeed_ckpt
            raise smenv.UsageError(
                f"checkpoint {path} was written in the {written_by} format; resume it with the "
                "hyperparameters that wrote it (--zero_stage/--deepspeed_config for DeepSpeed), "
                "or use a fresh --checkpoint_dir"
            )
        # The format the checkpoint was written in, not this run's: shards written under one
        # layout load into any other (DCP reshards), a single-process run included.
        if written_by != "dcp":
            if self.sharded:
                raise smenv.UsageError(
                    f"checkpoint {path} holds one rank's full state; resume it with the layout "
                    "that wrote it (--parallel ddp, no TP or PP), or use a fresh --checkpoint_dir"
                )
            state = load_verified(path / STATE_FILE, files[STATE_FILE]["sha256"])
            self._check_signature(path, state["extra"])
            torch_parallel.load_local_state(self.par, self.optimizer, state)
            return self._restore_rng(state["extra"])
        extra = load_verified(path / EXTRA_FILE, files[EXTRA_FILE]["sha256"])
        self._check_signature(path, extra)
        self._load_shards(path)
        return self._restore_rng(extra)

    def _check_signature(self, path: Path, extra: dict[str, Any]) -> None:
        saved = extra.get("signature", {})
        changed = sorted(k for k in self.signature if saved.get(k) != self.signature[k])
        if changed:
            diffs = ", ".join(f"{k} {saved.get(k)!r} -> {self.signature[k]!r}" for k in changed)
            raise smenv.UsageError(
                f"checkpoint {path} was written with other hyperparameters ({diffs}); "
                "restore them or use a fresh --checkpoint_dir"
            )

    def _load_shards(self, path: Path) -> None:
        import torch.distributed.checkpoint as dcp

        state = torch_parallel.sharded_state(self.par, self.optimizer)
        self._shards_touched = True
        try:
            dcp.load(state, checkpoint_id=path)
        except Exception as exc:  # DCP wraps any rank's read error in its own exception
            raise CheckpointError(f"shards cannot be read ({type(exc).__name__})") from None
        torch_parallel.load_sharded_state(self.par, self.optimizer, state)

    def _restore_rng(self, extra: dict[str, Any]) -> dict[str, Any]:
        states = extra.get("rng", [])
        if len(states) == self.ctx.world_size:
            restore_rng(states[self.ctx.rank], self.ctx)
        elif self.ctx.is_main:
            self.warn(
                f"checkpoint was written by {len(states)} ranks, this run has "
                f"{self.ctx.world_size}: random streams start afresh"
            )
        return extra


def read_manifest(path: Path) -> dict[str, Any]:
    """The COMPLETE manifest of a checkpoint dir, checked against the files beside it."""
    try:
        manifest = json.loads((path / MARKER).read_text(encoding="utf-8"))
        files = manifest["files"]
    except FileNotFoundError:
        raise CheckpointError("incomplete (no COMPLETE marker)") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CheckpointError(f"unreadable COMPLETE marker ({exc})") from None
    for name, info in files.items():
        file = path / name
        if not file.is_file():
            raise CheckpointError(f"{name} is missing")
        if file.stat().st_size != info["size"]:
            raise CheckpointError(f"{name} is {file.stat().st_size} bytes, expected {info['size']}")
    return manifest


def _fsync_file(path: Path) -> None:
    if path.is_file():
        with path.open("rb") as handle:
            os.fsync(handle.fileno())

"""DeepSpeed checkpoints inside torch_ckpt's crash-safe scheme.

``engine.save_checkpoint`` writes into ``step_N.tmp``; then, as for every checkpoint, each file is
fsynced, the COMPLETE manifest added and the folder renamed into place, so a run killed at any
instant resumes from the newest complete one (``engine.load_checkpoint`` from there). Every rank
writes its own ZeRO shards and each host's first rank commits its host's copy: DeepSpeed's
``use_node_local_storage`` (set by torch_deepspeed), since SageMaker's checkpoint folders are per
host. A separate module from torch_deepspeed, which torch_ckpt's own imports reach.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import smenv
import torch_ckpt

FORMAT = "deepspeed"


class Checkpointer(torch_ckpt.Checkpointer):
    """torch_ckpt's atomic checkpoints, with DeepSpeed writing and reading the state."""

    @property
    def sharded(self) -> bool:
        return True  # every rank writes: each host's first rank commits its copy

    @property
    def format_name(self) -> str:
        return FORMAT

    def _write(self, temp: Path, extra: dict[str, Any]) -> dict[str, str]:
        self.par.engine.save_checkpoint(str(temp.parent), tag=temp.name, save_latest=False)
        if self.committer:
            return {
                torch_ckpt.EXTRA_FILE: torch_ckpt.save_file(extra, temp / torch_ckpt.EXTRA_FILE)
            }
        return {}

    def _load(self, path: Path, manifest: dict[str, Any]) -> dict[str, Any]:
        if manifest.get("format") != FORMAT:
            raise smenv.UsageError(
                f"checkpoint {path} was not written by DeepSpeed; resume it without "
                "--zero_stage/--deepspeed_config, or use a fresh --checkpoint_dir"
            )
        files = manifest["files"]
        extra = torch_ckpt.load_verified(
            path / torch_ckpt.EXTRA_FILE, files[torch_ckpt.EXTRA_FILE]["sha256"]
        )
        self._check_signature(path, extra)
        self._shards_touched = True
        try:
            loaded, _ = self.par.engine.load_checkpoint(str(path.parent), tag=path.name)
        except Exception as exc:  # any rank's damaged shard
            raise torch_ckpt.CheckpointError(f"cannot be loaded ({type(exc).__name__})") from None
        if loaded is None:
            raise torch_ckpt.CheckpointError("DeepSpeed found no checkpoint there")
        return self._restore_rng(extra)

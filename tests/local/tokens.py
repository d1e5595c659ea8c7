"""`python -m tests.local.tokens DIR`: a few .npy token files for `--data channel` demos
(launch_configs/hetero-c5-p4d.yaml reads them as its local train channel)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

VOCAB = 64


def write_tokens(folder: Path, files: int = 3, windows: int = 40, seq_len: int = 16) -> None:
    """``files`` arrays of token ids below VOCAB, each ``windows`` windows of seq_len + 1."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    for index in range(files):
        tokens = rng.integers(0, VOCAB, windows * (seq_len + 1)).astype(np.int32)
        np.save(folder / f"part-{index}.npy", tokens)


if __name__ == "__main__":
    write_tokens(Path(sys.argv[1] if len(sys.argv) > 1 else ".sagelaunch/demo-tokens"))

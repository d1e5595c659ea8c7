"""Training data as a pure function of (seed, step, rank).

Every batch is computed from its position in the run, never from an iterator's hidden state, so a
run resumed from a checkpoint at step k sees exactly the batches an uninterrupted run sees, and
two ranks with batch B see the same global batch as one process with batch 2B.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
import torch

from smenv import UsageError

# Synthetic sequences follow a hidden cyclic order of the vocabulary with this much noise, so both
# models can learn something (the loss visibly falls) while the data stays trivially cheap.
SYNTHETIC_NOISE = 0.1
TOKEN_SUFFIXES = (".npy", ".bin")


def seed_for(*parts: int | str) -> int:
    """A stable 63-bit seed from its parts (Python's hash() is salted per process)."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


def generator(*parts: int | str) -> torch.Generator:
    return torch.Generator().manual_seed(seed_for(*parts))


class TokenDataset(Protocol):
    """A fixed, indexable set of ``seq_len + 1``-token windows."""

    def __len__(self) -> int: ...

    def window(self, sample_id: int) -> torch.Tensor: ...


class SyntheticTokens:
    """Windows of a noisy walk along a seed-chosen permutation of the vocabulary."""

    def __init__(self, seed: int, num_samples: int, seq_len: int, vocab_size: int) -> None:
        self.seed = seed
        self.num_samples = num_samples
        self.seq_len = seq_len
        self.vocab_size = vocab_size
        self.order = torch.randperm(vocab_size, generator=generator("order", seed))

    def __len__(self) -> int:
        return self.num_samples

    def window(self, sample_id: int) -> torch.Tensor:
        gen = generator("sample", self.seed, sample_id)
        start = int(torch.randint(self.vocab_size, (1,), generator=gen))
        walk = self.order[(start + torch.arange(self.seq_len + 1)) % self.vocab_size]
        noisy = torch.rand(self.seq_len + 1, generator=gen) < SYNTHETIC_NOISE
        noise = torch.randint(self.vocab_size, (self.seq_len + 1,), generator=gen)
        return torch.where(noisy, noise, walk)


class ChannelTokens:
    """Non-overlapping windows over token files (``.npy`` of integers, ``.bin`` raw uint16).

    Files are memory-mapped, so a channel larger than RAM is fine; windows never cross files.
    """

    def __init__(self, files: Sequence[Path], seq_len: int, vocab_size: int) -> None:
        self.arrays = [_open_tokens(path) for path in files]
        self.seq_len = seq_len
        self.vocab_size = vocab_size
        counts = [len(a) // (seq_len + 1) for a in self.arrays]
        self.starts = np.cumsum([0, *counts])
        if self.starts[-1] == 0:
            raise UsageError(f"token files hold no window of seq_len+1={seq_len + 1} tokens")

    def __len__(self) -> int:
        return int(self.starts[-1])

    def window(self, sample_id: int) -> torch.Tensor:
        file_index = int(np.searchsorted(self.starts, sample_id, side="right")) - 1
        offset = (sample_id - int(self.starts[file_index])) * (self.seq_len + 1)
        tokens = np.asarray(self.arrays[file_index][offset : offset + self.seq_len + 1])
        if tokens.size and (int(tokens.max()) >= self.vocab_size or int(tokens.min()) < 0):
            raise UsageError(f"token ids must lie in [0, vocab_size={self.vocab_size})")
        return torch.from_numpy(tokens.astype(np.int64))


def _open_tokens(path: Path) -> np.ndarray:
    if path.suffix == ".bin":
        return np.memmap(path, dtype=np.uint16, mode="r")
    array = np.load(path, mmap_mode="r")
    if array.dtype.kind not in "iu":
        raise UsageError(f"{path.name}: token arrays must hold integers, not {array.dtype}")
    return array.reshape(-1)


def token_files(channel: Path) -> list[Path]:
    """All token files under a channel directory, in a stable order."""
    files = sorted(p for p in channel.rglob("*") if p.suffix in TOKEN_SUFFIXES and p.is_file())
    if not files:
        raise UsageError(f"no .npy or .bin token files under {channel}")
    return files


@dataclass(frozen=True)
class BatchPlan:
    """Where one rank's micro-batches sit in the run's stream of samples."""

    seed: int
    batch_size: int
    grad_accum: int
    rank: int
    world_size: int

    @property
    def global_batch(self) -> int:
        return self.batch_size * self.grad_accum * self.world_size

    def positions(self, step: int, micro: int) -> range:
        """Global sample positions of this rank's micro-batch: the same layout for any world
        size, so 2 ranks × B and 1 rank × 2B cover identical samples."""
        first = step * self.global_batch + (micro * self.world_size + self.rank) * self.batch_size
        return range(first, first + self.batch_size)


class Batches:
    """Turns (step, micro-step) into an input/target pair, reshuffling every epoch."""

    def __init__(self, dataset: TokenDataset, plan: BatchPlan) -> None:
        self.dataset = dataset
        self.plan = plan
        self._orders: dict[int, torch.Tensor] = {}

    def epoch_of(self, step: int) -> int:
        return step * self.plan.global_batch // len(self.dataset)

    def get(self, step: int, micro: int) -> tuple[torch.Tensor, torch.Tensor]:
        windows = [self._window(p) for p in self.plan.positions(step, micro)]
        stacked = torch.stack(windows)
        return stacked[:, :-1], stacked[:, 1:]

    def _window(self, position: int) -> torch.Tensor:
        epoch, index = divmod(position, len(self.dataset))
        return self.dataset.window(int(self._order(epoch)[index]))

    def _order(self, epoch: int) -> torch.Tensor:
        # A global batch may straddle two epochs, so keep the last two orders.
        if epoch not in self._orders:
            if len(self._orders) >= 2:
                del self._orders[min(self._orders)]
            gen = generator("epoch", self.plan.seed, epoch)
            self._orders[epoch] = torch.randperm(len(self.dataset), generator=gen)
        return self._orders[epoch]

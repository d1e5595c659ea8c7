"""The names nearest a misspelt one, for "did you mean" hints: all of those equally near
(us-eest-1 is one letter from us-east-1 and from us-west-1, and neither is the better guess)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def nearest(word: str, names: Iterable[str], cutoff: float) -> list[str]:
    """The ``names`` most like ``word`` (sorted), or none when even the best is under ``cutoff``."""
    scored = [(difflib.SequenceMatcher(None, word, name).ratio(), name) for name in names]
    best = max((score for score, _ in scored), default=0.0)
    return sorted(name for score, name in scored if score == best) if best >= cutoff else []

"""Framework versions as comparable numbers: "2.9" and "2.9.0" compare equal, "1.13.1" after
"1.13" (the SDK's tables and ours write both)."""

from __future__ import annotations

import re
from typing import Protocol


class Versioned(Protocol):
    """Anything with a framework version (a launch config)."""

    @property
    def framework_version(self) -> str | None: ...


def numbers(text: str) -> tuple[int, ...]:
    """The first three numbers of ``text``, zero-padded."""
    found = tuple(int(n) for n in re.findall(r"\d+", text)[:3])
    return found + (0,) * (3 - len(found))


def version_of(config: Versioned) -> tuple[int, ...] | None:
    """The config's framework version as numbers; None without one."""
    return numbers(config.framework_version) if config.framework_version else None

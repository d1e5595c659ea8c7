"""How many torchrun agents the last run of this very config needed, so that a rerun can start
them (warm.py) before the config is even loaded and checked.

Loading and checking a config costs a few tenths of a second, and torchrun agents import torch
for about a second: started after the check they add the one to the other, started before it
they overlap. The hint is keyed by the config file's bytes, the --set overrides and the host
options; it is only a guess (a base file under `extends:` may have changed): the run still
starts exactly the agents its checked config needs, and kills any guessed one it does not use.
A run that never passed the check leaves no hint, so a broken config starts no agent.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path

from sagelaunch import caches
from sagelaunch.atomic import write_text
from sagelaunch.local.options import Options

WARM = "warm"  # caches.folder(WARM): the hints


def key(config: Path, overrides: list[str] | None, options: Options) -> str | None:
    try:
        data = config.read_bytes()
    except OSError:
        return None  # the check reports it
    asked = [str(config.resolve()), overrides or [], options.hosts, options.processes_per_host]
    return hashlib.sha256(data + json.dumps(asked).encode()).hexdigest()


def guess(hint: str | None) -> int:
    """Agents the last run with this key started (0: none, or no such run)."""
    if hint is None:
        return 0
    try:
        return int(json.loads((caches.folder(WARM) / f"{hint}.json").read_text())["agents"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0


def remember(hint: str | None, agents: int) -> None:
    if hint is None:
        return
    # A read-only folder: reruns start their agents after the check, as before.
    with contextlib.suppress(OSError):
        write_text(caches.folder(WARM) / f"{hint}.json", json.dumps({"agents": agents}))

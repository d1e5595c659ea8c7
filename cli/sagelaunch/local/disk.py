"""A full disk under the run folder, said as what it is: the path, the host, where to look.

Without this, a local run on a full disk ends in exit 70 with no path named (an OSError from
packing model.tar.gz, copying a channel, writing a tree). The run's files so far are kept.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sagelaunch.errors import JobFailed

FULL = (errno.ENOSPC, errno.EDQUOT)


@contextmanager
def reported(workdir: Path) -> Iterator[None]:
    """Turns a full disk (or quota) met under ``workdir`` into one clear error (exit 1)."""
    try:
        yield
    except OSError as error:
        if error.errno not in FULL:
            raise
        raise full_disk(workdir, error) from None


def full_disk(workdir: Path, error: OSError) -> JobFailed:
    path = Path(error.filename) if error.filename else workdir
    host = host_of(path, workdir)
    on = f" (host {host})" if host else ""
    return JobFailed(
        f"local run failed: {error.strerror or 'no space left on device'} writing {path}{on}",
        hint=f"free space on the disk of {workdir} (df -h {workdir}) or give --workdir on "
        f"another disk; what the run wrote so far is kept in {workdir}",
    )


def host_of(path: Path, workdir: Path) -> str | None:
    """The emulated host whose files ``path`` is among (its tree, log or sandbox), if any."""
    try:
        parts = path.resolve().relative_to(workdir.resolve()).parts
    except ValueError:
        return None
    for part in parts:
        name = part.removesuffix(".log")
        if name.startswith("algo-"):
            return name
    return None

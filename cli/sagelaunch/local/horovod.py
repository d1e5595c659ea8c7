"""TensorFlow's ``mpi`` jobs and Horovod under `local`.

The SageMaker TensorFlow toolkit's MPI runner starts any script under mpirun (an mpi4py script,
a shell entry point, a script that reads ``OMPI_COMM_WORLD_RANK``); only a script that imports
Horovod needs it, and SageMaker's TensorFlow GPU images ship it. So a TensorFlow ``mpi`` job is
refused before anything runs only when its code imports horovod and this machine has none. The
code is scanned cheaply (container_packages.imported_modules: lines that import it), here where
the code folder is known: a strategy sees only the config (strategies/mpi.py).
"""

from __future__ import annotations

import re
import tarfile
from collections.abc import Iterator
from importlib import util
from pathlib import Path

from sagelaunch import source_archive
from sagelaunch.errors import UsageError
from sagelaunch.local.container_packages import imported_modules

MODULE = "horovod"
_IMPORTS = re.compile(rf"^\s*(?:from|import)\s+{MODULE}\b", re.MULTILINE)
_NAMED = 3  # importing files named in the message


def check(framework: str, runs_horovod: bool, code: Path) -> None:
    """Refuse a TensorFlow job of a strategy that runs Horovod (mpi) whose code imports horovod
    where it is not installed; any other script runs under mpirun as it is."""
    if framework != "tensorflow" or not runs_horovod or installed():
        return
    found = importers(code)
    if not found:
        return
    named = ", ".join(found[:_NAMED]) + (", ..." if len(found) > _NAMED else "")
    raise UsageError(
        f"{named} import{'s' if len(found) == 1 else ''} horovod, which is not installed here "
        "(SageMaker's TensorFlow GPU images ship it; the mpi strategy itself runs any script "
        "under mpirun)",
        "install horovod built against the TensorFlow this job runs, with Open MPI "
        "(HOROVOD_WITH_TENSORFLOW=1 HOROVOD_WITH_MPI=1 pip install --no-cache-dir horovod), "
        "or run a script that does not import it (mpi4py, or one process per rank)",
    )


def installed() -> bool:
    return util.find_spec(MODULE) is not None


def importers(code: Path) -> list[str]:
    """The .py files of ``code`` (a folder, or SDK v3's .tar.gz source) that import horovod,
    relative to it and sorted."""
    texts: Iterator[tuple[str, str]]
    if code.is_dir():
        if MODULE not in imported_modules(code):
            return []
        texts = (
            (p.relative_to(code).as_posix(), p.read_text("utf-8", "replace"))
            for p in code.rglob("*.py")
        )
    elif code.is_file() and source_archive.is_archive(code):
        texts = _archive_scripts(code)
    else:
        return []
    return sorted(name for name, text in texts if _IMPORTS.search(text))


def _archive_scripts(archive: Path) -> Iterator[tuple[str, str]]:
    try:
        with tarfile.open(archive, mode="r:gz") as tar:
            for member in tar.getmembers():
                if member.isfile() and member.name.endswith(".py"):
                    data = tar.extractfile(member)
                    if data is not None:
                        name = member.name.removeprefix("./")
                        yield name, data.read().decode("utf-8", "replace")
    except (tarfile.TarError, OSError, EOFError):
        return  # a broken archive is refused elsewhere (source_archive), saying what it is

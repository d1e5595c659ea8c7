"""The command that installs one of sagelaunch's extras, into the environment this sagelaunch
runs in, from where this sagelaunch came from.

sagelaunch is not published on the public package index: `pip install 'sagelaunch[local]'`
would resolve a package of that name there, someone else's (dependency confusion). The hint
names what this install came from instead, as pip recorded it (PEP 610's `direct_url.json`): the
checkout of an editable install (`pip install -e 'CHECKOUT[local]'`), or the wheel or folder it
was installed from; and the interpreter of this environment, since a bare `pip` may be another.
"""

from __future__ import annotations

import json
import shlex
import sys
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

DISTRIBUTION = "sagelaunch"
UNKNOWN = "SAGELAUNCH_WHEEL_OR_CHECKOUT"  # where pip recorded no origin: the reader's to fill in


def origin() -> tuple[str, bool] | None:
    """(path, editable) of what this sagelaunch was installed from, or None where pip did not
    record a local one (an index, a VCS URL, a copied site-packages)."""
    try:
        text = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
        recorded = json.loads(text or "")
    except (metadata.PackageNotFoundError, ValueError):
        return None
    if not isinstance(recorded, dict):
        return None
    url = urlparse(str(recorded.get("url", "")))
    if url.scheme != "file" or "vcs_info" in recorded:
        return None
    editable = bool(recorded.get("dir_info", {}).get("editable"))
    return unquote(url.path), editable


def install_extra(extra: str) -> str:
    """The command installing ``extra`` into this environment, e.g. `/venv/bin/python -m pip
    install -e '/src/sagelaunch[local]'`."""
    found = origin()
    if found is None:
        target, editable = f"{UNKNOWN}[{extra}]", False
    else:
        path, editable = found
        target = f"{path}[{extra}]"
    command = f"{_installer()} {'-e ' if editable else ''}{shlex.quote(target)}"
    if found is None:
        command += f" ({UNKNOWN}: the wheel or checkout this sagelaunch was installed from)"
    return command


def _installer() -> str:
    """pip of this interpreter where it has one; else uv's pip aimed at it (a `uv tool` or `uv
    venv` environment has no pip)."""
    import importlib.util

    python = shlex.quote(sys.executable)
    if importlib.util.find_spec("pip") is not None:
        return f"{python} -m pip install"
    beside = Path(sys.executable).with_name("uv")
    uv = shlex.quote(str(beside)) if beside.is_file() else "uv"
    return f"{uv} pip install --python {python}"

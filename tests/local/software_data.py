"""Code folders for the software tests: a tiny wheel built here (no index needed) and scripts."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

# Prints what it imported from the requirements and its own argv, for the tests to read.
IMPORTER = """\
import json, sys
import tinypkg
print("TINYPKG", tinypkg.VALUE, tinypkg.__file__)
print("ARGV", json.dumps(sys.argv[1:]))
"""


def write_wheel(
    folder: Path,
    name: str = "tinypkg",
    version: str = "0.1",
    modules: dict[str, str] | None = None,
    tag: str = "py3-none-any",
) -> Path:
    """A wheel, as a build backend would write it: one package ``name`` (VALUE = 42,
    __version__), or the files ``modules`` maps to their text."""
    dist = f"{name}-{version}.dist-info"
    files = dict(modules or {f"{name}/__init__.py": f"VALUE = 42\n__version__ = {version!r}\n"})
    files |= {
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\n"
        f"Tag: {tag}\n",
    }
    record = [f"{path},sha256={_digest(text)},{len(text.encode())}" for path, text in files.items()]
    files[f"{dist}/RECORD"] = "\n".join([*record, f"{dist}/RECORD,,"]) + "\n"
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / f"{name}-{version}-{tag}.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return wheel


def _digest(text: str) -> str:
    raw = hashlib.sha256(text.encode()).digest()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

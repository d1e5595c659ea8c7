"""MkDocs hooks: the reference pages are generated from the code at build time, never committed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import command_reference
import config_reference
from mkdocs.structure.files import File, Files

GENERATED = {
    "reference/config.md": config_reference.markdown,
    "reference/commands.md": command_reference.markdown,
}


def on_files(files: Files, config: Any) -> Files:
    for uri, render in GENERATED.items():
        files.append(File.generated(config, uri, content=render()))
    return files

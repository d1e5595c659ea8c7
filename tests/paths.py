"""The repository's root, in a module that imports nothing else: for what runs as a process of
its own and must not pay conftest's imports (sagelaunch's app, typer, pytest) to find a folder:
`python -m tests...` scripts (`make try-aws`, `make golden`) and the modules the measuring
drivers import. Test modules take it from tests/conftest.py, which re-exports it."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

"""Every fenced block marked `<!-- runnable -->` in docs/**/*.md runs, so the docs cannot rot.

```sh blocks run with bash from the repo root under a temporary HOME and must exit 0; ```yaml
blocks are saved beside a copy of launch_configs/ (relative paths such as `extends:` resolve)
and must pass `sagelaunch validate`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MARKED = re.compile(r"^<!-- runnable -->\n```(\w+)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def runnable_blocks() -> list[tuple[str, str, str]]:
    found = []
    for page in sorted((ROOT / "docs").glob("**/*.md")):
        for match in MARKED.finditer(page.read_text()):
            line = page.read_text()[: match.start()].count("\n") + 2
            found.append((f"{page.relative_to(ROOT)}:{line}", match.group(1), match.group(2)))
    return found


BLOCKS = runnable_blocks()


def test_the_docs_mark_examples_runnable() -> None:
    languages = {language for _, language, _ in BLOCKS}
    assert {"sh", "yaml"} <= languages


@pytest.mark.parametrize(("where", "language", "body"), BLOCKS, ids=[b[0] for b in BLOCKS])
def test_runnable_example(where: str, language: str, body: str, tmp_path: Path) -> None:
    assert language in {"sh", "yaml"}, f"{where}: runnable blocks are sh or yaml, not {language}"
    # As a reader runs them: the project's virtualenv activated (`sagelaunch` on PATH).
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "HOME": str(tmp_path / "home"), "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    if language == "sh":
        command = ["bash", "-euo", "pipefail", "-c", body]
    else:
        configs = tmp_path / "launch_configs"
        shutil.copytree(ROOT / "launch_configs", configs)
        example = configs / "docs-example.yaml"
        example.write_text(body)
        command = [sys.executable, "-m", "sagelaunch", "validate", str(example)]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"{where}: exit {result.returncode}\n{output}"

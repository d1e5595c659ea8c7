"""Every `sagelaunch init` template and example config under `sagelaunch local`, run as a new
user runs them: exit code, wall seconds and, when it did not train, what it said.

Templates are written by `sagelaunch init NAME` into a scratch folder (xgboost-script gets the
CSV files its local.inputs name); the example configs are copied there with the demo data their
local.inputs name (`make demo`'s tokens and CSV files). Exit 2 is a refusal before anything
starts (a library or container this machine lacks); any other non-zero exit is a failure. The
suite runs only the entry points' starts and one template end to end
(tests/local/test_templates_local.py): all of them take minutes.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.conftest import EXAMPLES
from tests.local.conftest import clean_env
from tests.local.data import write_dataset
from tests.local.tokens import write_tokens

TIMEOUT_S = 300


def run() -> dict:
    from sagelaunch.commands.init import templates

    with tempfile.TemporaryDirectory(prefix="bench-templates-") as tmp:
        work = Path(tmp)
        examples = _examples(work)
        runs = {f"template:{name}": _template(work, name) for name in templates()}
        runs |= {f"config:{path.stem}": _local(path) for path in examples}
    exits = [r["exit"] for r in runs.values()]
    return {
        "runs": runs,
        "trained": exits.count(0),
        "refused": exits.count(2),
        "failed": sum(1 for code in exits if code not in (0, 2)),
        "total_s": round(sum(r["seconds"] for r in runs.values()), 1),
    }


def _template(work: Path, name: str) -> dict:
    folder = work / "templates" / name
    folder.mkdir(parents=True)
    config = folder / f"{name}.yaml"
    command = [sys.executable, "-m", "sagelaunch", "init", name, "--out", str(config)]
    subprocess.run(command, check=True, capture_output=True, env=clean_env())
    write_dataset(folder / "data")  # xgboost-script's local.inputs
    return _local(config)


def _examples(work: Path) -> list[Path]:
    copy = work / "launch_configs"
    shutil.copytree(EXAMPLES, copy)
    write_tokens(work / ".sagelaunch" / "demo-tokens")  # ../.sagelaunch/ as in the repo
    write_dataset(work / ".sagelaunch" / "demo-data")
    return sorted(copy.glob("*.yaml"))


def _local(config: Path) -> dict:
    command = [sys.executable, "-m", "sagelaunch", "local", str(config)]
    workdir = ["--workdir", str(config.parent / "runs" / config.stem)]
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [*command, *workdir],
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            cwd=config.parent,
            env=clean_env(),
        )
        code, output = done.returncode, done.stderr
    except subprocess.TimeoutExpired:
        code, output = -1, f"error: timed out after {TIMEOUT_S} s"
    seconds = round(time.perf_counter() - start, 1)
    said = [line for line in output.splitlines() if line.startswith("error:")]
    print(f"{config.stem}: exit {code} in {seconds} s", file=sys.stderr, flush=True)
    return {"exit": code, "seconds": seconds, "says": said[0] if said and code else None}

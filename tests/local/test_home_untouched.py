"""A local run writes nothing in the user's home: each host's HOME, and the cache and settings
folders libraries derive from it (XDG_*, KERAS_HOME, MPLCONFIGDIR), are in the run folder, with
a sandbox or without one. The home is checksummed before and after a run whose script writes
where libraries write their caches (matplotlib's cache and config folders, Keras's keras.json,
`~/.cache/...`)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.local.conftest import clean_env
from tests.local.in_process import run_local_in_env

SCRIPT = """\
import json, os
from pathlib import Path

import matplotlib  # its cache and config folders, made on first use as a plot would

folders = {"cache": matplotlib.get_cachedir(), "config": matplotlib.get_configdir()}
keras = Path(os.environ["KERAS_HOME"])  # what Keras writes on import: keras.json
keras.mkdir(parents=True, exist_ok=True)
(keras / "keras.json").write_text("{}")
for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
    Path(os.environ[name], "job").mkdir(parents=True, exist_ok=True)
    Path(os.environ[name], "job", "written").write_text(name)
Path.home().joinpath(".cache", "torch").mkdir(parents=True, exist_ok=True)
Path.home().joinpath(".cache", "torch", "hub.txt").write_text("~ itself")
folders["home"] = str(Path.home())
Path(os.environ["SM_MODEL_DIR"], "folders.json").write_text(json.dumps(folders))
print("FOLDERS", json.dumps(folders))
"""


def checksums(folder: Path) -> dict[str, str]:
    """Every entry under ``folder``: a file's sha256, a folder's "dir"."""
    return {
        str(path.relative_to(folder)): "dir"
        if path.is_dir()
        else hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
    }


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["off", "auto"])
def test_a_local_run_leaves_the_home_folder_byte_identical(
    tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    (home / ".config" / "mine.ini").write_text("a user's own file\n")
    code = tmp_path / "code"
    code.mkdir()
    (code / "train.py").write_text(SCRIPT)
    config = tmp_path / "job.yaml"
    config.write_text(
        json.dumps(
            {
                "name": "home-test",
                "framework": "pytorch",
                "framework_version": "2.2.0",
                "entry_point": "train.py",
                "source_dir": "code",
                "compute": {"instance_type": "ml.c5.xlarge", "instance_count": 1},
                "local": {"sandbox": mode, "software": "machine"},
            }
        )
    )
    before = checksums(home)
    env = clean_env(HOME=str(home))
    for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "MPLCONFIGDIR"):
        env.pop(name, None)  # as in a user's shell: the home's defaults
    run = tmp_path / "run"
    args = ("--workdir", str(run), "--keep", "-o", "json")
    result = run_local_in_env(monkeypatch, config, *args, env=env)  # its plan warmed in its HOME
    assert result.returncode == 0, result.stderr[-3000:]
    assert checksums(home) == before
    printed = result.stdout + result.stderr
    folders = json.loads(printed.split("FOLDERS ", 1)[1].splitlines()[0])
    private = run / ".sandbox" / "algo-1" / "home"  # the host's HOME, kept (--keep)
    assert folders == {
        "cache": str(private / ".config" / "matplotlib"),  # MPLCONFIGDIR holds both
        "config": str(private / ".config" / "matplotlib"),
        "home": str(private),
    }
    written = {str(path.relative_to(private)) for path in private.rglob("*") if path.is_file()}
    assert {".cache/job/written", ".config/job/written", ".local/share/job/written"} <= written
    assert {".keras/keras.json", ".cache/torch/hub.txt"} <= written

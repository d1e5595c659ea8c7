"""The hosts' sitecustomize (local/overlay_site.py), in fresh interpreters: the overlays become
site directories after the standard library, and the sitecustomize it hides still runs."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

from sagelaunch.local import overlay_site, software

SHOW = """\
import json, sys, sysconfig, typing
import sitecustomize
print(json.dumps({
    "path": sys.path,
    "typing": typing.__file__,
    "from_pth": __import__("from_pth").WHERE,
    "chained": getattr(sitecustomize, "CHAINED", None),
}))
"""


def _run(pythonpath: list[str], overlays: list[str]) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONSTARTUP"}}
    env["PYTHONPATH"] = os.pathsep.join(pythonpath)
    env[overlay_site.VARIABLE] = os.pathsep.join(overlays)
    done = subprocess.run(
        [sys.executable, "-c", SHOW], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_overlays_go_after_the_standard_library_with_their_pth_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bootstrap = str(software.site_bootstrap())
    first, second = tmp_path / ".sagelaunch" / "envs" / "a", tmp_path / "elsewhere" / "b"
    for folder in (first, second):
        folder.mkdir(parents=True)
    (first / "typing.py").write_text("raise ImportError('typing backport imported')\n")
    (tmp_path / "from_pth").mkdir()
    (tmp_path / "from_pth" / "from_pth.py").write_text("WHERE = 'pth'\n")
    (second / "extra.pth").write_text(f"{tmp_path / 'from_pth'}\n")
    (tmp_path / "machine").mkdir()  # a sitecustomize of the machine's, further on the path
    (tmp_path / "machine" / "sitecustomize.py").write_text("CHAINED = 'machine'\n")

    shown = _run([bootstrap, str(tmp_path / "machine")], [str(first), str(second)])

    path = shown["path"]
    assert isinstance(path, list)
    stdlib = sysconfig.get_paths()["stdlib"]
    venv_site = sysconfig.get_paths()["purelib"]
    assert path.index(stdlib) < path.index(str(first)) < path.index(str(second))
    assert path.index(str(second)) < path.index(venv_site)  # ahead of the venv's packages
    assert path.index(venv_site) < path.index(str(tmp_path / "from_pth"))  # .pth: appended
    assert shown["typing"] == os.path.join(stdlib, "typing.py")
    assert shown["from_pth"] == "pth" and shown["chained"] == "machine"


def test_the_bootstrap_is_one_copy_of_overlay_site_with_its_bytecode(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = software.site_bootstrap()
    script = folder / "sitecustomize.py"
    assert folder == (tmp_path / software.ENVS_DIR).resolve()
    assert script.read_text() == Path(overlay_site.__file__).read_text()
    assert os.path.isfile(importlib.util.cache_from_source(str(script)))
    assert software.site_bootstrap() == folder and not list(folder.glob("*.tmp"))


def test_on_path_names_the_bootstrap_and_the_overlays_then_restores(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", "/users/own")
    monkeypatch.delenv(overlay_site.VARIABLE, raising=False)
    overlays = [tmp_path / "one", tmp_path / "two"]
    with software.on_path(overlays):
        bootstrap = str((tmp_path / software.ENVS_DIR).resolve())
        assert os.environ["PYTHONPATH"] == os.pathsep.join([bootstrap, "/users/own"])
        assert os.environ[overlay_site.VARIABLE] == os.pathsep.join(map(str, overlays))
    assert os.environ["PYTHONPATH"] == "/users/own"
    assert overlay_site.VARIABLE not in os.environ

"""The package's file list, read from setuptools without building: every file of the source
folders ships (tests/packaging/shipped.py), whatever package or data folder it is in.

Cheap (setuptools reads pyproject.toml and setup.py; nothing is written), so a module or data
file that a built wheel would leave out fails the fast tests too; test_wheel.py builds one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import REPO
from tests.packaging.shipped import checkout_files, expected_in_wheel

# setuptools' own answer to "what would build_py put in the wheel", in a fresh process (setuptools
# patches distutils on import), from the repo root (package-dir paths are relative to it).
BUILD_PY_OUTPUTS = """
import json, os
from distutils.core import run_setup
dist = run_setup("setup.py", stop_after="config")
build_py = dist.get_command_obj("build_py")
build_py.ensure_finalized()
outputs = build_py.get_output_mapping()  # build/lib/... -> its source
print(json.dumps([os.path.relpath(out, build_py.build_lib) for out in outputs]))
"""


def test_setuptools_ships_every_file_of_the_package_folders():
    done = subprocess.run(
        [sys.executable, "-c", BUILD_PY_OUTPUTS],
        cwd=REPO, capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )  # fmt: skip
    shipped = {path.replace(os.sep, "/") for path in json.loads(done.stdout.splitlines()[-1])}
    expected = expected_in_wheel(checkout_files(REPO))
    assert sorted(expected - shipped) == [], "left out of the wheel"
    assert sorted(shipped - expected) == [], "shipped, but no file of the checkout"

"""A full disk under the run folder: the host's output still shows, the log's end is said once,
and the run ends in one clear error naming the file and the folder (exit 1), its files so far
kept, the user's files untouched. The disk is a 3 MB tmpfs in a mount namespace of the test's own
(``unshare``), so nothing of the machine fills up."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sagelaunch.local import sandbox
from tests.local.conftest import checksums, clean_env, local_command, pytorch_config

# Fills the model folder, then prints more than the disk has left for the log.
FILL = """\
import os
try:
    with open(os.path.join(os.environ["SM_MODEL_DIR"], "big.bin"), "wb") as out:
        while True:
            out.write(b"x" * 262144)
except OSError as error:
    print("model write stopped:", error.strerror, flush=True)
for i in range(5000):
    print("line", i, "x" * 200, flush=True)
print("script done", flush=True)
"""
MOUNT = 'mount -t tmpfs -o size=3m tmpfs "$1" && shift && exec "$@"'


def _can_mount_a_tmpfs() -> bool:
    unshare = shutil.which("unshare")
    if unshare is None:
        return False
    probe = [unshare, "--user", "--map-root-user", "--mount", "sh", "-c", MOUNT, "sh", "/mnt"]
    return subprocess.run([*probe, "true"], capture_output=True).returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not sandbox.choose("auto").isolated, reason="no user namespaces here")
@pytest.mark.skipif(not _can_mount_a_tmpfs(), reason="no tmpfs in a user namespace here")
def test_a_full_disk_is_one_clear_error_and_keeps_what_was_written(write_config, tmp_path):
    config = write_config(
        pytorch_config(
            entry_point="fill.py",
            source_dir="code",
            distribution={"strategy": "none"},
            compute={"instance_type": "ml.c5.xlarge", "instance_count": 1},
        ),
        code={"fill.py": FILL},
    )
    user_files = checksums(tmp_path / "code")
    machine_opt_ml = Path("/opt/ml").exists()
    small = tmp_path / "small"
    small.mkdir()
    run = small / "run"
    command = local_command(config, "--workdir", str(run))
    unshare = ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", MOUNT, "sh"]
    done = subprocess.run(
        [*unshare, str(small), *command],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
        env=clean_env(),
    )
    assert done.returncode == 1, done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: local run failed: No space left on device writing {run / 'model.tar.gz'}"
    ]
    assert f"what the run wrote so far is kept in {run}" in done.stderr
    said = [line for line in done.stderr.splitlines() if "log stops here" in line]
    assert len(said) == 1 and "algo-1.log: No space left on device" in said[0]
    assert "[algo-1] script done" in done.stderr  # its output still showed to the end
    assert "Traceback" not in done.stderr
    assert checksums(tmp_path / "code") == user_files
    assert Path("/opt/ml").exists() == machine_opt_ml

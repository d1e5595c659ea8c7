"""`sagelaunch local` without the job's framework installed prints the install command, exit 2."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.conftest import EXAMPLES, REPO

# A fresh interpreter in which `torch`, `xgboost` and `tensorflow` cannot be found (a plain
# install).
WITHOUT = textwrap.dedent("""
    import sys
    class Missing:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {"torch", "xgboost", "tensorflow"}:
                raise ModuleNotFoundError(name)
            return None
    sys.meta_path.insert(0, Missing())
    sys.argv = ["sagelaunch", *sys.argv[1:]]
    from sagelaunch.app import main
    main()
""")


@pytest.mark.parametrize(
    ("config", "module", "extra"),
    [
        ("cpu-local.yaml", "torch", "local"),
        ("xgboost-local.yaml", "xgboost", "local"),
        ("tf-mwms-local.yaml", "tensorflow", "tensorflow"),
    ],
)
def test_local_without_the_framework_prints_the_install_command(tmp_path, config, module, extra):
    proc = subprocess.run(
        [sys.executable, "-c", WITHOUT, "local", str(EXAMPLES / config)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert f"with {module}, which is not installed" in proc.stderr
    # The extra from this checkout (what this sagelaunch was installed from), not by name
    # from the public index; and this environment's pip.
    assert f"-m pip install -e '{REPO}[{extra}]'" in proc.stderr and "make setup" in proc.stderr
    assert f"pip install 'sagelaunch[{extra}]'" not in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / ".sagelaunch" / "runs").exists()  # nothing started

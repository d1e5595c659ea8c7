"""TensorFlow `mpi` jobs under `sagelaunch local` (issue 62, item 4): the toolkit's MPI runner
starts any script under mpirun, so only code that imports horovod needs Horovod installed.

Two real CLI runs (no TensorFlow import in the script: a rank that records what mpirun gave it),
plus the scan itself on a folder and on SDK v3's .tar.gz source.
"""

from __future__ import annotations

import importlib.util
import io
import json
import tarfile
from pathlib import Path

import pytest

from sagelaunch.errors import UsageError
from sagelaunch.local import horovod
from tests.local.conftest import run_local

# What an mpi4py script relies on, without mpi4py (not installed here): Open MPI's own variables.
RANK = """
import json, os
from pathlib import Path
seen = {k: v for k, v in os.environ.items() if k.startswith(("OMPI_COMM_WORLD", "SM_CURRENT"))}
out = Path(os.environ["SM_OUTPUT_DATA_DIR"]) / f"rank-{os.environ['OMPI_COMM_WORLD_RANK']}.json"
out.write_text(json.dumps(seen))
"""
HOROVOD = "import os\n\ndef main():\n    import horovod.tensorflow as hvd\n    hvd.init()\n"
NO_HOROVOD = importlib.util.find_spec("horovod") is None


def _tf_mpi(write_config, code: dict[str, str]) -> Path:
    return write_config(
        {
            "name": "tf-mpi",
            "framework": "tensorflow",
            "entry_point": "rank.py",
            "source_dir": "code",
            "framework_version": "2.19.0",
            "compute": {"instance_type": "ml.c5.xlarge", "instance_count": 2},
            "distribution": {"strategy": "mpi", "processes_per_host": 1},
            "hyperparameters": {"epochs": 1},
        },
        code=code,
    )


@pytest.mark.slow
def test_a_script_without_horovod_runs_under_mpirun_on_two_hosts(write_config):
    done = run_local(_tf_mpi(write_config, {"rank.py": RANK}), "--keep", "--output", "json")
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert result["launcher"] == "mpirun"
    workdir = Path(result["workdir"])
    for rank in range(2):
        host = f"algo-{rank + 1}"
        seen = json.loads((workdir / host / "output" / "data" / f"rank-{rank}.json").read_text())
        assert seen["OMPI_COMM_WORLD_SIZE"] == "2" and seen["SM_CURRENT_HOST"] == host


@pytest.mark.skipif(not NO_HOROVOD, reason="Horovod is installed here: the job runs")
def test_a_script_importing_horovod_is_refused_before_training(write_config, tmp_path):
    config = _tf_mpi(write_config, {"rank.py": RANK, "lib/hvd_setup.py": HOROVOD})
    done = run_local(config, "--workdir", str(tmp_path / "run"))
    assert done.returncode == 2, done.stderr[-3000:]
    said = " ".join(done.stderr.split())
    assert "lib/hvd_setup.py imports horovod, which is not installed here" in said
    assert "install horovod built against the TensorFlow this job runs" in said
    assert "multi_worker_mirrored" not in said  # it cannot run an MPI script
    assert not (tmp_path / "run").exists()


def test_the_scan_names_the_importing_files(tmp_path):
    code = tmp_path / "code"
    (code / "pkg").mkdir(parents=True)
    (code / "train.py").write_text("import os\nimport horovodish\n")
    assert horovod.importers(code) == []
    (code / "pkg" / "a.py").write_text("from horovod.tensorflow import keras\n")
    (code / "b.py").write_text("if True:\n    import horovod\n")
    assert horovod.importers(code) == ["b.py", "pkg/a.py"]


def test_the_scan_reads_a_tar_gz_source(tmp_path):
    archive = tmp_path / "code.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name, text in {
            "train.py": "import horovod.keras as hvd\n",
            "x.txt": "import horovod",
        }.items():
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            tar.addfile(info, io.BytesIO(text.encode()))
    assert horovod.importers(archive) == ["train.py"]
    (tmp_path / "broken.tar.gz").write_text("not gzip")
    assert horovod.importers(tmp_path / "broken.tar.gz") == []


def test_only_tensorflow_mpi_jobs_are_checked(tmp_path, monkeypatch):
    (tmp_path / "train.py").write_text("import horovod\n")
    monkeypatch.setattr(horovod, "installed", lambda: False)
    horovod.check("pytorch", True, tmp_path)  # PyTorch scripts may guard the import
    horovod.check("tensorflow", False, tmp_path)  # not a strategy that runs Horovod
    with pytest.raises(UsageError, match=r"train\.py imports horovod") as refused:
        horovod.check("tensorflow", True, tmp_path)
    assert refused.value.hint and "mpi4py" in refused.value.hint
    monkeypatch.setattr(horovod, "installed", lambda: True)
    horovod.check("tensorflow", True, tmp_path)

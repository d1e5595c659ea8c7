"""Write the bytecode of the modules a job's processes import, by importing them once with
bytecode writing on: `make` runs this before `test`, `demo` and `bench`.

uv installs no ``.pyc`` files, and inside `sagelaunch local`'s sandbox the venv is read-only, so
every job process there would compile torch, TensorFlow and DeepSpeed from source again (about
2.7 s more CPU per ``import torch``; the suite starts hundreds of such processes). Importing them
here compiles exactly what they load (~5,400 modules, ~15 s of CPU on 2 cores), where compiling
the whole venv (~20,000 files: moto, pandas, the packages' own tests) took 50 s. Whatever else the
tests import outside a sandbox is written as they import it (`make test` lets Python write it).
"""

from __future__ import annotations

import importlib
import warnings

MODULES = (
    # A PyTorch job: torchrun's agent, the entry point's layouts, DeepSpeed.
    "torch",
    "torch.distributed.run",
    "torch.distributed.checkpoint.state_dict",
    "torch.distributed.fsdp",
    "torch.distributed.optim",
    "torch.distributed.pipelining",
    "torch.distributed.tensor.parallel",
    "torch.distributed.rpc",
    "deepspeed",
    # XGBoost and TensorFlow jobs.
    "xgboost",
    "tensorflow",
    "keras",
    # The CLI, and the SDK its plan path imports.
    "sagelaunch.app",
    "sagelaunch.sdk.runtime",
    "sagemaker.estimator",
    "sagemaker.pytorch",
    "sagemaker.tensorflow",
    "sagemaker.xgboost",
    "boto3",
)


def main() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in MODULES:
            importlib.import_module(name)


if __name__ == "__main__":
    main()

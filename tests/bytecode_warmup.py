"""Write the bytecode of the modules a job's processes import, by importing them once with
bytecode writing on: `make` runs this before `test`, `demo` and `bench`.

uv installs no ``.pyc`` files, and with PYTHONDONTWRITEBYTECODE=1 none is ever written, so every
job process would compile torch, TensorFlow and DeepSpeed from source again (about 2.7 s more CPU
per ``import torch``; the suite starts hundreds of such processes, most outside `sagelaunch local`,
which compiles what its own jobs import: local/bytecode.py). Importing them
here compiles exactly what they load: ~5,900 modules in 16 s on 2 cores (three groups side by
side), where compiling the whole venv (~20,000 files: moto, pandas, the packages' own tests) took
62 s. Whatever else the tests import outside a sandbox is written as they import it (`make test`
lets Python write it).
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

# Imported in one process per group, the groups side by side (one core each is most of it).
GROUPS = {
    # A PyTorch job: torchrun's agent, the entry point's layouts, DeepSpeed; XGBoost.
    "pytorch": (
        "torch",
        "torch.distributed.run",
        "torch.distributed.checkpoint.state_dict",
        "torch.distributed.fsdp",
        "torch.distributed.optim",
        "torch.distributed.pipelining",
        "torch.distributed.tensor.parallel",
        "torch.distributed.rpc",
        "deepspeed",
        "xgboost",
    ),
    "tensorflow": ("tensorflow", "keras"),
    # The CLI, and the SDK as its plan path imports it ("module:function" is called): offline,
    # the same modules, and no wait on the instance-metadata endpoint a bare import would probe.
    "cli": ("sagelaunch.app", "sagelaunch.sdk.runtime:sagemaker", "boto3"),
}


def warm(group: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for entry in GROUPS[group]:
            module, _, function = entry.partition(":")
            imported = importlib.import_module(module)
            if function:
                getattr(imported, function)()


def main(args: list[str]) -> int:
    if args:
        warm(args[0])
        return 0
    runs = [subprocess.Popen([sys.executable, "-m", __spec__.name, group]) for group in GROUPS]
    failed = [group for group, run in zip(GROUPS, runs, strict=True) if run.wait() != 0]
    if failed:
        print(f"bytecode warm-up failed for: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

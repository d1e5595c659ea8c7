"""What a script launched by SDK v3's `ModelTrainer` receives, for configs with `sdk: v3`.

v3 writes each hyperparameter with `safe_serialize` (strings as they are, anything else
`json.dumps`: True becomes "true"), and in the container its own driver, not the training
toolkit, starts the script: `basic_script_driver.py` passes `hyperparameters_to_cli_args`, that is
`--KEY safe_serialize(safe_deserialize(VALUE))` in the file's order, and `scripts/environment.py`
adds SM_SOURCE_DIR and SM_ENTRY_SCRIPT (sagemaker-python-sdk, sagemaker/modules/train/
container_drivers/common/utils.py and model_trainer.py; v3's sagemaker-train has the same files).
So `--flag true`, where SDK v2's toolkit passes `--flag True`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sagelaunch.hyperparameters import as_text, decode


def user_args(user_hyperparameters: Mapping[str, Any]) -> list[str]:
    """The script's command line as v3's driver builds it from the values ModelTrainer sent."""
    args: list[str] = []
    for key, value in user_hyperparameters.items():
        args += [f"--{key}", as_text(decode(as_text(value)))]
    return args


def add_environment(envs: list[dict[str, str]], code_dirs: list[Path], entry_point: str) -> None:
    """The variables v3's environment script adds about the code (there /opt/ml/input/data/code)."""
    for env, code in zip(envs, code_dirs, strict=True):
        env["SM_SOURCE_DIR"] = str(code)
        env["SM_ENTRY_SCRIPT"] = entry_point

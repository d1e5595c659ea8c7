"""What a script launched by SDK v3's `ModelTrainer` receives, for configs with `sdk: v3`.

v3 writes each hyperparameter with `safe_serialize` (strings as they are, anything else
`json.dumps`: True becomes "true"), and in the container its own driver, not the training
toolkit, starts the script: `basic_script_driver.py` passes `hyperparameters_to_cli_args`, that is
`--KEY safe_serialize(safe_deserialize(VALUE))` in the file's order, and `scripts/environment.py`
adds SM_SOURCE_DIR and SM_ENTRY_SCRIPT (sagemaker-python-sdk, sagemaker/modules/train/
container_drivers/common/utils.py and model_trainer.py; v3's sagemaker-train has the same files).
So `--flag true`, where SDK v2's toolkit passes `--flag True`. ModelTrainer sends only the
config's hyperparameters: none of the v2 TensorFlow estimator's `model_dir` (variant.py plans
without it).
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sagelaunch.hyperparameters import as_text, decode

CODE_CHANNEL = "code"  # ModelTrainer's SM_CODE: the source's channel


def user_args(user_hyperparameters: Mapping[str, Any]) -> list[str]:
    """The script's command line as v3's driver builds it from the values ModelTrainer sent."""
    args: list[str] = []
    for key, value in user_hyperparameters.items():
        args += [f"--{key}", as_text(decode(as_text(value)))]
    return args


def add_environment(envs: list[dict[str, str]], code_dirs: list[Path], entry_point: str) -> None:
    """The variables v3's environment script adds about the code: SM_SOURCE_DIR is the `code`
    channel, /opt/ml/input/data/code in the container (scripts/environment.py
    ``SM_SOURCE_DIR_PATH``), where ModelTrainer puts the source. Each host's channel holds its
    code folder (``code_channel``), and SM_SOURCE_DIR names it as the host's processes see it
    (their SM_INPUT_DIR's data/code: /opt/ml/... in a sandbox, the run tree's path without)."""
    for env, code in zip(envs, code_dirs, strict=True):
        code_channel(code)
        seen = env.get("SM_INPUT_DIR") or str(code.parent / "input")
        env["SM_SOURCE_DIR"] = str(Path(seen) / "data" / CODE_CHANNEL)
        env["SM_ENTRY_SCRIPT"] = entry_point


def code_channel(code: Path) -> Path:
    """The host's `code` channel holding its code folder ``code`` (the tree's ``code``): a
    relative link to it, which resolves at /opt/ml in the sandbox as in the run folder; where the
    run already filled the channel (network isolation's bundle), the code is copied beside."""
    channel = code.parent / "input" / "data" / CODE_CHANNEL
    if channel.is_symlink() or not code.is_dir():
        return channel
    if channel.is_dir():
        shutil.copytree(code, channel, symlinks=True, dirs_exist_ok=True)
        return channel
    channel.parent.mkdir(parents=True, exist_ok=True)
    channel.symlink_to(Path("..", "..", code.name), target_is_directory=True)
    return channel

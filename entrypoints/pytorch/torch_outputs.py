"""What every PyTorch run leaves for SageMaker, the same from the training loop and from the
parameter server: the metric lines of the log, model.pt in SM_MODEL_DIR and metrics.json in
SM_OUTPUT_DATA_DIR."""

from __future__ import annotations

import dataclasses
from typing import Any

import torch

import shared_outputs
import smenv
import torch_ckpt
import torch_config

MODEL_FILE = "model.pt"


def metric_line(
    step: int, loss: float, samples_per_sec: float, tokens_per_sec: float, **extra: object
) -> str:
    """One logged step, as the metric definitions' regexes (CloudWatch, `sagelaunch local`)
    read it: ``step=N train_loss=X samples_per_sec=Y tokens_per_sec=Z`` then ``extra``."""
    tail = "".join(f" {key}={value}" for key, value in extra.items())
    return (
        f"step={step} train_loss={loss:.6f} samples_per_sec={samples_per_sec:.2f} "
        f"tokens_per_sec={tokens_per_sec:.1f}{tail}"
    )


def hyperparameters(cfg: torch_config.TrainConfig) -> dict[str, Any]:
    """The run's settings as metrics.json records them (JSON values; unset ones left out)."""
    return {
        k: v if isinstance(v, int | float | str | dict) else str(v)
        for k, v in dataclasses.asdict(cfg).items()
        if v is not None
    }


def save(
    env: smenv.SageMakerEnv,
    cfg: torch_config.TrainConfig,
    state: dict[str, torch.Tensor],
    metrics: dict[str, Any],
) -> None:
    """The whole model and the run's metrics (its hyperparameters added), each written whole."""
    torch_ckpt.atomic_save(state, env.model_dir / MODEL_FILE)
    shared_outputs.write_metrics(
        env.output_data_dir, {**metrics, "hyperparameters": hyperparameters(cfg)}
    )

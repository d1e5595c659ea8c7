"""What every PyTorch run leaves for SageMaker: model.pt in SM_MODEL_DIR and metrics.json in
SM_OUTPUT_DATA_DIR, written the same way by the training loop and by the parameter server."""

from __future__ import annotations

import dataclasses
from typing import Any

import torch

import shared_outputs
import smenv
import torch_ckpt
import torch_config

MODEL_FILE = "model.pt"


def hyperparameters(cfg: torch_config.TrainConfig) -> dict[str, Any]:
    """The run's settings as metrics.json records them (JSON values; unset ones left out)."""
    return {
        k: v if isinstance(v, int | float | str) else str(v)
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

"""The metric definitions a job gets by default: patterns matching our entry points' logs."""

from __future__ import annotations

from typing import Any

# Our entry points print `step=N train_loss=X samples_per_sec=Y tokens_per_sec=Z` and XGBoost's
# eval lines; CloudWatch shows tabs as #011, so the XGBoost patterns do not depend on them.
_NUMBER = r"([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"
DEFAULT_METRICS = {
    "train_pytorch.py": [
        {"Name": "train:loss", "Regex": f"train_loss={_NUMBER}"},
        {"Name": "train:samples_per_sec", "Regex": f"samples_per_sec={_NUMBER}"},
        {"Name": "train:tokens_per_sec", "Regex": f"tokens_per_sec={_NUMBER}"},
    ],
    "train_tensorflow.py": [
        {"Name": "train:loss", "Regex": f"train_loss={_NUMBER}"},
        {"Name": "train:samples_per_sec", "Regex": f"samples_per_sec={_NUMBER}"},
    ],
    "train_xgboost.py": [
        {"Name": f"{channel}:{metric}", "Regex": rf"{channel}-{metric}:{_NUMBER}"}
        for channel in ("train", "validation")
        for metric in ("rmse", "logloss", "auc", "error", "mae")
    ],
}


def metrics_json_values(record: dict[str, Any]) -> dict[str, float]:
    """An entry point's ``metrics.json`` under the metric names its logs are scraped by, so a
    sweep's objective reads the same locally as from FinalMetricDataList on SageMaker:
    ``final_train_loss`` (PyTorch) is ``train:loss``; ``metrics: {validation-rmse: x}``
    (XGBoost) is ``validation:rmse``. Other numeric top-level keys keep their own names."""
    values: dict[str, float] = {}
    for key, value in record.items():
        if not _is_number(value):
            continue
        values[key] = float(value)
        channel, _, metric = key.removeprefix("final_").partition("_")
        if key.startswith("final_") and metric:
            values[f"{channel}:{metric}"] = float(value)
    nested = record.get("metrics")
    for key, value in (nested if isinstance(nested, dict) else {}).items():
        channel, _, metric = str(key).partition("-")
        if _is_number(value) and metric:
            values[f"{channel}:{metric}"] = float(value)
    return values


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)

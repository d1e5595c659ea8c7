"""The metric definitions a job gets by default: patterns matching our entry points' logs."""

from __future__ import annotations

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

"""Training job names: timestamped like the SDK's, or derived from an idempotency key."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from typing import Any


def timestamped(base: str, now: datetime | None = None) -> str:
    """``base-YYYY-MM-DD-HH-MM-SS-mmm``, the SDK's `name_from_base` format (24-char suffix)."""
    now = now or datetime.now(timezone.utc)
    return f"{base}-{now:%Y-%m-%d-%H-%M-%S}-{now.microsecond // 1000:03d}"


def idempotent(base: str, key: str, request: dict[str, Any]) -> str:
    """Same key and same request -> same name; the 23-character digest fits the 24-char suffix.

    The request is hashed without its volatile name fields, so a retried CI step maps to the job
    it already created, while a changed config under the same key gets a new job.
    """
    stable = {k: v for k, v in request.items() if k != "TrainingJobName"}
    hyperparameters = dict(stable.get("HyperParameters", {}))
    hyperparameters.pop("sagemaker_job_name", None)
    stable["HyperParameters"] = hyperparameters
    payload = json.dumps({"key": key, "request": stable}, sort_keys=True, default=str)
    return f"{base}-{hashlib.sha256(payload.encode()).hexdigest()[:23]}"

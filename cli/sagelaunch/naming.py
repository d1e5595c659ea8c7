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


def with_job_name(request: dict[str, Any], name: str) -> dict[str, Any]:
    """``request`` under another job name — equal to planning again with ``--job-name name``.

    The SDK writes the name into exactly two fields: TrainingJobName and, for framework
    estimators, the JSON-encoded `sagemaker_job_name` hyperparameter (checked against every
    golden request and by tests/aws, which compare with `plan --job-name`). Renaming here spares a
    second SDK run and keeps a saved plan's request otherwise byte-for-byte as reviewed."""
    renamed = {**request, "TrainingJobName": name}
    hyperparameters = request.get("HyperParameters")
    if hyperparameters and "sagemaker_job_name" in hyperparameters:
        renamed["HyperParameters"] = {**hyperparameters, "sagemaker_job_name": json.dumps(name)}
    return renamed

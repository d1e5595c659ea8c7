"""Training job names, in one place: SageMaker's rules, the SDK's timestamped names (with the base
shortened exactly as `sagemaker.utils.name_from_base` does), exact names, and names derived from
an idempotency key."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timezone
from typing import Any

from sagelaunch.hyperparameters import decode, encode

# CreateTrainingJob's TrainingJobName: 1-63 characters matching this pattern (the API model).
JOB_NAME_PATTERN = r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$"
MAX_JOB_NAME = 63
# The SDK's timestamp, "YYYY-MM-DD-HH-MM-SS-mmm": 23 characters, plus the joining "-".
TIMESTAMP_LEN = 23
# An idempotent name's digest: 23 hex characters, the same length as the timestamp it replaces.
DIGEST_LEN = 23
_TIMESTAMP_SUFFIX = re.compile(r"-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}-\d{3}$")


def is_valid(name: str) -> bool:
    return len(name) <= MAX_JOB_NAME and re.match(JOB_NAME_PATTERN, name) is not None


def trimmed_base(base: str) -> str:
    """The part of ``base`` that fits before a suffix, as `name_from_base` keeps it."""
    return base[: MAX_JOB_NAME - TIMESTAMP_LEN - 1]


def is_truncated(base: str) -> bool:
    return trimmed_base(base) != base


def timestamped(base: str, now: datetime | None = None) -> str:
    """``base-YYYY-MM-DD-HH-MM-SS-mmm``, exactly `sagemaker.utils.name_from_base(base)`."""
    now = now or datetime.now(timezone.utc)
    stamp = f"{now:%Y-%m-%d-%H-%M-%S}-{now.microsecond // 1000:03d}"
    return f"{trimmed_base(base)}-{stamp}"


def job_name_for(config: Any) -> str:
    """A launch config's job name: its exact ``job_name``, else ``name`` + timestamp."""
    return str(config.job_name) if config.job_name else timestamped(config.name)


def base_of(job_name: str) -> str:
    """A planned name without its timestamp: the base an idempotent name is built on."""
    return trimmed_base(_TIMESTAMP_SUFFIX.sub("", job_name))


def idempotent(base: str, key: str, request: dict[str, Any]) -> str:
    """Same key and same request -> same name; the digest takes the timestamp's place.

    The request is hashed without its volatile name fields, so a retried CI step maps to the job
    it already created, while a changed config under the same key gets a new job.
    """
    stable = {k: v for k, v in request.items() if k != "TrainingJobName"}
    hyperparameters = dict(stable.get("HyperParameters", {}))
    hyperparameters.pop("sagemaker_job_name", None)
    stable["HyperParameters"] = hyperparameters
    payload = json.dumps({"key": key, "request": stable}, sort_keys=True, default=str)
    return f"{trimmed_base(base)}-{hashlib.sha256(payload.encode()).hexdigest()[:DIGEST_LEN]}"


def with_job_name(request: dict[str, Any], name: str) -> dict[str, Any]:
    """``request`` under another job name — equal to planning again with ``--job-name name``.

    The SDK writes the name into exactly two fields: TrainingJobName and, for framework
    estimators, the JSON-encoded `sagemaker_job_name` hyperparameter (checked against every
    golden request and by tests/aws, which compare with `plan --job-name`). Renaming here spares a
    second SDK run and keeps a saved plan's request otherwise byte-for-byte as reviewed."""
    renamed = {**request, "TrainingJobName": name}
    hyperparameters = request.get("HyperParameters")
    if hyperparameters and "sagemaker_job_name" in hyperparameters:
        renamed["HyperParameters"] = {**hyperparameters, "sagemaker_job_name": encode(name)}
        _rename_model_dir(renamed["HyperParameters"], request.get("TrainingJobName"), name)
    return renamed


def _rename_model_dir(hyperparameters: dict[str, Any], old: str | None, new: str) -> None:
    """The TensorFlow estimator's default model_dir is OUTPUT_PATH/JOB_NAME/model: a third place
    the SDK writes the name (a model_dir the config sets is left as it is)."""
    raw = hyperparameters.get("model_dir")
    suffix = f"/{old}/model"
    if old and raw:
        value = decode(raw)
        if isinstance(value, str) and value.startswith("s3://") and value.endswith(suffix):
            hyperparameters["model_dir"] = encode(value[: -len(suffix)] + f"/{new}/model")


# --- tuning jobs ---------------------------------------------------------------------------------
# HyperParameterTuningJobName: 1-32 characters. The SDK's tuner names a job
# `name_from_base(base, max_length=32, short=True)`: the base cut to fit, then "-yymmdd-HHMM".
MAX_TUNING_JOB_NAME = 32
SHORT_TIMESTAMP_LEN = 11
TUNING_DIGEST_LEN = 16


def tuning_job_name(base: str, now: datetime | None = None) -> str:
    """``base-yymmdd-HHMM`` within 32 characters, as the SDK's tuner names its jobs."""
    now = now or datetime.now(timezone.utc)
    return f"{base[: MAX_TUNING_JOB_NAME - SHORT_TIMESTAMP_LEN - 1]}-{now:%y%m%d-%H%M}"


def tuning_job_name_for(config: Any, job_name: str | None = None) -> str:
    """A config's tuning job name: ``tuning.base_name`` (else ``name``) + the short timestamp of
    the plan's training job name when it has one (one plan, one moment), else of now."""
    return tuning_job_name(config.tuning.base_name or config.name, timestamp_of(job_name or ""))


def timestamp_of(job_name: str) -> datetime | None:
    """The time in a timestamped job name (``NAME-YYYY-MM-DD-HH-MM-SS-mmm``), else None."""
    match = _TIMESTAMP_SUFFIX.search(job_name)
    if not match:
        return None
    year, month, day, hour, minute, second, milli = (
        int(p) for p in match.group(0).strip("-").split("-")
    )
    return datetime(year, month, day, hour, minute, second, milli * 1000, tzinfo=timezone.utc)


def tuning_base_of(name: str) -> str:
    """A planned tuning job name without its short timestamp."""
    return re.sub(r"-\d{6}-\d{4}$", "", name)


def idempotent_tuning(base: str, key: str, request: dict[str, Any]) -> str:
    """A tuning job's name for ``key``: same key and same request, same name (see `idempotent`)."""
    stable = {k: v for k, v in request.items() if k != "HyperParameterTuningJobName"}
    definition = dict(stable.get("TrainingJobDefinition", {}))
    static = dict(definition.get("StaticHyperParameters", {}))
    static.pop("sagemaker_job_name", None)
    stable["TrainingJobDefinition"] = {**definition, "StaticHyperParameters": static}
    payload = json.dumps({"key": key, "request": stable}, sort_keys=True, default=str)
    digest = hashlib.sha256(payload.encode()).hexdigest()[:TUNING_DIGEST_LEN]
    return f"{base[: MAX_TUNING_JOB_NAME - TUNING_DIGEST_LEN - 1]}-{digest}"


def with_tuning_job_name(request: dict[str, Any], name: str) -> dict[str, Any]:
    """A tuning request under another name: the SDK writes it in HyperParameterTuningJobName and,
    for framework estimators, the JSON-encoded `sagemaker_job_name` static hyperparameter."""
    renamed = {**request, "HyperParameterTuningJobName": name}
    definition = request.get("TrainingJobDefinition") or {}
    static = definition.get("StaticHyperParameters") or {}
    if "sagemaker_job_name" in static:
        static = {**static, "sagemaker_job_name": encode(name)}
        renamed["TrainingJobDefinition"] = {**definition, "StaticHyperParameters": static}
    return renamed

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
_DIGEST_SUFFIX = re.compile(rf"-[0-9a-f]{{{DIGEST_LEN}}}$")


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


def generated_base(job_name: str) -> str | None:
    """The base a generated training job name was made from: name_from_base's timestamp (the
    SDK's and a plan's), or an idempotency key's digest; None for a name given as it is (as
    fit(job_name=...) takes it)."""
    for suffix in (_TIMESTAMP_SUFFIX, _DIGEST_SUFFIX):
        if suffix.search(job_name):
            return suffix.sub("", job_name)
    return None


def idempotent(base: str, key: str, request: dict[str, Any]) -> str:
    """Same key and same request -> same name; the digest takes the timestamp's place.

    The request is hashed without its volatile name fields, so a retried CI step maps to the job
    it already created, while a changed config under the same key gets a new job.
    """
    stable = {k: v for k, v in request.items() if k != "TrainingJobName"}
    hyperparameters = dict(stable.get("HyperParameters", {}))
    hyperparameters.pop("sagemaker_job_name", None)
    _stable_model_dir(hyperparameters, request.get("TrainingJobName"))
    stable["HyperParameters"] = hyperparameters
    payload = json.dumps({"key": key, "request": stable}, sort_keys=True, default=str)
    return f"{trimmed_base(base)}-{hashlib.sha256(payload.encode()).hexdigest()[:DIGEST_LEN]}"


def _stable_model_dir(hyperparameters: dict[str, Any], name: str | None) -> None:
    """TensorFlow's default model_dir, OUTPUT_PATH/JOB/model, names a job (this one, or the
    plan's training job for a tuning job): hashed with JOB in place of that name, as the name
    fields are left out, so that the same request under a new timestamp hashes the same. (A
    request without model_dir hashes as it always did.)"""
    raw = hyperparameters.get("model_dir")
    value = decode(raw) if raw is not None else None
    if not isinstance(value, str) or not value.startswith("s3://") or not value.endswith("/model"):
        return
    parent, _, job = value[: -len("/model")].rpartition("/")
    if job == name or _TIMESTAMP_SUFFIX.search(job) or _SHORT_TIMESTAMP_SUFFIX.search(job):
        hyperparameters["model_dir"] = encode(f"{parent}/JOB/model")


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
        rename_model_dir(renamed["HyperParameters"], request.get("TrainingJobName"), name)
    return renamed


def rename_model_dir(hyperparameters: dict[str, Any], old: str | None, new: str) -> None:
    """The TensorFlow estimator's default model_dir is OUTPUT_PATH/JOB_NAME/model: a third place
    the SDK writes the name (a model_dir the config sets is left as it is)."""
    raw = hyperparameters.get("model_dir")
    if old and raw:
        value = decode(raw)
        if isinstance(value, str):
            moved = moved_model_dir(value, old, new)
            if moved != value:
                hyperparameters["model_dir"] = encode(moved)


def moved_model_dir(value: str, old: str, new: str) -> str:
    """``value`` (a model_dir) under job ``new`` when it is the SDK's S3 default for job ``old``,
    OUTPUT_PATH/old/model; else ``value`` as it is."""
    suffix = f"/{old}/model"
    if value.startswith("s3://") and value.endswith(suffix):
        return value[: -len(suffix)] + f"/{new}/model"
    return value


# --- tuning jobs ---------------------------------------------------------------------------------
# HyperParameterTuningJobName: 1-32 characters matching this pattern (the API model). Without an
# exact name the SDK's tuner names a job `name_from_base(base, max_length=32, short=True)`
# (HyperparameterTuner._prepare_job_name_for_tuning): the base cut to its first 32 - 11 - 1 = 20
# characters, whatever its length, then "-" and the short timestamp "yymmdd-HHMM".
TUNING_JOB_NAME_PATTERN = r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,31}$"
TUNING_BASE_PATTERN = r"^[a-zA-Z0-9](-*[a-zA-Z0-9])*$"  # any length: the SDK cuts it
MAX_TUNING_JOB_NAME = 32
SHORT_TIMESTAMP_LEN = 11
TUNING_BASE_KEPT = MAX_TUNING_JOB_NAME - SHORT_TIMESTAMP_LEN - 1
TUNING_DIGEST_LEN = 16
_SHORT_TIMESTAMP_SUFFIX = re.compile(r"-\d{6}-\d{4}$")
_TUNING_DIGEST_SUFFIX = re.compile(rf"-[0-9a-f]{{{TUNING_DIGEST_LEN}}}$")


def trimmed_tuning_base(base: str) -> str:
    """The part of ``base`` a tuning job name keeps, as the SDK's name_from_base(short=True)."""
    return base[:TUNING_BASE_KEPT]


def tuning_job_name(base: str, now: datetime | None = None) -> str:
    """``base-yymmdd-HHMM`` within 32 characters, as the SDK's tuner names its jobs."""
    now = now or datetime.now(timezone.utc)
    return f"{trimmed_tuning_base(base)}-{now:%y%m%d-%H%M}"


def tuning_base_for(config: Any) -> str:
    """The base a config's tuning job is named from: ``tuning.base_name``, else ``name``."""
    return str(config.tuning.base_name or config.name)


def tuning_job_name_for(config: Any, job_name: str | None = None) -> str:
    """A config's tuning job name: its exact ``tuning.job_name``, else the base (tuning_base_for)
    + the short timestamp of the plan's training job name when it has one (one plan, one
    moment), else of now."""
    if config.tuning.job_name:
        return str(config.tuning.job_name)
    return tuning_job_name(tuning_base_for(config), timestamp_of(job_name or ""))


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
    return _SHORT_TIMESTAMP_SUFFIX.sub("", name)


def generated_tuning_base(name: str) -> str | None:
    """The base a generated tuning job name was made from: the tuner's short timestamp
    (-yymmdd-HHMM), or an idempotency key's digest; None for a name given to fit(job_name=...)."""
    for suffix in (_SHORT_TIMESTAMP_SUFFIX, _TUNING_DIGEST_SUFFIX):
        if suffix.search(name):
            return suffix.sub("", name)
    return None


def idempotent_tuning(base: str, key: str, request: dict[str, Any]) -> str:
    """A tuning job's name for ``key``: same key and same request, same name (see `idempotent`)."""
    stable = {k: v for k, v in request.items() if k != "HyperParameterTuningJobName"}
    definition = dict(stable.get("TrainingJobDefinition", {}))
    static = dict(definition.get("StaticHyperParameters", {}))
    static.pop("sagemaker_job_name", None)
    _stable_model_dir(static, request.get("HyperParameterTuningJobName"))
    stable["TrainingJobDefinition"] = {**definition, "StaticHyperParameters": static}
    payload = json.dumps({"key": key, "request": stable}, sort_keys=True, default=str)
    digest = hashlib.sha256(payload.encode()).hexdigest()[:TUNING_DIGEST_LEN]
    return f"{base[: MAX_TUNING_JOB_NAME - TUNING_DIGEST_LEN - 1]}-{digest}"


def with_tuning_job_name(request: dict[str, Any], name: str) -> dict[str, Any]:
    """A tuning request under another name: the SDK writes it in HyperParameterTuningJobName and,
    for framework estimators, the JSON-encoded `sagemaker_job_name` static hyperparameter (and
    TensorFlow's default model_dir, when it was derived from the tuning job's name: an exact
    tuning.job_name, as fit(job_name=...) does)."""
    old = request.get("HyperParameterTuningJobName")
    renamed = {**request, "HyperParameterTuningJobName": name}
    definition = request.get("TrainingJobDefinition") or {}
    static = definition.get("StaticHyperParameters") or {}
    if "sagemaker_job_name" in static:
        static = {**static, "sagemaker_job_name": encode(name)}
        rename_model_dir(static, old, name)
        renamed["TrainingJobDefinition"] = {**definition, "StaticHyperParameters": static}
    return renamed


def with_training_job_name(request: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """A tuning request whose TensorFlow model_dir was derived from the plan's training job name
    ``old`` (a tuning job without an exact name, sdk/tuning.py), under training job name
    ``new``; any other request as it is."""
    definition = request.get("TrainingJobDefinition") or {}
    static = dict(definition.get("StaticHyperParameters") or {})
    rename_model_dir(static, old, new)
    if static == (definition.get("StaticHyperParameters") or {}):
        return request
    return {**request, "TrainingJobDefinition": {**definition, "StaticHyperParameters": static}}

"""Reuse the SDK's answer across local runs of the same config.

A local run is re-planned every time the user edits their script and runs again, and planning
costs an SDK import (~2 s). The request depends on the code only through two volatile fields —
the job name and the content-addressed code location — so the plan is cached per (config as
planned, entry points' location, SDK version, sagelaunch version) and those two fields are set
anew for each run. Same answer as planning again; tests compare the two.
"""

from __future__ import annotations

import hashlib
import json
import os
from importlib import metadata
from pathlib import Path
from typing import Any

from sagelaunch import __version__, naming
from sagelaunch.bundle import Bundle
from sagelaunch.config.loader import LoadedConfig

CACHE_DIR = Path(".sagelaunch") / "cache" / "local-plans"
SDK_PREFIX = "sagemaker SDK: "


def cache_key(planned: LoadedConfig) -> str:
    payload = {
        "config": planned.config.model_dump(mode="json"),
        "source_dir": str(planned.source_dir),
        "sagemaker": metadata.version("sagemaker"),
        "sagelaunch": __version__,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def load(folder: Path, key: str) -> dict[str, Any] | None:
    try:
        return json.loads((folder / f"{key}.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None  # a miss, a damaged entry or an unreadable cache: plan again


def store(folder: Path, key: str, plan: dict[str, Any]) -> None:
    """Write atomically; a cache that cannot be written is only a slower next run."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temporary = folder / f".{key}.{os.getpid()}.tmp"
        temporary.write_text(json.dumps(plan), encoding="utf-8")
        os.replace(temporary, folder / f"{key}.json")
    except OSError:
        pass


def retarget(
    plan: dict[str, Any], job_name: str, code: Bundle, warnings: list[str]
) -> dict[str, Any]:
    """The cached plan for this run: its job name, its code bundle, today's config warnings."""
    old_uri = plan["upload"]["s3_uri"]
    prefix = old_uri.split("/sagelaunch-code/")[0]
    new_uri = code.s3_uri(prefix)
    request = naming.with_job_name(plan["request"], job_name)
    hyperparameters = request.get("HyperParameters", {})
    if "sagemaker_submit_directory" in hyperparameters:
        hyperparameters = {**hyperparameters, "sagemaker_submit_directory": json.dumps(new_uri)}
        request = {**request, "HyperParameters": hyperparameters}
    kwargs = {**plan["estimator"]["kwargs"], "source_dir": new_uri}
    sdk_warnings = [w for w in plan["warnings"] if w.startswith(SDK_PREFIX)]
    return {
        **plan,
        "job_name": job_name,
        "request": request,
        "estimator": {**plan["estimator"], "kwargs": kwargs},
        "upload": {**code.summary(), "s3_uri": new_uri},
        "warnings": warnings + sdk_warnings,
    }

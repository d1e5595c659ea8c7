"""SageMaker's service model trimmed to what sagelaunch calls, cached per botocore version.

botocore parses SageMaker's whole service model — hundreds of operations, ~100 ms — for every
client, and sagelaunch calls four of them. The first client writes a copy trimmed to those
operations (and the shapes they reach, without documentation) under the user's cache directory;
later processes find it first on the loader's search path and parse ~40 KB instead. That is
what keeps `submit plan.json` under half a second. Any problem writing the cache (read-only home,
full disk) leaves botocore's full model in use: slower, never wrong.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import botocore
import botocore.loaders

# The operations each trimmed service keeps: everything `aws.jobs` calls, nothing more.
OPERATIONS = {
    "sagemaker": (
        "CreateTrainingJob",
        "DescribeTrainingJob",
        "ListTrainingJobs",
        "StopTrainingJob",
        "ListTags",  # import: DescribeTrainingJob does not return a job's tags
        # aws.tuning: `tune`, and tuning jobs in status / list / stop
        "CreateHyperParameterTuningJob",
        "DescribeHyperParameterTuningJob",
        "ListHyperParameterTuningJobs",
        "StopHyperParameterTuningJob",
    ),
}


def cache_root() -> Path:
    """Per botocore version and per operation list: a sagelaunch that calls more operations
    never reads an older, smaller trim."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    kept = hashlib.sha256(json.dumps(OPERATIONS, sort_keys=True).encode()).hexdigest()[:12]
    return Path(base) / "sagelaunch" / f"botocore-{botocore.__version__}-{kept}"


def trimmed_loader(data_path: str | None) -> botocore.loaders.Loader:
    """A loader that finds the trimmed models before botocore's own."""
    loader = botocore.loaders.create_loader(data_path)
    root = cache_root()
    try:
        for service, operations in OPERATIONS.items():
            _ensure_trimmed(root, service, operations)
    except (OSError, KeyError, ValueError):
        return loader
    loader.search_paths.insert(0, str(root))
    return loader


def _ensure_trimmed(root: Path, service: str, operations: tuple[str, ...]) -> None:
    full_loader = botocore.loaders.create_loader()
    version = full_loader.determine_latest_version(service, "service-2")
    target = root / service / version / "service-2.json"
    if target.is_file():
        return
    full = full_loader.load_service_model(service, "service-2", version)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=target.parent, delete=False, suffix=".tmp") as tmp:
        json.dump(trim(full, operations), tmp)
    os.replace(tmp.name, target)  # atomic: a concurrent process sees all of it or none


def trim(model: dict[str, Any], operations: tuple[str, ...]) -> dict[str, Any]:
    """``model`` with only ``operations`` and the shapes they reach; no documentation."""
    shapes: dict[str, Any] = model["shapes"]
    kept: set[str] = set()

    def reach(name: str) -> None:
        if name in kept:
            return
        kept.add(name)
        shape = shapes[name]
        for ref in ("member", "key", "value"):
            if ref in shape:
                reach(shape[ref]["shape"])
        for member in shape.get("members", {}).values():
            reach(member["shape"])

    for name in operations:
        operation = model["operations"][name]
        for ref in ("input", "output"):
            if ref in operation:
                reach(operation[ref]["shape"])
        for error in operation.get("errors", []):
            reach(error["shape"])
    head = {k: v for k, v in model.items() if k not in ("operations", "shapes", "documentation")}
    return _undocumented(
        {
            **head,
            "operations": {name: model["operations"][name] for name in operations},
            "shapes": {name: shapes[name] for name in sorted(kept)},
        }
    )


def _undocumented(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _undocumented(v) for k, v in value.items() if k != "documentation"}
    if isinstance(value, list):
        return [_undocumented(v) for v in value]
    return value

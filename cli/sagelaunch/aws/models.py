"""SageMaker's and S3's service models trimmed to what sagelaunch calls, cached per botocore
version.

botocore parses a service's whole model for every client — SageMaker's hundreds of operations
take ~100 ms, S3's ~15 ms — and sagelaunch calls a handful of them. The first client writes a
copy trimmed to those operations (and the shapes they reach, without documentation) under the
user's cache directory; later processes find it first on the loader's search path and parse a
few KB instead. That is what keeps `submit plan.json` under half a second. Any problem writing
the cache (read-only home, full disk) leaves botocore's full models in use: slower, never wrong.
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
        "ListTags",  # import, status: DescribeTrainingJob does not return a job's tags
        "AddTags",  # services.attempts: a failover chain's links between its jobs
        # aws.tuning: `tune`, and tuning jobs in status / list / stop
        "CreateHyperParameterTuningJob",
        "DescribeHyperParameterTuningJob",
        "ListHyperParameterTuningJobs",
        "StopHyperParameterTuningJob",
        # aws.training_plans: `capacity`, and the checks of compute.training_plan
        "SearchTrainingPlanOfferings",
        "CreateTrainingPlan",
        "DescribeTrainingPlan",
        "ListTrainingPlans",
        "ExtendTrainingPlan",
        "DescribeTrainingPlanExtensionHistory",
    ),
    "s3": (
        "HeadObject",  # aws.upload: is the content-addressed bundle there?
        "PutObject",
        "GetObject",  # aws.download, `import`
        "ListObjectsV2",  # aws.download (its paginator's config comes from botocore's data)
        # botocore's own S3 machinery calls these: the region redirector (a bucket in another
        # region) and the S3 Express identity resolver (directory buckets).
        "HeadBucket",
        "CreateSession",
    ),
}


def cache_root() -> Path:
    """Per botocore version and per operation list: a sagelaunch that calls more operations
    never reads an older, smaller trim. Under $XDG_CACHE_HOME/sagelaunch where that is set, else
    in sagelaunch's cache folder (`caches`: .sagelaunch/cache or $SAGELAUNCH_CACHE_DIR), never
    in the home folder unasked."""
    from sagelaunch import caches

    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) / "sagelaunch" if xdg else caches.folder("botocore-models")
    kept = hashlib.sha256(json.dumps(OPERATIONS, sort_keys=True).encode()).hexdigest()[:12]
    return base.resolve() / f"botocore-{botocore.__version__}-{kept}"


def trimmed_loader(data_path: str | None) -> botocore.loaders.Loader:
    """A loader that finds the trimmed models before botocore's own."""
    loader = botocore.loaders.create_loader(data_path)
    root = trimmed_models_path()
    if root is not None:
        loader.search_paths.insert(0, root)
    return loader


def trimmed_models_path() -> str | None:
    """The folder of the trimmed models, written first if missing, for a loader's search path
    (or $AWS_DATA_PATH); None when it cannot be written."""
    root = cache_root()
    try:
        for service, operations in OPERATIONS.items():
            _ensure_trimmed(root, service, operations)
    except (OSError, KeyError, ValueError):
        return None
    return str(root)


def _ensure_trimmed(root: Path, service: str, operations: tuple[str, ...]) -> None:
    if any((root / service).glob("*/service-2.json")):
        return  # written by an earlier process: skip botocore's scan of its ~400 service dirs
    full_loader = botocore.loaders.create_loader()
    version = full_loader.determine_latest_version(service, "service-2")
    target = root / service / version / "service-2.json"
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
    # The rest (metadata, S3's clientContextParams, whose "documentation" botocore reads) stays.
    head = {k: v for k, v in model.items() if k not in ("operations", "shapes", "documentation")}
    return {
        **head,
        "operations": _undocumented({name: model["operations"][name] for name in operations}),
        "shapes": _undocumented({name: shapes[name] for name in sorted(kept)}),
    }


def _undocumented(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _undocumented(v) for k, v in value.items() if k != "documentation"}
    if isinstance(value, list):
        return [_undocumented(v) for v in value]
    return value

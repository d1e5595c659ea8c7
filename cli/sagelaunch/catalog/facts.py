"""Version, image, instance and price facts, read from dated package-data files (data/*.json).

Facts live in data files with their source and date, not in code, so refreshing them after an SDK
or price change is a data edit that shows up in review.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any


@cache
def load(name: str) -> dict[str, Any]:
    """One shipped data file, e.g. load("accelerators"); parsed once per process. The instance
    catalog is `catalog()`, which prefers a refreshed one."""
    text = (
        resources.files("sagelaunch").joinpath("data").joinpath(f"{name}.json").read_text("utf-8")
    )
    return json.loads(text)


def catalog() -> dict[str, Any]:
    """The instance catalog: the one `sagelaunch instances --refresh` wrote from EC2's live
    answers into the cache folder, when there is a readable one, else the shipped
    data/instances.json."""
    path = refreshed_catalog_file()
    try:
        stat = path.stat()
    except OSError:
        return load("instances")
    version = (stat.st_size, stat.st_mtime_ns, stat.st_ino)  # a rewrite (os.replace) is new
    return _refreshed(str(path), version) or load("instances")


def refreshed_catalog_file() -> Path:
    from sagelaunch import caches

    return caches.folder("catalog") / "instances.json"


@cache
def _refreshed(path: str, version: tuple[int, int, int]) -> dict[str, Any] | None:
    """A refreshed catalog, parsed once per version of the file; None when it is not one (a
    half-edited or foreign file falls back to the shipped catalog)."""
    try:
        content = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return content if _is_catalog(content) else None


# What every reader of an entry indexes without a default: a file whose entries lack one is not
# read at all (the shipped catalog is), rather than failing a command later.
_ENTRY_KEYS = {"kind": str, "accelerators": int, "vcpus": int, "efa": bool, "source": str}


def _is_catalog(content: Any) -> bool:
    if not isinstance(content, dict) or not isinstance(content.get("excluded"), dict):
        return False
    instances, sources = content.get("instances"), content.get("sources")
    if not isinstance(instances, dict) or not isinstance(sources, dict) or "types" not in sources:
        return False
    return all(
        isinstance(entry, dict)
        and all(isinstance(entry.get(key), kind) for key, kind in _ENTRY_KEYS.items())
        for entry in instances.values()
    )


def instance(instance_type: str) -> dict[str, Any] | None:
    return catalog()["instances"].get(instance_type)


def instance_kind(instance_type: str) -> str:
    """gpu, trainium or cpu, from the catalog or else from the family letter."""
    known = instance(instance_type)
    if known:
        return str(known["kind"])
    family = instance_type.removeprefix("ml.").split(".")[0]
    if family.startswith("trn"):
        return "trainium"
    return "gpu" if family[:1] in {"p", "g"} else "cpu"


def interconnect(instance_type: str) -> dict[str, Any]:
    """The link between the accelerators inside one instance (interconnect.json, by family);
    empty where the instance has one accelerator, or none."""
    known = instance(instance_type) or {}
    if int(known.get("accelerators") or 0) < 2:
        return {}
    family = instance_type.removeprefix("ml.").split(".")[0]
    return dict(load("interconnect")["families"].get(family, {}))


def library_instances(name: str) -> list[str]:
    """The instance types AWS documents for a distributed-training library
    (distributed_libraries.json: ``smddp_with_torchrun``, ``smp_v2_supported``)."""
    return list(load("distributed_libraries")[name])


def accelerators_per_host(instance_type: str) -> int:
    """Processes a launcher starts per host: GPUs, else Neuron cores, else 1 (toolkit rule)."""
    known = instance(instance_type) or {}
    return int(known.get("neuron_cores") or known.get("accelerators") or 1)

"""SDK objects as plain data: ``{"sdk": "sagemaker.debugger.Rule.sagemaker", "args": [...],
"kwargs": {...}}`` is the call a user would write. The estimator spec stays reviewable JSON (plan
prints it), and `materialize` makes the real objects just before the estimator is built.

Equal descriptions become one object: the SDK checks distribution["instance_groups"] against
instance_groups by identity (``InstanceGroup`` has no ``__eq__``), as a hand-written script that
passes the same ``InstanceGroup`` object twice does.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

from sagelaunch.sdk.runtime import sagemaker

_MARK = "sdk"


def call(path: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """The description of ``path(*args, **kwargs)``; ``path`` is a dotted name in sagemaker."""
    described: dict[str, Any] = {_MARK: path}
    if args:
        described["args"] = list(args)
    if kwargs:
        described["kwargs"] = kwargs
    return described


def is_call(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get(_MARK), str)


def materialize(value: Any, made: dict[str, Any] | None = None) -> Any:
    """``value`` with every description replaced by the object it describes (depth first)."""
    made = {} if made is None else made
    if is_call(value):
        key = json.dumps(value, sort_keys=True, default=str)
        if key not in made:
            args = [materialize(a, made) for a in value.get("args", [])]
            kwargs = {k: materialize(v, made) for k, v in value.get("kwargs", {}).items()}
            made[key] = _resolve(value[_MARK])(*args, **kwargs)
        return made[key]
    if isinstance(value, dict):
        return {k: materialize(v, made) for k, v in value.items()}
    if isinstance(value, list):
        return [materialize(v, made) for v in value]
    return value


def _resolve(path: str) -> Any:
    """The SDK attribute at ``path``: its longest importable module, then attributes."""
    parts = path.split(".")
    if parts[0] != "sagemaker":
        raise ValueError(f"not a SageMaker SDK name: {path}")
    sagemaker()  # imported quietly first
    for end in range(len(parts), 0, -1):
        try:
            target: Any = importlib.import_module(".".join(parts[:end]))
        except ImportError:
            continue
        for part in parts[end:]:
            target = getattr(target, part)
        return target
    raise ValueError(f"not a SageMaker SDK name: {path}")  # pragma: no cover

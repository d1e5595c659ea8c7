"""The service's limits on CreateTrainingJob's maps (HyperParameters, Environment), located in
the config: at most N entries, each key and value within a length and a pattern.

botocore checks none of them client-side; the service refuses the whole request
(ValidationException) for any one, so each is an error. `validate` sees the config, which is a
lower bound of the request (the SDK adds its own `sagemaker_*` hyperparameters and JSON-encodes
string values); `plan` checks the request itself, and names what the SDK added.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from sagelaunch.config.api_limits import MapLimits, map_limits, map_violations
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.errors import Problem
from sagelaunch.hyperparameters import as_text

MAPS = {"HyperParameters": "hyperparameters", "Environment": "environment"}  # request: config


def config_problems(loaded: LoadedConfig) -> Iterator[Problem]:
    """What the config alone breaks (the model is read only for a config that sets a map)."""
    for member, key in MAPS.items():
        written: dict[str, Any] = getattr(loaded.config, key)
        if not written:
            continue
        limits = map_limits(member)
        if len(written) > limits.entries:
            note = (
                " and the SDK adds its own sagemaker_* ones" if member == "HyperParameters" else ""
            )
            message = (
                f"{_too_many(limits, len(written))}{note}; move the rest into a file in source_dir"
            )
            yield loaded.problem((key,), message)
        sent = {str(name): as_text(value) for name, value in written.items()}
        for name, message in map_violations(limits, sent):
            yield loaded.problem((key, name), message)


def request_problems(loaded: LoadedConfig, request: Mapping[str, Any]) -> list[Problem]:
    """What the planned request breaks: its counts include the SDK's own entries."""
    found = []
    for member, key in MAPS.items():
        sent: dict[str, str] = request.get(member) or {}
        if not sent:
            continue
        limits = map_limits(member)
        added = sorted(set(sent) - set(getattr(loaded.config, key)))
        if len(sent) > limits.entries:
            note = f": {len(sent) - len(added)} from the config, {len(added)} the SDK adds"
            note += f" ({', '.join(added)})" if added else ""
            found.append(loaded.problem((key,), _too_many(limits, len(sent)) + note))
        for name, message in map_violations(limits, sent):
            where = (key, name) if name not in added else (key,)
            found.append(
                loaded.problem(
                    where, message if name not in added else f"{name} (the SDK's): {message}"
                )
            )
    return found


def _too_many(limits: MapLimits, count: int) -> str:
    return (
        f"{count} {limits.member} entries: CreateTrainingJob takes at most {limits.entries} "
        "(the service refuses the job)"
    )

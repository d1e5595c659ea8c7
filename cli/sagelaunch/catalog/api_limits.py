"""Limits of the CreateTrainingJob and CreateHyperParameterTuningJob APIs, from botocore's service
model, as data.

The service enforces them (botocore does not, client-side), so each one a config breaks is a
refused job. Every string, list, map and number limit of the two requests (lengths, member
counts, patterns, ranges) is generated into `data/api_limits.json` from the SageMaker model
botocore ships (`python -m sagelaunch.catalog.api_limits` writes it; tests/config/test_api_limits.py
checks that it equals what the installed botocore says), so no number is copied by hand and
`validate` reads a few kilobytes instead of botocore's 4 MB model (about 0.2 s to parse), without
importing botocore.

A limit's path names a request member: ``CreateTrainingJob.Tags`` (the list),
``CreateTrainingJob.Tags[].Key`` (a member of each element), ``CreateTrainingJob.Environment{key}``
and ``{value}`` (a map's keys and values).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from sagelaunch.catalog.sdk_data import botocore_model_file, botocore_shapes, package_dir

LIMITS_FILE = Path(__file__).resolve().parent.parent / "data" / "api_limits.json"
OPERATIONS = ("CreateTrainingJob", "CreateHyperParameterTuningJob")
NUMBERS = ("integer", "long")  # the two requests' bounded numbers (FLOATS: none is bounded)
FLOATS = ("float", "double")
LIMITED = ("string", "list", "map", *NUMBERS, *FLOATS)
SERVICE = "sagemaker"


@dataclass(frozen=True)
class Limit:
    """What the model allows at one request path: a string's length and pattern, a list's or
    a map's number of members, or a number's range."""

    path: str
    shape: str
    type: str  # string | list | map | integer | long
    min: int = 0
    max: int | None = None
    pattern: str = ""  # the model's (Java) pattern, matched against the whole string

    @property
    def operation(self) -> str:
        return self.path.split(".", 1)[0]

    @property
    def member(self) -> str:
        """The path below the operation, e.g. ``Tags[].Key``."""
        return self.path.split(".", 1)[1]


@cache
def _limits_file() -> dict[str, Any]:
    """`data/api_limits.json`, read once per process."""
    return dict(json.loads(LIMITS_FILE.read_text(encoding="utf-8")))


@cache
def limits() -> dict[str, Limit]:
    """Every limit of the two requests, by path (`data/api_limits.json`)."""
    return {path: Limit(path, **fields) for path, fields in _limits_file()["limits"].items()}


def limit(path: str) -> Limit:
    return limits()[path]


@cache
def _by_shape() -> dict[str, Limit]:
    return {found.shape: found for found in limits().values()}


def bounds(shape: str) -> tuple[int, int]:
    """(min, max) of a list's length or a string's length, by the model's shape name."""
    found = _by_shape()[shape]
    assert found.max is not None, shape
    return found.min, found.max


def number_range(path: str) -> tuple[int, int | None]:
    """(min, max) of the number at request ``path``, as the model states them (max None: the
    model states none)."""
    found = limit(path)
    assert found.type in NUMBERS, path
    return found.min, found.max


def field_bounds(path: str) -> dict[str, int | None]:
    """The model's range of the number at ``path`` as a pydantic ``Field``'s ``ge``/``le``, so
    the config model's schema states the service's numbers and no copy of them."""
    least, most = number_range(path)
    return {"ge": least, "le": most}


# The model's patterns are Java regular expressions. Python's `re` lacks the \p{...} classes
# the tag patterns use; each becomes a Python class that holds at least what the Java one does
# (\w: letters, digits, marks of numbers and '_'; \s: separators and other spaces), so a value
# Python refuses is one the service refuses too. A pattern with any other \p{...} is not
# checked (`python_pattern` returns None; the fence test lists those in use).
_JAVA_CLASSES = {r"\p{L}": r"\w", r"\p{N}": r"\w", r"\p{Z}": r"\s", r"\p{Alnum}": "a-zA-Z0-9"}


@cache
def python_pattern(java: str) -> re.Pattern[str] | None:
    """The model's pattern as a Python regular expression to `fullmatch` (the service matches
    whole strings); None when it cannot be told in Python."""
    text = java
    for java_class, python_class in _JAVA_CLASSES.items():
        text = text.replace(java_class, python_class)
    if r"\p{" in text or r"\P{" in text:
        return None
    try:
        return re.compile(text)
    except re.error:
        return None


def matches(found: Limit, value: str) -> bool:
    """Whether ``value`` matches the limit's pattern (True when there is none, or it cannot be
    told in Python)."""
    pattern = python_pattern(found.pattern) if found.pattern else None
    return pattern is None or pattern.fullmatch(value) is not None


@dataclass(frozen=True)
class MapLimits:
    """What a request allows in one of its string-to-string maps."""

    member: str  # e.g. "HyperParameters"
    entries: int
    key_length: int
    key_pattern: str
    value_length: int
    value_pattern: str


@cache
def map_limits(member: str, operation: str = "CreateTrainingJob") -> MapLimits:
    """The limits of ``operation``'s map ``member`` (a path below the operation, e.g.
    ``TrainingJobDefinition.Environment``), as the model states them."""
    path = f"{operation}.{member}"
    found, key, value = limit(path), limit(path + "{key}"), limit(path + "{value}")
    assert found.max is not None and key.max is not None and value.max is not None, path
    return MapLimits(
        member=member.rsplit(".", 1)[-1],
        entries=found.max,
        key_length=key.max,
        key_pattern=key.pattern,
        value_length=value.max,
        value_pattern=value.pattern,
    )


def map_violations(limits: MapLimits, mapping: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """(key, what the service refuses) for each key and value over a limit: the service checks
    every one of them (a ValidationException names the first), so each is an error."""
    for key, value in mapping.items():
        if len(key) > limits.key_length:
            yield (
                key,
                (
                    f"a key of {len(key)} characters: {limits.member} keys take at most "
                    f"{limits.key_length}"
                ),
            )
        elif limits.key_pattern and not _fullmatch(limits.key_pattern, key):
            yield key, f"{limits.member} keys must match the API's pattern {limits.key_pattern}"
        if len(value) > limits.value_length:
            yield (
                key,
                (
                    f"a value of {len(value)} characters: {limits.member} values take at most "
                    f"{limits.value_length}"
                ),
            )
        elif limits.value_pattern and not _fullmatch(limits.value_pattern, value):
            yield key, f"the value must match the API's pattern {limits.value_pattern}"


def _fullmatch(java: str, value: str) -> bool:
    pattern = python_pattern(java)
    return pattern is None or pattern.fullmatch(value) is not None


# --- Generating data/api_limits.json from botocore's model (never on the validate path) ---


def model_file() -> Path:
    """botocore's SageMaker service model: the newest API version it ships."""
    return botocore_model_file(SERVICE)


@cache
def service_shapes() -> dict[str, Any]:
    """The SageMaker service model's shapes, read as data (no botocore import)."""
    return botocore_shapes(SERVICE)


def generate(shapes: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Every string, list, map and number limit of the two requests, by path, from the model's
    shapes."""
    found: dict[str, dict[str, Any]] = {}
    for operation in OPERATIONS:
        _walk(shapes, f"{operation}Request", operation, (), found)
    return found


def _walk(
    shapes: Mapping[str, Any],
    name: str,
    path: str,
    within: tuple[str, ...],
    found: dict[str, dict[str, Any]],
) -> None:
    shape = shapes[name]
    kind = shape["type"]
    if kind in LIMITED and any(k in shape for k in ("min", "max", "pattern")):
        if kind in FLOATS:  # none in the two requests today: Limit and the checks take ints
            raise ValueError(f"{path}: botocore now bounds a {kind} ({name}); extend Limit to it")
        entry: dict[str, Any] = {"shape": name, "type": kind, "min": int(shape.get("min", 0))}
        if "max" in shape:
            entry["max"] = int(shape["max"])
        if "pattern" in shape:
            entry["pattern"] = shape["pattern"]
        found[path] = entry
    if name in within:  # a recursive shape: its members are listed once
        return
    within = (*within, name)
    if kind == "structure":
        for member, spec in shape["members"].items():
            _walk(shapes, spec["shape"], f"{path}.{member}", within, found)
    elif kind == "list":
        _walk(shapes, shape["member"]["shape"], f"{path}[]", within, found)
    elif kind == "map":
        _walk(shapes, shape["key"]["shape"], path + "{key}", within, found)
        _walk(shapes, shape["value"]["shape"], path + "{value}", within, found)


# AWS Batch for SageMaker training (compute.queue): SubmitServiceJob's bounds. The model states
# few of them as metadata (tags, clientToken); the numbers a queue takes (schedulingPriority,
# retryStrategy.attempts) it states only in its documentation ("between 0 and 9999"), read from
# there, so that a new bound in a new botocore is a new number here without an edit.
QUEUE_OPERATION = "SubmitServiceJob"
_DOCUMENTED_RANGE = re.compile(r"between (\d+) and (\d+)")
_DOCUMENTED_LENGTH = re.compile(r"up to (\d+) characters")


def generate_queue(shapes: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """SubmitServiceJob's limits by path: the model's metadata, else what its documentation of
    an integer ("between 0 and 9999") or a string ("up to 128 characters") states."""
    found: dict[str, dict[str, Any]] = {}
    _walk(shapes, f"{QUEUE_OPERATION}Request", QUEUE_OPERATION, (), found)
    _documented(shapes, f"{QUEUE_OPERATION}Request", QUEUE_OPERATION, found)
    return found


def _documented(
    shapes: Mapping[str, Any], name: str, path: str, found: dict[str, dict[str, Any]]
) -> None:
    for member, spec in shapes[name].get("members", {}).items():
        where, kind = f"{path}.{member}", shapes[spec["shape"]]["type"]
        text = spec.get("documentation", "")
        stated = _DOCUMENTED_RANGE.search(text) if kind in NUMBERS else None
        if stated and where not in found:
            low, high = (int(n) for n in stated.groups())
            found[where] = {"shape": spec["shape"], "type": kind, "min": low, "max": high}
        length = _DOCUMENTED_LENGTH.search(text) if kind == "string" else None
        if length and where not in found:
            found[where] = {"shape": spec["shape"], "type": kind, "min": 1, "max": int(length[1])}
        if kind == "structure":
            _documented(shapes, spec["shape"], where, found)


def queue_range(member: str) -> tuple[int, int | None]:
    """(min, max) of SubmitServiceJob's ``member`` (e.g. ``schedulingPriority``)."""
    data = _queue_limits()[f"{QUEUE_OPERATION}.{member}"]
    return int(data["min"]), data.get("max")


def _queue_limits() -> dict[str, dict[str, Any]]:
    return dict(_limits_file()["queue"]["limits"])


def generated_file() -> dict[str, Any]:
    """The contents of data/api_limits.json, from the installed botocore."""
    version = (package_dir("botocore") / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r"^__version__ = ['\"]([^'\"]+)['\"]", version, re.MULTILINE)
    model = model_file()
    relative = model.relative_to(package_dir("botocore").parent).as_posix()
    return {
        "source": (
            f"botocore {match.group(1) if match else '?'}: {relative} (the service model botocore "
            "validates requests against); written by `python -m sagelaunch.catalog.api_limits`, "
            "checked against the installed botocore by tests/config/test_api_limits.py"
        ),
        "limits": generate(service_shapes()),
        "queue": {
            "source": (
                f"botocore: {_relative(botocore_model_file('batch'))}, SubmitServiceJob: the "
                "model's bounds, and the ranges and lengths its documentation states"
            ),
            "limits": generate_queue(botocore_shapes("batch")),
        },
        "ultraserver": {
            "source": "the SageMaker model's UltraServer.InstanceType enum",
            "instance_types": _ultraserver_types(service_shapes()),
        },
    }


def ultraserver_types() -> tuple[str, ...]:
    """The instance types an UltraServer can be made of (the model's UltraServer.InstanceType
    enum): InstancePlacementConfig is "only applicable for UltraServer capacity"."""
    return tuple(_limits_file()["ultraserver"]["instance_types"])


def _ultraserver_types(shapes: Mapping[str, Any]) -> list[str]:
    member = shapes["UltraServer"]["members"]["InstanceType"]["shape"]
    return sorted(shapes[member]["enum"])


def _relative(path: Path) -> str:
    return path.relative_to(package_dir("botocore").parent).as_posix()


def main() -> None:
    """Write data/api_limits.json from the installed botocore."""
    text = json.dumps(generated_file(), indent=1, sort_keys=True, ensure_ascii=False)
    LIMITS_FILE.write_text(text + "\n", encoding="utf-8")
    print(f"wrote {LIMITS_FILE} ({len(limits.__wrapped__())} limits)")


if __name__ == "__main__":
    main()

"""The installed SageMaker SDK's own facts, read as data: no `import sagemaker`.

The SDK ships its framework, version, alias, Python-version and registry tables as package data
(`sagemaker/image_uri_config/*.json`) and a few validation lists as module constants
(`sagemaker/fw_utils.py`). sagelaunch reads both straight from the installed package, so that what
`validate` accepts is what the SDK that `plan` runs accepts, with no copy to fall out of date, and
the fast path stays free of the SDK's 2-second import.
"""

from __future__ import annotations

import ast
import json
import re
from functools import cache
from importlib import util
from pathlib import Path
from typing import Any

from sagelaunch.errors import SagelaunchError


class SdkDataMissing(SagelaunchError):
    """The SageMaker SDK is not installed where sagelaunch can read its data files."""


@cache
def package_dir(name: str = "sagemaker") -> Path:
    """Where an installed package lives, found without executing its ``__init__``."""
    spec = util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SdkDataMissing(
            f"the {name} package is not installed",
            hint="reinstall sagelaunch with its dependencies, from the wheel or checkout it came "
            "from (it is not on the public package index)",
        )
    return Path(next(iter(spec.submodule_search_locations)))


@cache
def image_config(framework: str) -> dict[str, Any]:
    """One ``image_uri_config/<framework>.json`` file, parsed once per process."""
    path = package_dir() / "image_uri_config" / f"{framework}.json"
    return json.loads(path.read_text(encoding="utf-8"))


def training_config(framework: str) -> dict[str, Any]:
    """The training scope of a framework's config (XGBoost's has scopes at the top level too)."""
    config = image_config(framework)
    return dict(config.get("training", config))


def fw_constant(name: str) -> Any:
    """A literal constant of ``sagemaker/fw_utils.py`` (e.g. the torch_distributed versions)."""
    return module_literal("fw_utils.py", name)


@cache
def module_literal(filename: str, name: str) -> Any:
    """The literal assigned to ``name`` in an SDK source file, parsed from its text: only the
    assignment's own lines are read and evaluated, nothing is imported or executed."""
    return _module_constant(package_dir() / filename, name)


def _module_constant(path: Path, name: str) -> Any:
    lines = path.read_text(encoding="utf-8").splitlines()
    start = re.compile(rf"^\s*{re.escape(name)}\s*=")
    for index, line in enumerate(lines):
        if start.match(line):
            return _literal_from(lines, index, name)
    raise SdkDataMissing(f"the installed SageMaker SDK has no {name} in {path.name}")


def _literal_from(lines: list[str], first: int, name: str) -> Any:
    """Grow the snippet line by line until it parses as one assignment of a literal."""
    for last in range(first, min(first + 400, len(lines))):
        snippet = "\n".join(line.strip() for line in lines[first : last + 1])
        try:
            tree = ast.parse(snippet)
        except SyntaxError:
            continue
        node = tree.body[0]
        if isinstance(node, ast.Assign):
            return _literal(node.value)
    raise SdkDataMissing(f"cannot read {name} from the installed SageMaker SDK")


def _literal(node: ast.expr) -> Any:
    """ast.literal_eval, plus ``set([...])``, which the SDK writes for some of its sets."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "set" and node.args:
        return set(ast.literal_eval(node.args[0]))
    return ast.literal_eval(node)


@cache
def version_constant(filename: str, name: str) -> str:
    """The version in an SDK class attribute written ``NAME = version.Version("1.10.0")``."""
    text = (package_dir() / filename).read_text(encoding="utf-8")
    match = re.search(rf"^\s*{re.escape(name)}\s*=\s*version\.Version\(\"([^\"]+)\"\)", text, re.M)
    if match is None:
        raise SdkDataMissing(f"the installed SageMaker SDK has no {name} in {filename}")
    return match[1]


@cache
def ecr_hostname(region: str) -> str:
    """ECR's hostname in ``region``, as the SDK gets it from botocore's endpoint data (read here as
    data too, so that resolving an image never imports botocore)."""
    endpoints = json.loads(
        (package_dir("botocore") / "data" / "endpoints.json").read_text(encoding="utf-8")
    )
    for partition in endpoints["partitions"]:
        if region in partition["regions"] or re.match(partition["regionRegex"], region):
            known = partition["services"].get("ecr", {}).get("endpoints", {}).get(region, {})
            template = known.get("hostname") or partition["defaults"]["hostname"]
            return str(template).format(
                service="ecr", region=region, dnsSuffix=partition["dnsSuffix"]
            )
    return f"ecr.{region}.amazonaws.com"  # pragma: no cover - every region matches a partition


def pytorch_version(version: str) -> str:
    """Resolve the SDK's short aliases ("2.2" -> "2.2.0") from its pytorch.json."""
    aliases = training_config("pytorch").get("version_aliases", {})
    return str(aliases.get(version, version))


@cache
def package_version(name: str) -> str:
    """An installed package's version, read from its metadata (nothing is imported)."""
    from importlib import metadata

    return metadata.version(name)


def botocore_model_file(service: str) -> Path:
    """botocore's service model for ``service``: the newest API version it ships."""
    folder = max((package_dir("botocore") / "data" / service).iterdir())
    plain = folder / "service-2.json"
    return plain if plain.is_file() else folder / "service-2.json.gz"


@cache
def botocore_shapes(service: str) -> dict[str, Any]:
    """A service model's shapes, read as data (no botocore import)."""
    import gzip

    path = botocore_model_file(service)
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return dict(json.loads(raw)["shapes"])


def training_instance_types() -> list[str]:
    """The instance types CreateTrainingJob takes, in the API model's order (its
    ``TrainingInstanceType`` enum: the service refuses any other)."""
    return list(botocore_shapes("sagemaker")["TrainingInstanceType"]["enum"])

"""A config's ``${env:NAME}`` references (what `import` writes for a secret, see redact.py),
resolved from the user's shell when `plan`, `submit` and `local` run.

A reference is read in the values that reach the job as text: `environment`, `hyperparameters`
and, for a local run, `local.hyperparameters` (at any depth of a hyperparameter's list or
mapping), as the whole value or inside one (``s3://${env:BUCKET}/data``). The variable's text
replaces it (a hyperparameter reaches the entry point as that text). A reference to a variable
that is not set is an error at the key that holds it, with the variable to export; a malformed
one (``${env:1X}``) is an error too, never sent as written.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from sagelaunch.config.loader import LoadedConfig
from sagelaunch.config.yamlsource import KeyPath
from sagelaunch.errors import ConfigError, Problem
from sagelaunch.redact import REFERENCE

# Where references are read: the config's fields (and the local block's) holding job text.
_FIELDS: tuple[KeyPath, ...] = (
    ("environment",),
    ("hyperparameters",),
    ("local", "hyperparameters"),
)


def resolve_references(loaded: LoadedConfig, *, local: bool = False) -> LoadedConfig:
    """``loaded`` with every ``${env:NAME}`` in its environment and hyperparameters (with
    ``local``, a local run's, `local.hyperparameters` too: plan and submit never send them)
    replaced by $NAME; a ConfigError naming each reference whose variable is unset, at its key,
    in file order."""
    config = loaded.config
    problems: list[Problem] = []
    update: dict[str, Any] = {}
    local_update: dict[str, Any] = {}
    for path in _FIELDS if local else _FIELDS[:-1]:
        owner = config.local if path[0] == "local" else config
        value = getattr(owner, path[-1])
        resolved = _resolved(loaded, path, value, problems)
        if resolved != value:
            (local_update if path[0] == "local" else update)[path[-1]] = resolved
    if problems:
        raise ConfigError(sorted(problems, key=lambda p: (p.file, p.line, p.col)))
    if local_update:
        update["local"] = config.local.model_copy(update=local_update)
    if not update:
        return loaded
    return dataclasses.replace(loaded, config=config.model_copy(update=update))


def _resolved(loaded: LoadedConfig, path: KeyPath, value: Any, problems: list[Problem]) -> Any:
    if isinstance(value, dict):
        return {k: _resolved(loaded, (*path, k), v, problems) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolved(loaded, (*path, i), v, problems) for i, v in enumerate(value)]
    if not isinstance(value, str) or "${env:" not in value:
        return value
    names = REFERENCE.findall(value)
    if value.count("${env:") > len(names):
        message = (
            f"{value}: a reference is written ${{env:NAME}}, NAME letters, digits and _ "
            "(not starting with a digit), closed by }"
        )
        problems.append(loaded.problem(path, message))
        return value
    unset = [name for name in names if name not in os.environ]
    for name in dict.fromkeys(unset):
        message = f"{value}: ${name} is not set; export it before plan/submit/local"
        problems.append(loaded.problem(path, message))
    if unset:
        return value
    return REFERENCE.sub(lambda match: os.environ[match[1]], value)

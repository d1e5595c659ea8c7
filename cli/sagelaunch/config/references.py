"""A config's ``${env:NAME}`` environment values (what `import` writes for a secret, see
redact.py), resolved from the user's shell when `plan`, `submit` and `local` run."""

from __future__ import annotations

import dataclasses
import os

from sagelaunch.config.loader import LoadedConfig
from sagelaunch.errors import ConfigError
from sagelaunch.redact import REFERENCE


def resolve_references(loaded: LoadedConfig) -> LoadedConfig:
    """``loaded`` with every ``${env:NAME}`` environment value replaced by $NAME; a ConfigError
    naming each reference whose variable is unset."""
    config = loaded.config
    resolved, problems = {}, []
    for name, value in config.environment.items():
        match = REFERENCE.fullmatch(value)
        if match is None:
            resolved[name] = value
        elif match[1] in os.environ:
            resolved[name] = os.environ[match[1]]
        else:
            message = f"{value}: ${match[1]} is not set; export it before plan/submit/local"
            problems.append(loaded.problem(("environment", name), message))
    if problems:
        raise ConfigError(problems)
    if resolved == config.environment:
        return loaded
    return dataclasses.replace(loaded, config=config.model_copy(update={"environment": resolved}))

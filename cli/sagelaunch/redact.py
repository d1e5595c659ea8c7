"""Hide secret-looking environment values in what sagelaunch displays.

Only the display is redacted (`plan`'s views, `status`): the saved plan file and the request sent
to AWS keep the real values, since the job needs them.
"""

from __future__ import annotations

import re
from typing import Any

SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|KEY|CREDENTIAL", re.IGNORECASE)
MASK = "***"
_ENVIRONMENT_KEYS = ("Environment", "environment")  # the request's and the estimator kwargs'


def redact(request: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``request`` (a CreateTrainingJob request, a DescribeTrainingJob response or a
    whole plan) in which every environment variable whose name looks secret has its value
    masked, at any depth. The input is left untouched."""
    return _walk(request)  # type: ignore[no-any-return]


def is_secret(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def _walk(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: _masked(item)
            if key in _ENVIRONMENT_KEYS and isinstance(item, dict)
            else _walk(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_walk(item) for item in value]
    return value


def _masked(environment: dict[str, Any]) -> dict[str, Any]:
    return {name: MASK if is_secret(name) else value for name, value in environment.items()}

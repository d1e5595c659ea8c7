"""Hide secret-looking environment values in what sagelaunch displays, and keep them out of the
configs it writes.

Only the display is redacted (`plan`'s views, `status`): the saved plan file and the request sent
to AWS keep the real values, since the job needs them. The display masks broadly: a secret-looking
name, or a value that secretscan finds secret. `import` writes a secret as a reference,
``${env:HF_TOKEN}``, that `plan`, `submit` and `local` resolve from the user's environment; what is
a secret there is decided on the name *and* the value (secretscan), since each reference is a
variable the user must export before the config plans again.
"""

from __future__ import annotations

import re
from typing import Any

from sagelaunch import secretscan

SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|KEY|CREDENTIAL", re.IGNORECASE)
MASK = "***"
REFERENCE = re.compile(r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}")
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
    return {
        name: MASK if is_secret(name) or secretscan.finding(name, str(value)) else value
        for name, value in environment.items()
    }


def reference(variable: str) -> str:
    """The config value that stands for the environment variable ``variable``."""
    return "${env:" + variable + "}"


def referenced(environment: dict[str, str]) -> dict[str, str]:
    """``environment`` with each secret value (secretscan: by name and value) replaced by a
    reference to a variable of the same name (what `import` writes: the job gets the value back
    from the user's shell)."""
    secret = {f.name for f in secretscan.scan(environment)}
    return {
        name: reference(name) if name in secret else value for name, value in environment.items()
    }

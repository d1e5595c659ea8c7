"""Hide secret-looking environment values (and hyperparameter values) in what sagelaunch
displays, and keep them out of the configs it writes.

Only the display is redacted (`plan`'s views, `status`): the saved plan file and the request sent
to AWS keep the real values, since the job needs them. The display masks broadly: a secret-looking
name, or a value that secretscan finds secret. `import` writes a secret as a reference,
``${env:HF_TOKEN}``, that `plan`, `submit` and `local` resolve from the user's environment; what is
a secret there is decided on the name *and* the value (secretscan), since each reference is a
variable the user must export before the config plans again.

Hyperparameters are masked where secretscan finds the value secret (by its shape, or by a name
that says token/secret/password and a value that is not trivial): a name alone does not decide
there, since ``max_tokens: 512`` and ``pad_token_id: 0`` are what training scripts take. The
request's values are JSON text (SDK v2 sends ``"\"ghp_...\""``), read as the toolkit reads them;
a list or mapping is masked whole when any text in it is secret.
"""

from __future__ import annotations

import re
from typing import Any

from sagelaunch import secretscan
from sagelaunch.hyperparameters import decode

SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|KEY|CREDENTIAL", re.IGNORECASE)
MASK = "***"
REFERENCE = re.compile(r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}")
_ENVIRONMENT_KEYS = ("Environment", "environment")  # the request's and the estimator kwargs'
# The request's (and the tuning request's), the estimator kwargs', a description's.
_HYPERPARAMETER_KEYS = ("HyperParameters", "hyperparameters", "StaticHyperParameters")
_SDK_PREFIX = "sagemaker_"  # the SDK's own entries (program, submit directory, region, job name)


def redact(request: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``request`` (a CreateTrainingJob request, a DescribeTrainingJob response or a
    whole plan) in which every environment variable whose name or value looks secret, and every
    hyperparameter whose value does, has its value masked, at any depth. The input is left
    untouched."""
    return _walk(request)  # type: ignore[no-any-return]


def is_secret(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def _walk(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: _masked(item)
            if key in _ENVIRONMENT_KEYS and isinstance(item, dict)
            else _masked_hyperparameters(item)
            if key in _HYPERPARAMETER_KEYS and isinstance(item, dict)
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


def _masked_hyperparameters(hyperparameters: dict[str, Any]) -> dict[str, Any]:
    return {
        name: MASK if _secret_hyperparameter(str(name), value) else value
        for name, value in hyperparameters.items()
    }


def _secret_hyperparameter(name: str, value: Any) -> bool:
    if name.startswith(_SDK_PREFIX):
        return False
    return any(secretscan.finding(name, text) for text in _texts(decode(value)))


def _texts(value: Any) -> list[str]:
    """The text in a hyperparameter value (decoded): itself, or the text in its list/mapping."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _texts(item)]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    return []


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

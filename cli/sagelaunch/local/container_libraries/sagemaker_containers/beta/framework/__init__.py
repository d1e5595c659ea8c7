"""`sagemaker_containers.beta.framework`: scripts import its serving helpers (content_types,
encoders, env, modules, transformer, worker) at module level for their `input_fn`/`output_fn`,
which only an endpoint calls. `sagelaunch local` runs training, so they import here and say so when
used; `content_types` holds the container's names."""

from __future__ import annotations

import types
from typing import Any, NoReturn

from sagemaker_containers import _env

NOT_EMULATED = (
    "sagemaker_containers.beta.framework.{name} serves models, which sagelaunch local does not "
    "emulate (it runs training): deploy the model, or use the SDK's local mode (--docker)"
)


class _Serving(types.ModuleType):
    """A serving module: importable, and each use names what is not emulated."""

    def __getattr__(self, attribute: str) -> NoReturn:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        raise NotImplementedError(NOT_EMULATED.format(name=f"{self.__name__}.{attribute}"))


content_types = types.ModuleType("content_types", "The container's content type names.")
content_types.JSON = "application/json"  # type: ignore[attr-defined]
content_types.CSV = "text/csv"  # type: ignore[attr-defined]
content_types.OCTET_STREAM = "application/octet-stream"  # type: ignore[attr-defined]
content_types.ANY = "*/*"  # type: ignore[attr-defined]
content_types.NPY = "application/x-npy"  # type: ignore[attr-defined]
content_types.UTF8_TYPES = [content_types.JSON, content_types.CSV]  # type: ignore[attr-defined]

env = types.ModuleType("env", "The training environment (serving's is not emulated).")
env.training_env = _env.training_env  # type: ignore[attr-defined]
env.TrainingEnv = _env.TrainingEnv  # type: ignore[attr-defined]

encoders, modules, transformer, worker = (
    _Serving(name) for name in ("encoders", "modules", "transformer", "worker")
)


def __getattr__(name: str) -> Any:
    raise NotImplementedError(NOT_EMULATED.format(name=name))

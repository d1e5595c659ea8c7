"""The container's names that sagelaunch local does not emulate, given so that every import the
container's library allows works here too: each raises when used (called, instantiated, read),
never at import, with a message naming it and where it does run. The placeholder modules
(written by ``python -m sagelaunch.local.xgboost_surface``) are made of these; so are the names
the hand-written modules leave out."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any, NoReturn

ELSEWHERE = "run the job in the container (sagelaunch local --docker) or on SageMaker"
# What each part of the library does in the container, by the module's first name in it.
WHY = {
    "algorithm_mode": "the built-in algorithm (algorithm mode) trains and serves only in the "
    "container",
    "callback": "the built-in algorithm's callbacks are not emulated",
    "distributed_gpu": "Dask multi-GPU training is not emulated",
    "dmlc_patch": "the container's patched Rabit tracker is not emulated (distributed.Rabit is)",
    "encoder": "inference request decoding (model serving) is not emulated",
    "handler_service": "model serving is not emulated",
    "metrics": "the built-in algorithm's custom metrics are not emulated",
    "mms_patch": "the multi-model server is not emulated",
    "prediction_utils": "the built-in algorithm's validation predictions are not emulated",
    "recordio_protobuf": "recordio-protobuf input is not emulated: sagelaunch local feeds File "
    "mode channels",
    "serving": "model serving is not emulated",
    "serving_mms": "model serving is not emulated",
    "training": "the container's training entry point is sagelaunch local's own",
}


def message(module: str, name: str, why: str | None = None) -> str:
    """The error's text: what is not emulated, why, and where to run the job instead."""
    part = module.split(".")[1] if "." in module else ""
    reason = why or WHY.get(part, "not part of what a script-mode script needs")
    return f"{module}.{name} is not emulated by sagelaunch local: {reason}; {ELSEWHERE}"


def function(module: str, name: str, why: str | None = None) -> Callable[..., NoReturn]:
    """A function that raises when called (so importing it works)."""

    def not_emulated(*args: Any, **kwargs: Any) -> NoReturn:
        raise NotImplementedError(message(module, name, why))

    not_emulated.__name__ = not_emulated.__qualname__ = name
    not_emulated.__module__ = module
    not_emulated.__doc__ = message(module, name, why)
    return not_emulated


def placeholder_class(
    module: str, name: str, exception: bool = False, why: str | None = None
) -> type:
    """A class that raises when it (or a subclass) is instantiated; subclassing it works, and an
    exception class stays one, so ``except`` clauses naming it still import and run."""

    def __new__(cls: type, *args: Any, **kwargs: Any) -> NoReturn:
        raise NotImplementedError(message(module, name, why))

    base = Exception if exception else object
    namespace = {"__new__": __new__, "__module__": module, "__doc__": message(module, name, why)}
    return type(name, (base,), namespace)


class _Value:
    """A module attribute whose value sagelaunch local does not work out: any use raises."""

    def __init__(self, module: str, name: str, why: str | None = None) -> None:
        self._text = message(module, name, why)

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise NotImplementedError(self._text)

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):  # protocols probing (copy, pickle, inspect) see no such
            raise AttributeError(attribute)
        self._refuse()

    def __repr__(self) -> str:
        return f"<not emulated: {self._text}>"

    __call__ = __getitem__ = __iter__ = __len__ = __contains__ = __str__ = _refuse
    __fspath__ = __bool__ = __int__ = __float__ = __index__ = _refuse


def value(module: str, name: str, why: str | None = None) -> Any:
    """A placeholder for a value the container computes at import (a path, a table)."""
    return _Value(module, name, why)


def logger(module: str) -> logging.Logger:
    """The module's logger, as the container's module makes one: logging works."""
    return logging.getLogger(module)


def environment(variable: str, default: str | None, cast: type | None = None) -> Any:
    """A setting the container's module reads from the environment at import, read the same."""
    found = os.getenv(variable, default)
    return cast(found) if cast is not None and found is not None else found

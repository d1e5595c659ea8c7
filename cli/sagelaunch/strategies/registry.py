"""The registered strategies, in the order the config schema lists them.

Everything outside strategies/ that depends on the strategy asks here: `of(config)` for a loaded
config, `get(name)`, `imported(...)` for a request, `owner_of(...)` for an estimator's
distribution dict, `distribution_union()` for the config model's ``distribution`` field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Union

from pydantic import Discriminator, Tag

from sagelaunch.strategies.base import ConfigView, Strategy
from sagelaunch.strategies.mpi import MpiStrategy
from sagelaunch.strategies.multi_worker_mirrored import MultiWorkerMirroredStrategy
from sagelaunch.strategies.none import NoStrategy
from sagelaunch.strategies.parameter_server import ParameterServerStrategy
from sagelaunch.strategies.pytorchddp import PytorchDdpStrategy
from sagelaunch.strategies.smddp import SmddpStrategy
from sagelaunch.strategies.smp import SmpStrategy
from sagelaunch.strategies.torchrun import TorchrunStrategy

if TYPE_CHECKING:
    from sagelaunch.strict import Strict

DEFAULT = NoStrategy.name

_REGISTERED: dict[str, Strategy] = {}


def register(strategy: Strategy) -> Strategy:
    if strategy.name in _REGISTERED:
        raise ValueError(f"strategy {strategy.name!r} is already registered")
    _REGISTERED[strategy.name] = strategy
    return strategy


for _strategy in (
    NoStrategy(),
    TorchrunStrategy(),
    SmddpStrategy(),
    SmpStrategy(),
    MpiStrategy(),
    ParameterServerStrategy(),
    MultiWorkerMirroredStrategy(),
    PytorchDdpStrategy(),
):
    register(_strategy)


def unregister(name: str) -> None:
    """Forget a strategy registered after the built-in ones (config.model.registered)."""
    del _REGISTERED[name]


def default_distribution() -> Strict:
    """A config's ``distribution`` when it has none: the default strategy's model."""
    return _REGISTERED[DEFAULT].model()


def strategies() -> list[Strategy]:
    return list(_REGISTERED.values())


def names() -> list[str]:
    return list(_REGISTERED)


def get(name: str) -> Strategy:
    return _REGISTERED[name]


def of(config: ConfigView) -> Strategy:
    """The strategy of a validated config."""
    return _REGISTERED[config.distribution.strategy]


def models() -> dict[str, type[Strict]]:
    return {name: strategy.model for name, strategy in _REGISTERED.items()}


def distribution_union() -> Any:
    """The config's ``distribution`` type: every strategy's model, told apart by ``strategy``
    (absent: none)."""
    members = tuple(Annotated[model, Tag(name)] for name, model in models().items())
    return Annotated[Union[members], Discriminator(_strategy_of)]  # noqa: UP007


def _strategy_of(data: Any) -> str:
    if isinstance(data, dict):
        return str(data.get("strategy", DEFAULT))
    return str(getattr(data, "strategy", DEFAULT))


def _by_priority() -> list[Strategy]:
    return sorted(_REGISTERED.values(), key=lambda strategy: strategy.priority)


def imported(hyperparameters: dict[str, Any], framework: str) -> dict[str, Any] | None:
    """The config's ``distribution`` for a request's (decoded) hyperparameters; None: none."""
    for strategy in _by_priority():
        found = strategy.imported(hyperparameters, framework)
        if found is not None:
            return found
    return None


def distributed(config: ConfigView) -> bool:
    """Whether the config's strategy passes the SDK a ``distribution``: without one the container
    starts the script as one plain process per host (the toolkit's ProcessRunner)."""
    return of(config).sdk_distribution(config) is not None


def uses_torch_distributed(config: ConfigView) -> bool:
    """Whether the request enables torch_distributed (torchrun in the container)."""
    return "torch_distributed" in (of(config).sdk_distribution(config) or {})


def sdk_hyperparameters(framework: str) -> set[str]:
    """The hyperparameters the SDK writes for the distributions of this framework's strategies."""
    owners = [s for s in _REGISTERED.values() if framework in s.frameworks]
    return {key for strategy in owners for key in strategy.sdk_hyperparameters}


def owner_of(distribution: dict[str, Any]) -> Strategy:
    """The strategy whose SDK ``distribution`` dict this is (none for an empty one)."""
    return next(s for s in _by_priority() if s.owns_distribution(distribution))

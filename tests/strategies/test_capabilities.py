"""Every registered strategy provides every capability (strategies/base.py CAPABILITIES), and they
agree with each other: what its SDK distribution says is recognised as its own again, its placement
names a launcher the container has, its rules are named functions. A strategy cannot be
half-added."""

from __future__ import annotations

from typing import get_args

import pytest

from sagelaunch.catalog import facts
from sagelaunch.config.model import LaunchConfig
from sagelaunch.errors import UsageError
from sagelaunch.strategies import registry
from sagelaunch.strategies.base import (
    CAPABILITIES,
    DECLARATIONS,
    MPIRUN,
    PYTHON,
    TORCHRUN,
    Strategy,
    V3Call,
)

STRATEGIES = registry.strategies()


def config_for(strategy: Strategy) -> LaunchConfig:
    """A minimal config of this strategy, on a GPU instance of a framework it runs."""
    framework = "pytorch" if "pytorch" in strategy.frameworks else sorted(strategy.frameworks)[0]
    versions: dict[str, str] = {"framework_version": "2.2.0"}
    if framework == "huggingface":
        versions = {"transformers_version": "4.36.0", "pytorch_version": "2.1.0"}
    return LaunchConfig.model_validate(
        {
            "name": "caps",
            "framework": framework,
            "entry_point": "train.py",
            **versions,
            "compute": {"instance_type": "ml.p4d.24xlarge", "instance_count": 2},
            "distribution": {"strategy": strategy.name},
        }
    )


def test_the_builtin_strategies_are_registered():
    assert registry.names() == [
        "none", "torchrun", "smddp", "smp", "mpi", "parameter_server", "multi_worker_mirrored",
        "pytorchddp",
    ]  # fmt: skip


@pytest.mark.parametrize("strategy", STRATEGIES, ids=registry.names())
def test_every_capability_is_provided(strategy):
    missing = [name for name in CAPABILITIES if name in type(strategy).__abstractmethods__]
    assert missing == []
    for name in DECLARATIONS:
        assert getattr(strategy, name) is not None
    assert isinstance(strategy.runs_deepspeed, bool) and isinstance(strategy.runs_horovod, bool)
    assert strategy.frameworks
    assert get_args(strategy.model.model_fields["strategy"].annotation) == (strategy.name,)


@pytest.mark.parametrize("strategy", STRATEGIES, ids=registry.names())
def test_the_capabilities_agree(strategy):
    config = config_for(strategy)
    assert registry.of(config) is strategy
    placed = strategy.placement(config, 8)
    assert placed.launcher in {PYTHON, TORCHRUN, MPIRUN} and placed.processes_per_host >= 1
    assert strategy.local_launcher(placed.launcher) in {PYTHON, TORCHRUN, MPIRUN}
    try:
        strategy.check_local(config)
    except UsageError as refusal:
        assert refusal.hint  # says what to run locally instead
    distribution = strategy.sdk_distribution(config) or {}
    assert registry.owner_of(distribution) is strategy  # export finds it again
    assert bool(distribution) == bool(strategy.sdk_hyperparameters)  # import maps them back
    try:
        exported = strategy.export_v3(distribution)
    except UsageError as refusal:
        assert "v3" in str(refusal)  # names what SDK v3 lacks
    else:
        assert exported is None or isinstance(exported, V3Call)
    assert all(callable(rule) and rule.__name__ for rule in strategy.rules())


def test_a_supplied_image_comes_from_the_dated_table():
    """PyTorch 2.3.0 is past the SDK's SMDDP list: only SMDDP needs an image sagelaunch knows."""
    images = facts.load("images")
    registries = {images[key] for key in images if key.endswith("registry")}
    supplied = {}
    for strategy in STRATEGIES:
        config = config_for(strategy).model_copy(update={"framework_version": "2.3.0"})
        found = strategy.supplied_image(config, images, "2.3.0")
        if found is not None:
            supplied[strategy.name] = found
    assert list(supplied) == ["smddp"]
    assert all(where in registries and tag for where, tag in supplied.values())


@pytest.mark.parametrize("strategy", STRATEGIES, ids=registry.names())
def test_a_request_without_distribution_hyperparameters_is_nobodys(strategy):
    assert strategy.imported({}, "pytorch") is None and strategy.imported({}, "tensorflow") is None


def test_a_half_added_strategy_cannot_be_made():
    class Half(Strategy):
        name = "half"
        frameworks = frozenset({"pytorch"})
        priority = 1

    with pytest.raises(TypeError, match="abstract"):
        Half()  # type: ignore[abstract]

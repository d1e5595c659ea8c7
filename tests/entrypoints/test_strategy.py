"""The PyTorch entry point's strategies: every parallelism mode maps to one, chosen once, and each
provides the whole contract the training loop relies on."""

from __future__ import annotations

import typing

import pytest


@pytest.fixture
def strategies(entrypoints_on_path):
    import torch_ckpt
    import torch_config
    import torch_strategy

    return torch_strategy, torch_config, torch_ckpt


def test_every_mode_has_a_strategy_chosen_once(strategies):
    torch_strategy, torch_config, _ = strategies
    chosen = {
        mode: torch_strategy.choose(torch_config.TrainConfig(parallel=mode)).name
        for mode in typing.get_args(torch_config.Parallel)
        if mode != "ps"  # its own process roles over RPC (torch_ps), before any mesh
    }
    assert chosen == {"ddp": "mesh", "fsdp": "mesh", "dp": "dp"}
    deepspeed = torch_config.TrainConfig(zero_stage=3)
    assert torch_strategy.choose(deepspeed) is torch_strategy.DEEPSPEED


def test_each_strategy_keeps_checkpoints_crash_safe(strategies):
    torch_strategy, _, torch_ckpt = strategies
    found = [v for v in vars(torch_strategy).values() if isinstance(v, torch_strategy.Strategy)]
    assert {s.name for s in found} == {"mesh", "dp", "deepspeed"}
    for strategy in found:
        assert issubclass(strategy.checkpointer, torch_ckpt.Checkpointer), strategy.name
        for part in (strategy.wrap, strategy.make_optimizer, strategy.train_step):
            assert callable(part), strategy.name


def test_a_process_group_only_where_the_strategy_needs_one(strategies):
    torch_strategy, torch_config, _ = strategies
    one_dim = torch_config.Layout(dp_shard=1, dp_replicate=2)
    ddp = torch_config.TrainConfig()
    assert not torch_strategy.needs_group(torch_strategy.MESH, ddp, one_dim)
    fsdp = torch_config.TrainConfig(parallel="fsdp")
    assert torch_strategy.needs_group(torch_strategy.MESH, fsdp, one_dim)
    assert torch_strategy.needs_group(torch_strategy.DEEPSPEED, ddp, one_dim)

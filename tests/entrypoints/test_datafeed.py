"""torch_datafeed in one process: who is a data host, and a data host's stream equals the batches
a rank builds itself (the TCP protocol end to end, on a free loopback port)."""

from __future__ import annotations

import json
import threading

import pytest

from sagelaunch.local.ports import free_port as _free_port


def _hetero_env(current: str, port: int) -> dict[str, str]:
    groups = {
        "data_group": {"hosts": ["algo-1"], "instance_group_name": "data_group"},
        "dnn_group": {"hosts": ["algo-2", "algo-3"], "instance_group_name": "dnn_group"},
    }
    return {
        "SM_IS_HETERO": "true",
        "SM_INSTANCE_GROUPS_DICT": json.dumps(groups),
        "SM_DISTRIBUTION_INSTANCE_GROUPS": '["dnn_group"]',
        "SM_CURRENT_HOST": current,
        "SAGELAUNCH_DATAFEED_ADDR": "127.0.0.1",
        "SAGELAUNCH_DATAFEED_PORTS": str(port),
    }


def test_topology_names_the_data_hosts(entrypoints_on_path):
    import torch_datafeed

    feed = torch_datafeed.topology(_hetero_env("algo-1", 4242))
    assert feed is not None and feed.is_data_host
    assert feed.data_hosts == ["algo-1"] and feed.endpoints == [("127.0.0.1", 4242)]
    trainer = torch_datafeed.topology(_hetero_env("algo-3", 4242))
    assert trainer is not None and not trainer.is_data_host
    assert torch_datafeed.topology({"SM_IS_HETERO": "false"}) is None
    on_sagemaker = {**_hetero_env("algo-2", 1), "SAGELAUNCH_DATAFEED_PORTS": ""}
    del on_sagemaker["SAGELAUNCH_DATAFEED_ADDR"]
    assert torch_datafeed.topology(on_sagemaker).endpoints == [("algo-1", 29650)]


@pytest.mark.parametrize("start", [0, 3])
def test_streamed_batches_equal_the_ranks_own(entrypoints_on_path, start):
    import torch

    import torch_data
    import torch_datafeed

    port = _free_port()
    dataset = torch_data.SyntheticTokens(seed=5, num_samples=64, seq_len=8, vocab_size=32)
    feed = torch_datafeed.topology(_hetero_env("algo-1", port))

    class Cfg:
        data_augment_cost = 1

    server = threading.Thread(target=torch_datafeed.serve, args=(Cfg, feed, lambda: dataset))
    server.start()
    env = _hetero_env("algo-2", port)
    try:
        for rank in (0, 1):
            plan = torch_data.BatchPlan(5, batch_size=2, grad_accum=2, rank=rank, world_size=2)
            remote = torch_datafeed.batches(Cfg, env, plan, lambda: 1 / 0, rank, 2)
            own = torch_data.Batches(dataset, plan)
            assert len(remote.dataset) == 64 and remote.epoch_of(20) == own.epoch_of(20)
            for step in range(start, start + 3):
                for micro in (0, 1):
                    got, want = remote.get(step, micro), own.get(step, micro)
                    assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])
            remote.close()
    finally:
        server.join(timeout=30)
    assert not server.is_alive(), "the data host exits once its ranks have disconnected"

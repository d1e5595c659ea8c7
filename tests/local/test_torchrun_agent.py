"""torchrun's exit barrier without its race: the agent that serves the rendezvous store (group
rank 0) leaves only after every agent has said it left torch's barrier, so no agent is left
talking to a store that is gone (torchrun_agent.py says how the race shows). Real TCPStores on
loopback, as the agents' own."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from types import SimpleNamespace

from sagelaunch.local import ports, torchrun_agent


def _agent(store, rank: int, world: int) -> SimpleNamespace:
    return SimpleNamespace(
        _store=store, _worker_group=SimpleNamespace(group_rank=rank, group_world_size=world)
    )


def test_the_store_host_leaves_after_every_other_agent():
    from torch.distributed import TCPStore

    port = ports.free_port()
    timeout = timedelta(seconds=30)
    server = TCPStore("127.0.0.1", port, 2, True, timeout, wait_for_workers=False)
    client = TCPStore("127.0.0.1", port, 2, False, timeout)
    left = threading.Event()

    def store_host() -> None:
        torchrun_agent.leave_last_if_serving(_agent(server, rank=0, world=2))
        left.set()

    thread = threading.Thread(target=store_host, daemon=True)
    thread.start()
    time.sleep(0.3)  # long enough for a host that does not wait to have left
    assert not left.is_set()  # still serving: the other agent has not said it left
    torchrun_agent.leave_last_if_serving(_agent(client, rank=1, world=2))
    assert left.wait(10)
    assert server.add(torchrun_agent.LEFT_KEY, 0) == 2


def test_an_agent_that_is_not_the_store_host_leaves_at_once():
    from torch.distributed import TCPStore

    port = ports.free_port()
    server = TCPStore("127.0.0.1", port, 1, True, timedelta(seconds=30), wait_for_workers=False)
    started = time.monotonic()
    torchrun_agent.leave_last_if_serving(_agent(server, rank=1, world=2))
    assert time.monotonic() - started < torchrun_agent.LEAVE_TIMEOUT_S
    assert server.add(torchrun_agent.LEFT_KEY, 0) == 1


def test_the_barrier_is_wrapped_in_torchs_agent():
    from torch.distributed.elastic.agent.server import api

    original = api.SimpleElasticAgent._exit_barrier
    try:
        torchrun_agent._close_the_exit_barrier_race()
        assert api.SimpleElasticAgent._exit_barrier is not original
    finally:
        api.SimpleElasticAgent._exit_barrier = original  # type: ignore[method-assign]

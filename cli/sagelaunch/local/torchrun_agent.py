"""torchrun as the container runs it, with the race at its exit barrier closed.

Run by path in each host's processes (``python torchrun_agent.py ARGS`` takes torchrun's own
arguments; warm.py calls ``main`` in an agent started early). It imports only the standard
library and torch, never sagelaunch.

The race: at the end every host's agent meets the others at torch's exit barrier, on the
rendezvous store that the first host's agent serves in its own process. When the first host
arrives last, it sets the barrier's last key and exits at once, taking the store with it, while
another host's agent may still be waiting for that key: it gets "Failed to recv ... Did the remote
server shutdown or crash?" and about 30 lines of c10::Error and a traceback, in a run that
succeeded (1 run in 6 on two hosts here). The same can happen between SageMaker's instances.
Here, after torch's barrier, every agent says it has left it, and the store's host (group rank 0)
waits for all of them before it exits: nobody is left talking to a store that is gone.
"""

from __future__ import annotations

import sys
import time
from typing import Any

LEFT_KEY = "sagelaunch/agents-left-exit-barrier"
# How long the store's host waits for the others to say they left: they are past torch's own
# barrier, so each is one store request away; a host that died meanwhile costs no more than this.
LEAVE_TIMEOUT_S = 30.0
_LOOK_EVERY_S = 0.01


def main(argv: list[str]) -> None:
    from torch.distributed import run

    _close_the_exit_barrier_race()
    sys.argv = [run.__file__, *argv]
    run.main(argv)


def _close_the_exit_barrier_race() -> None:
    """Wrap the agent's exit barrier (left alone where a torch version has none)."""
    from torch.distributed.elastic.agent.server import api

    barrier = getattr(api.SimpleElasticAgent, "_exit_barrier", None)
    if barrier is None:
        return

    def exit_barrier(agent: Any) -> None:
        barrier(agent)
        leave_last_if_serving(agent)

    api.SimpleElasticAgent._exit_barrier = exit_barrier  # type: ignore[method-assign]


def leave_last_if_serving(agent: Any) -> None:
    """Say this agent has left the barrier; the store's host then waits for every agent."""
    try:
        store, group = agent._store, agent._worker_group
        store.add(LEFT_KEY, 1)
        if group.group_rank != 0:
            return
        deadline = time.monotonic() + LEAVE_TIMEOUT_S
        while store.add(LEFT_KEY, 0) < group.group_world_size and time.monotonic() < deadline:
            time.sleep(_LOOK_EVERY_S)
    except Exception:  # the run's outcome is decided: this only orders the exits
        return


if __name__ == "__main__":
    main(sys.argv[1:])

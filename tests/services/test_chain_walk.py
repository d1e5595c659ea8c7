"""The failover walk itself (services/chain_walk.py), as submit and a sweep's trials share it:
which attempt comes next, what a region-bound walk passes over, which endings move it on. The
walks against SageMaker (moto) are tests/aws/test_failover.py and test_sweep_failover.py."""

from __future__ import annotations

from sagelaunch.config.model import Compute, Fallback
from sagelaunch.services.chain_walk import ChainWalk, Passed, moves_on

CHAIN = [
    Fallback(instance_type="ml.g5.2xlarge"),
    Fallback(instance_type="ml.g5.4xlarge", region="us-west-2"),
    Fallback(instance_type="ml.g5.8xlarge", region="us-east-1"),
]


def test_a_walk_unbound_to_a_region_runs_every_alternative_in_order():
    walk = ChainWalk(CHAIN, key="ci-7")
    assert [n for n, _ in walk.alternatives()] == [0, 1, 2, 3]
    assert walk.next_after(1) == (2, CHAIN[1], [])
    assert walk.next_after(3) is None
    assert [walk.key_for(n) for n in (0, 2)] == ["ci-7/attempt-0", "ci-7/attempt-2"]
    assert ChainWalk(CHAIN).key_for(1) is None  # no key: each submit names its own jobs


def test_a_walk_bound_to_its_region_passes_over_the_others_and_says_why():
    walk = ChainWalk(CHAIN, key="sweep", region="us-east-1")
    number, alternative, passed = walk.next_after(1) or (None, None, None)
    assert (number, alternative) == (3, CHAIN[2])
    assert passed == [Passed(2, "region: a sweep runs in one region (us-east-1), not us-west-2")]
    assert ChainWalk(CHAIN[:2], region="us-east-1").next_after(1) is None


def test_a_spot_config_ends_its_chain_with_an_on_demand_rerun():
    compute = Compute(
        instance_type="ml.g5.xlarge",
        spot={"max_wait": 7200, "fallback_after": 2},
        fallback=[{"instance_type": "ml.g5.2xlarge"}],
    )
    walk = ChainWalk.of(compute)
    assert [f.on_demand for f in walk.fallbacks] == [False, True]
    assert not ChainWalk.of(Compute(instance_type="ml.g5.xlarge"))  # no chain at all


def test_only_capacity_spot_and_quota_endings_move_the_chain_on():
    moving = ["capacity: CapacityError: …", "spot: interrupted 3 times", "quota: ml.g5 …"]
    assert all(moves_on(reason) for reason in moving)
    assert not any(moves_on(r) for r in ["code: AlgorithmError: boom", "Completed", "Stopped"])

"""The communication model's rules that the calibration rows alone would not pin down."""

from __future__ import annotations

import pytest

from sagelaunch.recommend import comms, hardware
from sagelaunch.recommend.memory import Sharding, distributed_optimizer
from sagelaunch.recommend.workload import Workload, estimate_shape

WORK = Workload(params=7_000_000_000, shape=estimate_shape(7e9), seq_len=4096, micro_batch=2)
P4DE = hardware.for_instance("ml.p4de.24xlarge")
HSDP = Sharding(weights_over=8, gradients_over=8, optimizer_over=8)  # shard 8 × 16 replicas


def test_hybrid_shard_all_reduces_each_unit_under_the_backward_still_to_come():
    """HSDP all-reduces a unit's gradient shard across replicas as soon as its reduce-scatter
    ends (FSDP's post-backward hook): a backward long enough hides all but the last unit's."""
    world = 128
    ample = comms.step_comms(WORK, HSDP, P4DE, world, forward_s=100.0, backward_s=100.0)
    none = comms.step_comms(WORK, HSDP, P4DE, world, forward_s=0.0, backward_s=0.0)
    assert ample.data_parallel_s == none.data_parallel_s > 0
    # hidden: only the first unit's gather and the last unit's all-reduce stay exposed
    assert ample.data_parallel_exposed_s < ample.data_parallel_s / WORK.shape.layers
    # nothing to hide behind: every collective is exposed
    assert none.data_parallel_exposed_s >= none.data_parallel_s


def test_gradients_go_over_the_wire_as_they_reduce():
    fp32 = Sharding()
    assert fp32.gradient_reduce_bytes == 4  # autocast over fp32 weights
    assert Sharding(bf16_reduce=True).gradient_reduce_bytes == 2  # FSDP reduce_dtype bf16
    neuron = Sharding(optimizer_over=64, eager_autocast=False)  # bf16 weights and gradients
    assert neuron.gradient_reduce_bytes == 2
    megatron = Sharding(optimizer_over=64, eager_autocast=False, fp32_gradients=True)
    assert megatron.gradient_reduce_bytes == 4  # grad_reduce_in_fp32
    entry_point = distributed_optimizer(Sharding(tensor_parallel=2), 64, "bf16")
    assert entry_point.gradient_reduce_bytes == 4  # --zero1's fp32 gradient buffers

    def scatter_s(sharding: Sharding) -> float:
        return comms.step_comms(WORK, sharding, P4DE, 64, 0.0, 0.0).data_parallel_s

    # ZeRO-1: the reduce-scatter halves in bf16, the all-gather of bf16 weights is the same
    gather = comms.ring("all_gather", WORK.params * 2, 64, *comms.group_link(P4DE, 64, 1)[:2])
    assert scatter_s(neuron) - gather == pytest.approx((scatter_s(megatron) - gather) / 2, 1e-3)


def test_trainium_tensor_parallel_rings_over_the_chips_of_its_torus_cycles():
    """A TP group on trn1 holds both NeuronCores of each of its chips: Neuron reduces them on the
    chip and rings over the chips (KangaRing) on cycles of links no two share. All 16 chips: two
    Hamiltonian cycles, all 4 links; 8 or 4 chips: one cycle, 2 links; 2 chips: their 1 link; one
    chip: no NeuronLink at all, the per-rank figure as before."""
    trn1 = hardware.for_instance("ml.trn1.32xlarge")
    assert (trn1.ranks_per_accelerator, trn1.torus_links, trn1.ranks_per_host) == (2, 4, 32)
    link = trn1.intra_bytes_per_s * 2 / 4  # one NeuronLink of a chip, at the link efficiency
    nbytes = 1e9

    def all_reduce_s(tp: int) -> float:
        bandwidth, latency, _ = comms.group_link(trn1, tp, 1)
        return comms.ring("all_reduce", nbytes, tp, bandwidth, latency) - latency

    for tp, chips, links in ((32, 16, 4), (16, 8, 2), (8, 4, 2), (4, 2, 1)):
        ring_over_chips = 2 * (chips - 1) / chips * nbytes / (links * link)
        assert all_reduce_s(tp) == pytest.approx(ring_over_chips), tp
    assert all_reduce_s(2) == pytest.approx(nbytes / trn1.intra_bytes_per_s)
    # TP 32 moves a TP 8's bytes in less time: the whole torus against one of its rings
    assert all_reduce_s(32) < all_reduce_s(8) < all_reduce_s(4)
    # data-parallel groups strided by TP, and GPUs behind a switch, are as they were
    assert comms.group_link(trn1, 4, 8)[0] == trn1.intra_bytes_per_s
    p5 = hardware.for_instance("ml.p5.48xlarge")
    assert p5.torus_links == 0 and comms.group_link(p5, 8, 1)[0] == p5.intra_bytes_per_s

"""Communication per step for one layout: which collectives run, over which link, and how much
of each the compute around it hides.

Ring collectives (NCCL's and Neuron's): an all-reduce moves 2(n-1)/n of the buffer through each
rank, an all-gather or reduce-scatter (n-1)/n. A group inside one instance runs at the
instance's link (NVSwitch, PCIe, NeuronLink; interconnect.json); a group across instances at
the instance's network, which every group with ranks on that instance shares: a data-parallel
group strided by TP gets 1/TP of it. On a 2D torus of chips (Trainium) a TP group's rings run
over its chips on as many links as its cycles use (`torus_bandwidth`). Each collective adds a
launch latency.

What overlaps (Narayanan et al. 2021; the FSDP2 and DDP designs):
* DDP all-reduces gradients in 25 MB buckets while backward runs: only what backward of the last
  micro-batch cannot hide is exposed, plus the last bucket.
* FSDP / ZeRO-3 all-gather each unit's weights ahead of use (prefetch) in forward and again in
  backward, and reduce-scatter gradients during backward: exposed is what outlasts the compute of
  its phase, plus the first unit's all-gather. HSDP adds an all-reduce of each unit's shard
  across replicas right after its reduce-scatter, once per step (in the last micro-batch's
  backward), hidden by the backward still to come but for the last unit's.
* ZeRO-1 reduce-scatters gradients (as DDP, hidden by backward) and all-gathers the updated
  weights after the optimizer step (exposed).
* Tensor parallelism all-reduces the activations twice per block in forward and twice in
  backward (all-gather + reduce-scatter with sequence parallelism: the same bytes), on the
  critical path; full checkpointing repeats the forward's two, torchtitan's per-op selective
  checkpointing its all-gathers.
* Pipeline stages (one per instance here) send activations forward and gradients back per
  micro-batch over the network.
"""

from __future__ import annotations

from dataclasses import dataclass

from sagelaunch.recommend.hardware import Hardware
from sagelaunch.recommend.memory import Sharding, local_params, stage_share
from sagelaunch.recommend.workload import Workload

DDP_BUCKET_BYTES = 25 * 2**20  # torch DDP's bucket_cap_mb
LATENCY_INTRA_S = 15e-6  # one collective inside an instance
LATENCY_INTER_S = 40e-6  # one collective across instances


@dataclass(frozen=True)
class Comms:
    """Seconds per optimizer step of one rank: each collective family's total and exposed part."""

    data_parallel_s: float  # gradient reduction and weight gathers (DDP, FSDP, ZeRO)
    data_parallel_exposed_s: float
    tensor_parallel_s: float  # all exposed
    pipeline_s: float  # point-to-point, all exposed
    link: str  # where the data-parallel collectives run

    @property
    def total_s(self) -> float:
        return self.data_parallel_s + self.tensor_parallel_s + self.pipeline_s

    @property
    def exposed_s(self) -> float:
        return self.data_parallel_exposed_s + self.tensor_parallel_s + self.pipeline_s


def ring(kind: str, nbytes: float, ranks: int, bandwidth: float, latency: float) -> float:
    """Seconds of one ring collective over `ranks`: kind all_reduce, all_gather, reduce_scatter."""
    if ranks <= 1 or nbytes <= 0:
        return 0.0
    factor = 2 if kind == "all_reduce" else 1
    return factor * (ranks - 1) / ranks * nbytes / max(bandwidth, 1.0) + latency


def group_link(hw: Hardware, ranks: int, stride: int) -> tuple[float, float, str]:
    """(bytes/s, latency, name) of a group of `ranks` spaced `stride` apart in rank order."""
    if ranks * stride <= hw.ranks_per_host:
        if hw.torus_links and stride == 1 and ranks > hw.ranks_per_accelerator:
            return torus_bandwidth(hw, ranks), LATENCY_INTRA_S, hw.intra_link
        return hw.intra_bytes_per_s or hw.inter_bytes_per_s, LATENCY_INTRA_S, hw.intra_link
    network = hw.inter_bytes_per_s / max(1, min(stride, hw.ranks_per_host))
    inside = hw.intra_bytes_per_s or network
    name = "EFA" if hw.efa else "TCP network"
    return min(inside, network), LATENCY_INTER_S, name


def torus_bandwidth(hw: Hardware, ranks: int) -> float:
    """What `ring` should see for a group of consecutive ranks holding whole accelerators of a 2D
    torus (a Trainium TP group). Neuron reduces a chip's ranks on the chip and rings over the
    chips (KangaRing), on cycles of links no two share: two Hamiltonian cycles, every link, when
    the group holds all of the instance's chips; one cycle, two links, on fewer; the one link
    between a pair of chips (interconnect.json's torus source). So a ring over `chips` at that
    many links, given as the per-rank bandwidth that moves the same bytes over `ranks`."""
    chips = ranks // hw.ranks_per_accelerator
    every = hw.ranks_per_host // hw.ranks_per_accelerator
    links = hw.torus_links if chips == every else 2 if chips > 2 else 1
    chip = hw.intra_bytes_per_s * hw.ranks_per_accelerator * links / hw.torus_links
    return chip * (ranks - 1) / ranks * chips / (chips - 1)


def step_comms(
    workload: Workload,
    sharding: Sharding,
    hw: Hardware,
    world: int,
    forward_s: float,
    backward_s: float,
) -> Comms:
    """The collectives of one optimizer step; `forward_s` and `backward_s` are one micro-batch's
    compute (what hides them). `world` counts ranks over every instance. One family each: the
    data-parallel group's (sharded, ZeRO-1 or DDP), the tensor-parallel group's, the pipeline's."""
    tp, pp = sharding.tensor_parallel, sharding.pipeline_parallel
    dp = max(1, world // (tp * pp))
    step = _Step(workload, sharding, hw, forward_s, backward_s)
    dp_total, dp_exposed, link = _data_parallel(step, dp) if dp > 1 else (0.0, 0.0, "none")
    tp_s = _tensor_parallel(step) if tp > 1 else 0.0
    pp_s = _pipeline(step) if pp > 1 else 0.0
    return Comms(dp_total, dp_exposed, tp_s, pp_s, link)


@dataclass(frozen=True)
class _Step:
    """What every collective family of a step reads: the workload, its layout, the hardware,
    one micro-batch's forward and backward compute (what hides them)."""

    workload: Workload
    sharding: Sharding
    hw: Hardware
    forward_s: float
    backward_s: float

    @property
    def params(self) -> float:
        return local_params(self.workload, self.sharding)

    @property
    def width(self) -> int:
        return 4 if self.workload.precision == "fp32" else 2

    @property
    def tokens(self) -> int:
        return self.workload.seq_len * self.workload.micro_batch


def _data_parallel(step: _Step, dp: int) -> tuple[float, float, str]:
    """(total, exposed, link) of the data-parallel group's collectives."""
    bandwidth, latency, link = group_link(step.hw, dp, step.sharding.tensor_parallel)
    if step.sharding.weights_over > 1:
        return _sharded(step, dp)
    if step.sharding.optimizer_over > 1:
        return (*_zero1(step, dp, bandwidth, latency), link)
    return (*_ddp(step, dp, bandwidth, latency), link)


def _sharded(step: _Step, dp: int) -> tuple[float, float, str]:
    """FSDP / ZeRO-3 (HSDP: shard within a group, replicate across)."""
    workload, sharding, hw = step.workload, step.sharding, step.hw
    tp, shard, micro = sharding.tensor_parallel, sharding.weights_over, workload.grad_accum
    params, grad_bytes, layers = step.params, sharding.gradient_reduce_bytes, workload.shape.layers
    s_bw, s_lat, link = group_link(hw, shard, tp)
    gather = ring("all_gather", params * step.width, shard, s_bw, s_lat * layers)
    scatter = ring("reduce_scatter", params * grad_bytes, shard, s_bw, s_lat * layers)
    units = max(1, layers)
    first_unit = gather / units
    replicas = dp // shard
    r_bw, r_lat, _ = group_link(hw, replicas, tp * shard)
    replicate = ring("all_reduce", params * grad_bytes / shard, replicas, r_bw, r_lat)

    def backward_exposed(reduce: float) -> float:
        """What a backward that gathers, reduce-scatters and then all-reduces `reduce`
        seconds over the replicas cannot hide: HSDP all-reduces each unit's shard as
        soon as its reduce-scatter ends (FSDP2's foreach_reduce on its all-reduce stream,
        torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py; FSDP1's post-backward
        hook, fsdp/_runtime_utils.py), so all but the last unit's all-reduce runs under
        the backward still to come."""
        hidden = max(0.0, gather + scatter + reduce - step.backward_s)
        return hidden + first_unit + reduce / units

    if sharding.pipeline_parallel > 1:
        # with a pipeline the weights stay gathered over the step's micro-batches
        # (torchtitan: no reshard after forward) and gradients reduce once
        return gather + scatter + replicate, backward_exposed(replicate), link
    # the replicas all-reduce once per step, in the last micro-batch's backward
    total = micro * (2 * gather + scatter) + replicate
    forward_exposed = max(0.0, gather - step.forward_s)
    exposed = (
        micro * forward_exposed + (micro - 1) * backward_exposed(0.0) + backward_exposed(replicate)
    )
    return total, exposed, link


def _zero1(step: _Step, dp: int, bandwidth: float, latency: float) -> tuple[float, float]:
    """ZeRO-1: reduce-scatter, step, all-gather."""
    sharding = step.sharding
    scatter = ring(
        "reduce_scatter", step.params * sharding.gradient_reduce_bytes, dp, bandwidth, latency
    )
    # the weights as they are kept: bf16 beside an fp32 master, else fp32
    kept = step.width if sharding.bf16_states else 4
    gather = ring("all_gather", step.params * kept, dp, bandwidth, latency)
    return scatter + gather, max(0.0, scatter - step.backward_s) + gather


def _ddp(step: _Step, dp: int, bandwidth: float, latency: float) -> tuple[float, float]:
    """DDP: bucketed all-reduce overlapped with the last micro-batch's backward."""
    grads = step.params * step.sharding.gradient_reduce_bytes
    reduce = ring("all_reduce", grads, dp, bandwidth, latency)
    last_bucket = ring("all_reduce", DDP_BUCKET_BYTES, dp, bandwidth, latency)
    return reduce, max(0.0, reduce - step.backward_s) + min(reduce, last_bucket)


def _tensor_parallel(step: _Step) -> float:
    """The tensor-parallel group's all-reduces (or their reduce-scatter/all-gather pairs)."""
    workload, sharding = step.workload, step.sharding
    tp = sharding.tensor_parallel
    t_bw, t_lat, _ = group_link(step.hw, tp, 1)
    # full checkpointing repeats the forward's two; the per-op policy saves reduce-scatter
    # outputs and not all-gathers, so it repeats the forward's two all-gathers (one
    # all-reduce's bytes), or without sequence parallelism the attention's all-reduce
    per_block = 4 + (2 if workload.full_checkpointing else 0)
    per_block += 1 if workload.op_checkpointing else 0
    blocks = workload.shape.layers * stage_share(workload, sharding)
    one = ring("all_reduce", step.tokens * workload.shape.hidden * step.width, tp, t_bw, t_lat)
    # the token embedding split by vocabulary all-reduces its output (the first stage's);
    # a vocabulary-parallel head (--loss_parallel) its input's gradient
    ends = (1 if sharding.eager_autocast else 0) + (1 if sharding.loss_parallel else 0)
    return workload.grad_accum * (per_block * blocks + ends) * one


def _pipeline(step: _Step) -> float:
    """The pipeline's point-to-point activation sends, forward and backward."""
    workload, sharding, hw = step.workload, step.sharding, step.hw
    per_rank = hw.inter_bytes_per_s / hw.ranks_per_host
    divisor = sharding.tensor_parallel if sharding.sequence_parallel else 1
    activation = step.tokens * workload.shape.hidden * step.width / divisor
    return workload.grad_accum * 2 * (activation / max(per_rank, 1.0) + LATENCY_INTER_S)

"""One rank of an instance type, the one value every reader of the recommender takes from the
catalog: what it holds (memory, as CUDA reports it), computes and moves per second (peaks from
instances.json, links from interconnect.json inside an instance and the instance's network
between them), and what the layouts ask of the instance (SMP v2, EFA, host memory for offload);
the fractions of the peaks real kernels reach are `steptime`'s efficiency curve."""

from __future__ import annotations

from dataclasses import dataclass

from sagelaunch.catalog import facts

# NCCL's bus bandwidth as a share of the link's (nccl-tests on NVSwitch and EFA reach 75-85%).
LINK_EFFICIENCY = 0.80
GIB = 2**30
# The model already carries the allocator's share (memory.py's "other": 1.5 GB and 10% of the rest
# for fragmentation and backward's transients; on one H100 the allocator's steady peak was within
# 3% of the model's tensors alone, docs/guide/performance.md), so a layout fits within the whole
# device: a second margin (90%, until 2026-11) called 6 of the 35 published layouts that ran
# (tests/recommend/data) over the usable memory, and ranked them below layouts nobody ran.
HEADROOM = 1.0


def accelerator_memory_gb(known: dict) -> float:
    """One accelerator's memory in GB of 10^9 bytes, the unit of the memory model: what CUDA
    reports as the device's total (instances.json `cuda_memory_gib`: an "80 GB" H100 holds 79.11
    GiB = 84.9 GB), else the catalog's nominal figure (Trainium)."""
    cuda = known.get("cuda_memory_gib")
    if cuda:
        return float(cuda) * GIB / 1e9
    return float(known.get("accelerator_memory_gb", 0))


@dataclass(frozen=True)
class Hardware:
    """Per rank (a GPU, or a NeuronCore with its share of the chip)."""

    accelerator: str
    ranks_per_host: int
    bf16_flops: float  # dense peak, FLOP/s
    fp8_flops: float  # dense fp8 peak (= bf16 where there are no fp8 units)
    hbm_bytes_per_s: float
    memory_gb: float
    intra_bytes_per_s: float  # the link inside an instance, each direction, per rank
    inter_bytes_per_s: float  # the instance's network, all of it (what a ring across hosts gets)
    intra_link: str
    efa: bool
    ranks_per_accelerator: int = 1  # NeuronCores on one Trainium chip
    torus_links: int = 0  # each accelerator's links into a 2D torus (0: a switch or PCIe)
    instance_type: str = ""
    kind: str = "gpu"  # or "trainium"
    network_gbps: float = 0.0
    smp_v2: bool = False  # SMP v2 runs on this instance type (instances.json smp_v2_supported)
    host_memory_gb: float = 0.0  # the instance's RAM, GB of 10^9 bytes (DeepSpeed's CPU offload)
    measured: bool = True  # memory_gb is what CUDA reports, not the datasheet's nominal figure

    @property
    def neuron(self) -> bool:
        return self.accelerator.startswith("Trainium")

    @property
    def usable_gb(self) -> float:
        return HEADROOM * self.memory_gb

    @property
    def rank_name(self) -> str:
        return "NeuronCore" if self.kind == "trainium" else "GPU"


def for_instance(
    instance_type: str,
    memory_gb: float | None = None,
    hbm_gb_per_s: float | None = None,
    network_gbps: float | None = None,
    bf16_tflops: float | None = None,
    fp8_tflops: float | None = None,
) -> Hardware:
    """The catalog's figures; the optional arguments replace them (another cluster's own)."""
    known = facts.instance(instance_type) or {}
    link = facts.interconnect(instance_type)
    ranks = facts.accelerators_per_host(instance_type)
    share = known.get("accelerators", 1) / ranks  # a NeuronCore's share of its chip
    bf16 = (bf16_tflops or known.get("bf16_tflops") or 1) * 1e12 * share
    fp8 = fp8_tflops or known.get("fp8_tflops")
    gbps = network_gbps if network_gbps is not None else known.get("network_gbps", 0)
    per_chip_memory = accelerator_memory_gb(known) * share
    return Hardware(
        accelerator=str(known.get("accelerator", "?")),
        ranks_per_host=ranks,
        bf16_flops=bf16,
        fp8_flops=fp8 * 1e12 * share if fp8 else bf16,
        hbm_bytes_per_s=(hbm_gb_per_s or known.get("hbm_gb_per_s") or 1) * 1e9 * share,
        memory_gb=memory_gb * share if memory_gb else per_chip_memory,
        intra_bytes_per_s=link.get("intra_gb_per_s", 0) * 1e9 * share * LINK_EFFICIENCY,
        inter_bytes_per_s=float(gbps) / 8 * 1e9 * LINK_EFFICIENCY,
        intra_link=str(link.get("intra_link", "none")),
        efa=bool(known.get("efa")),
        ranks_per_accelerator=max(1, ranks // max(1, known.get("accelerators", 1))),
        torus_links=int(link.get("torus_links", 0)),
        instance_type=instance_type,
        kind=str(known.get("kind", "gpu")),
        network_gbps=float(gbps),
        smp_v2=instance_type in facts.library_instances("smp_v2_supported"),
        host_memory_gb=float(known.get("memory_gib", 0)) * GIB / 1e9,
        measured="cuda_memory_gib" in known,
    )

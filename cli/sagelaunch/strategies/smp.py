"""``smp`` (smdistributed.modelparallel): v2 is torchrun + FSDP in the SMP image, v1 an mpirun
pipeline in the framework image."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from sagelaunch import hyperparameters as codec
from sagelaunch.catalog import facts
from sagelaunch.errors import UsageError
from sagelaunch.strategies.base import (
    MPI_HYPERPARAMETERS,
    MPIRUN,
    TORCH_DISTRIBUTED_HYPERPARAMETER,
    TORCHRUN,
    ConfigView,
    DistributionGroups,
    LoadedView,
    Placement,
    Strategy,
    V3Call,
    mpi_distribution,
    mpi_enabled,
    mpi_imported,
    offered,
)
from sagelaunch.strict import Strict

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sagelaunch.errors import Problem
    from sagelaunch.strategies.base import Rule

NAME = "smp"

# SMP v2 parameters v3's `SMP` model accepts (it forbids any other key).
V3_FIELDS = frozenset(
    {
        "hybrid_shard_degree",
        "sm_activation_offloading",
        "activation_loading_horizon",
        "fsdp_cache_flush_warnings",
        "allow_empty_shards",
        "tensor_parallel_degree",
        "context_parallel_degree",
        "expert_parallel_degree",
        "random_seed",
    }
)


class Smp(Strict):
    version: Literal[1, 2] = Field(
        2, description="2: torchrun + FSDP (SMP v2, default); 1: MPI pipeline parallelism."
    )
    parameters: dict[str, Any] = Field(
        default_factory=dict,
        description="SMP parameters (v2: hybrid_shard_degree, tensor_parallel_degree, ...; "
        "v1: partitions, microbatches, pipeline, placement_strategy, ...).",
    )


class SmpDistribution(DistributionGroups, Strict):
    """SageMaker model parallelism: v2 (torchrun + FSDP) or v1 (mpirun pipeline)."""

    strategy: Literal["smp"] = Field(description="smp (smdistributed.modelparallel).")
    smp: Smp | None = Field(None, description="SMP version and parameters.")
    processes_per_host: int | None = Field(
        None, ge=1, description="SMP v1: MPI processes per host (default: one per GPU)."
    )
    custom_mpi_options: str = Field("", description="SMP v1: extra mpirun options.")


def version(config: ConfigView) -> int | None:
    """1 or 2 for strategy smp (2 by default), else None."""
    distribution = config.distribution
    if not isinstance(distribution, SmpDistribution):
        return None
    return distribution.smp.version if distribution.smp else 2


def is_v2(config: ConfigView) -> bool:
    return version(config) == 2


def imported_v2(distribution: dict[str, Any]) -> bool:
    """Whether an imported config's ``distribution`` (plain data) is SMP v2."""
    return distribution.get("strategy") == SmpStrategy.name and distribution["smp"]["version"] == 2


_SMP_V1_CHOICES = {
    "pipeline": ["simple", "interleaved", "_only_forward"],
    "placement_strategy": ["spread", "cluster"],
    "optimize": ["speed", "memory"],
}
_SMP_V1_POSITIVE = ("microbatches", "partitions", "active_microbatches")
_SMP_V1_BOOLS = ("auto_partition", "contiguous", "load_partition", "horovod", "ddp")


def smp_v2_instance_type(loaded: LoadedView) -> Iterator[Problem]:
    """The SMP v2 library supports only the instance types AWS lists (SMP v2 docs, "Supported
    frameworks and AWS Regions"); the SDK does not check, and the job fails at tsm.init()."""
    config = loaded.config
    if version(config) != 2:
        return
    supported = facts.library_instances("smp_v2_supported")
    if config.compute.instance_type not in supported:
        yield loaded.problem(
            ("compute", "instance_type"),
            f"the SMP v2 library supports only {offered(supported)} (AWS SMP v2 docs), not "
            f"{config.compute.instance_type}; use strategy: torchrun with FSDP elsewhere",
        )


def smp_v2_is_pytorch(loaded: LoadedView) -> Iterator[Problem]:
    """SMP v2 is torch.sagemaker under torchrun; the TensorFlow container runs SMP v1 only (the
    SDK's TensorFlow estimator takes smdistributed.modelparallel with mpi)."""
    config = loaded.config
    if config.framework == "tensorflow" and is_v2(config):
        yield loaded.problem(
            ("distribution", "smp", "version"),
            "SMP v2 is PyTorch's (torch.sagemaker); TensorFlow runs SMP v1 (smp.version: 1)",
        )


def smp_v1_parameters(loaded: LoadedView) -> Iterator[Problem]:
    """The SDK validates SMP v1 parameters (fw_utils.validate_mp_config) and refuses SMP v1 on
    p5 instances; the library needs partitions to divide the world size."""
    config = loaded.config
    if version(config) != 1:
        return
    params = config.distribution.smp.parameters if config.distribution.smp else {}
    at = ("distribution", "smp", "parameters")
    yield from _smp_v1_values(loaded, params, at)
    if "p5.48xlarge" in config.compute.instance_type:
        yield loaded.problem(
            ("compute", "instance_type"),
            "the SDK refuses SMP v1 on p5 instances; use SMP v2 (smp.version: 2)",
        )
    partitions = params.get("partitions")
    if "pipeline" in params and not partitions:
        yield loaded.problem(at, "pipeline parallelism needs partitions (number of stages)")
    procs = config.distribution.processes_per_host or facts.accelerators_per_host(
        config.compute.instance_type
    )
    world = procs * config.compute.instance_count
    if isinstance(partitions, int) and partitions > 0 and world % partitions:
        yield loaded.problem(
            (*at, "partitions"),
            f"partitions={partitions} must divide the world size {world} "
            f"(processes_per_host {procs} x instance_count {config.compute.instance_count})",
        )


def _smp_v1_values(loaded: LoadedView, params: dict, at: tuple) -> Iterator[Problem]:
    for key, choices in _SMP_V1_CHOICES.items():
        if key in params and params[key] not in choices:
            yield loaded.problem(
                (*at, key), f"must be one of {', '.join(choices)} (the SDK checks)"
            )
    for key in _SMP_V1_POSITIVE:
        value = params.get(key)
        if key in params and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            yield loaded.problem((*at, key), "must be a positive integer (the SDK checks)")
    for key in _SMP_V1_BOOLS:
        if key in params and not isinstance(params[key], bool):
            yield loaded.problem((*at, key), "must be true or false (the SDK checks)")
    if params.get("ddp") and params.get("horovod"):
        yield loaded.problem(at, "ddp and horovod cannot both be enabled (the SDK checks)")


class SmpStrategy(Strategy):
    name = NAME
    frameworks = frozenset({"pytorch", "tensorflow", "huggingface"})  # SMP v1 only: rules
    priority = 10
    smdistributed = True
    sdk_hyperparameters = frozenset(
        {"mp_parameters", TORCH_DISTRIBUTED_HYPERPARAMETER, *MPI_HYPERPARAMETERS}
    )

    @property
    def model(self) -> type[Strict]:
        return SmpDistribution

    def placement(self, config: ConfigView, accelerators_per_host: int) -> Placement:
        if is_v2(config):
            return Placement(TORCHRUN, accelerators_per_host)
        per_host = config.distribution.processes_per_host or accelerators_per_host
        return Placement(MPIRUN, per_host)

    def sdk_distribution(self, config: ConfigView) -> dict[str, Any] | None:
        smp = config.distribution.smp
        model_parallel = {"enabled": True, "parameters": dict(smp.parameters) if smp else {}}
        if is_v2(config):
            return {
                "torch_distributed": {"enabled": True},
                "smdistributed": {"modelparallel": model_parallel},
            }
        return {
            "smdistributed": {"modelparallel": model_parallel},
            "mpi": mpi_distribution(config),
        }

    def local_launcher(self, planned: str) -> str:
        return planned  # v2: torchrun; v1: mpirun (local/launchers.py finds Open MPI)

    def check_local(self, config: ConfigView) -> None:
        return None

    def imported(self, hyperparameters: dict[str, Any], framework: str) -> dict[str, Any] | None:
        mp = hyperparameters.get("mp_parameters")
        if mp is None:
            return None
        params = codec.decode(mp)
        if not mpi_enabled(hyperparameters):
            return {"strategy": self.name, "smp": {"version": 2, "parameters": params}}
        smp = {"version": 1, "parameters": params}
        return {"strategy": self.name, "smp": smp, **mpi_imported(hyperparameters)}

    def owns_distribution(self, distribution: dict[str, Any]) -> bool:
        return distribution.get("smdistributed", {}).get("modelparallel") is not None

    def export_v3(self, distribution: dict[str, Any]) -> V3Call | None:
        if "torch_distributed" not in distribution:
            raise UsageError(
                "SDK v3 has no SMP v1 (mpi + smdistributed.modelparallel pipeline)",
                hint="export --sdk v2, or move to SMP v2 (distribution.smp.version: 2)",
            )
        parameters = distribution["smdistributed"]["modelparallel"].get("parameters", {})
        unknown = sorted(set(parameters) - V3_FIELDS)
        if unknown:
            raise UsageError(
                f"SDK v3's SMP takes no {', '.join(unknown)} "
                f"(it accepts {', '.join(sorted(V3_FIELDS))})",
                hint="export --sdk v2 keeps every SMP parameter",
            )
        return V3Call("Torchrun", {"smp": V3Call("SMP", parameters)})

    def rules(self) -> tuple[Rule, ...]:
        return (
            smp_v2_instance_type,
            smp_v2_is_pytorch,
            smp_v1_parameters,
        )

"""``mpi``: Open MPI's mpirun on the first host starting every rank (Horovod-style and MPI
scripts), as the toolkit's MasterRunner."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from sagelaunch.strategies.base import (
    MPI_HYPERPARAMETERS,
    MPIRUN,
    ConfigView,
    DistributionGroups,
    NoSmp,
    Placement,
    Strategy,
    V3Call,
    enabled,
    mpi_distribution,
    mpi_enabled,
    mpi_imported,
)
from sagelaunch.strict import Strict

NAME = "mpi"


class MpiDistribution(NoSmp, DistributionGroups, Strict):
    """mpirun on the first host starting every rank (Horovod-style and MPI scripts)."""

    strategy: Literal["mpi"] = Field(description="mpi (Open MPI's mpirun).")
    processes_per_host: int | None = Field(
        None, ge=1, description="MPI processes per host (default: one per GPU)."
    )
    custom_mpi_options: str = Field("", description="Extra mpirun options.")


class MpiStrategy(Strategy):
    name = NAME
    frameworks = frozenset({"pytorch", "tensorflow", "huggingface"})
    priority = 30
    sdk_hyperparameters = MPI_HYPERPARAMETERS
    runs_deepspeed = True
    runs_horovod = True

    @property
    def model(self) -> type[Strict]:
        return MpiDistribution

    def placement(self, config: ConfigView, accelerators_per_host: int) -> Placement:
        return Placement(MPIRUN, config.distribution.processes_per_host or accelerators_per_host)

    def sdk_distribution(self, config: ConfigView) -> dict[str, Any] | None:
        return {"mpi": mpi_distribution(config)}

    def local_launcher(self, planned: str) -> str:
        return planned  # mpirun: local/launchers.py finds Open MPI

    def check_local(self, config: ConfigView) -> None:
        """Nothing to refuse from the config alone: the toolkit's MPI runner starts any script
        under mpirun. A TensorFlow script that imports Horovod where it is not installed is
        refused by local itself, which knows the code (local/horovod.py)."""

    def imported(self, hyperparameters: dict[str, Any], framework: str) -> dict[str, Any] | None:
        if not mpi_enabled(hyperparameters):
            return None
        return {"strategy": self.name, **mpi_imported(hyperparameters)}

    def owns_distribution(self, distribution: dict[str, Any]) -> bool:
        return enabled(distribution, "mpi")

    def export_v3(self, distribution: dict[str, Any]) -> V3Call | None:
        mpi = distribution["mpi"]
        kwargs: dict[str, Any] = {}
        if mpi.get("processes_per_host"):
            kwargs["process_count_per_node"] = mpi["processes_per_host"]
        if mpi.get("custom_mpi_options"):
            kwargs["mpi_additional_options"] = str(mpi["custom_mpi_options"]).split()
        return V3Call("MPI", kwargs)

    def rules(self) -> tuple[Any, ...]:
        return ()

"""What every strategy provides: the capabilities the registry and the rest of sagelaunch call.

A strategy is one subclass of `Strategy` in its own module, registered in registry.py. Every
capability is abstract, so a strategy missing one cannot even be instantiated, and
tests/strategies/test_capabilities.py lists them per registered strategy.

Strategies see plain data only: a launch config (through `ConfigView`: the config model stands
above the strategies, built from their settings), the request's hyperparameters, the estimator's
``distribution`` dict. They never import the SDK or boto3 (the SDK adaptor asks them for the
``distribution`` argument) and stay on the `validate` fast path.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from pydantic import Field

from sagelaunch.errors import Problem
from sagelaunch.strict import Strict

# --- what a strategy sees of a config --------------------------------------------------------


class DistributionSettings(Protocol):
    """What code outside a strategy may read of any strategy's config: the mixins below give
    every model these (the static type of ``LaunchConfig.distribution``)."""

    @property
    def strategy(self) -> str: ...
    @property
    def processes_per_host(self) -> int | None: ...
    @property
    def custom_mpi_options(self) -> str: ...
    @property
    def smp(self) -> Any: ...


class ComputeView(Protocol):
    @property
    def instance_type(self) -> str: ...
    @property
    def instance_count(self) -> int: ...


class ConfigView(Protocol):
    """What a strategy reads of a launch config; config.model.LaunchConfig is one. The model is
    built from the strategies' settings, so it stands above them and they see it through this."""

    @property
    def framework(self) -> str: ...
    @property
    def framework_version(self) -> str | None: ...
    @property
    def image_uri(self) -> str | None: ...
    @property
    def compute(self) -> ComputeView: ...
    @property
    def distribution(self) -> DistributionSettings: ...


class LoadedView(Protocol):
    """A loaded config as a strategy's rule sees it (config.loader.LoadedConfig is one): the
    model, and problems placed at a key's line in the file."""

    @property
    def config(self) -> ConfigView: ...
    def problem(
        self, path: tuple[str | int, ...], message: str, severity: str = "error"
    ) -> Problem: ...


# A validation rule: the problems it finds in a loaded config (checks.rules registers them).
Rule = Callable[[LoadedView], Iterator[Problem]]


# The container's launchers (plan.topology.launcher).
PYTHON = "python"
TORCHRUN = "torchrun"
MPIRUN = "mpirun"
XGBOOST = "xgboost"

# What each registered strategy must provide (tests/strategies/test_capabilities.py).
CAPABILITIES = (
    "model",
    "placement",
    "sdk_distribution",
    "own_hyperparameters",
    "local_launcher",
    "check_local",
    "imported",
    "owns_distribution",
    "export_v3",
    "rules",
)
# What each strategy declares (class attributes; the defaults say "no").
DECLARATIONS = (
    "name",
    "frameworks",
    "priority",
    "smdistributed",
    "sdk_hyperparameters",
    "runs_deepspeed",
    "runs_horovod",
)


@dataclass(frozen=True)
class HostSlot:
    """One training host of a `sagelaunch local` run, as a launcher sees it."""

    python: str  # the interpreter that runs the job (the venv's)
    entry_point: str
    args: tuple[str, ...]
    host_index: int  # among the hosts that run the launcher
    host_count: int
    processes_per_host: int
    master_addr: str
    master_port: int  # free on this machine for this run


class HostLauncher(Protocol):
    """A launcher a strategy brings for `sagelaunch local`, beside the ones local knows (python,
    torchrun, mpirun): what each training host runs and adds to its environment."""

    @property
    def name(self) -> str: ...
    def command(self, slot: HostSlot) -> list[str] | None:
        """The host's command, run in its code folder (None: the host only waits)."""

    def environment(self, slot: HostSlot) -> dict[str, str]:
        """Variables the launcher sets on this host, over the container's."""


@dataclass(frozen=True)
class Placement:
    """Which launcher the container runs and how many processes it starts per host."""

    launcher: str
    processes_per_host: int


@dataclass(frozen=True)
class V3Call:
    """A v3 `ModelTrainer` configuration object as data: ``Torchrun()``, ``MPI(...)``; nested
    V3Call values are written as calls too (translate/sdk_v3.py renders it)."""

    name: str
    kwargs: dict[str, Any] = field(default_factory=dict)


class Strategy(ABC):
    """One distributed-training strategy (``distribution.strategy`` in the config)."""

    name: ClassVar[str]
    # Frameworks whose SDK estimator takes this strategy's distribution.
    frameworks: ClassVar[frozenset[str]]
    # Order in which `import` and `export` ask strategies whether a request or a distribution
    # dict is theirs: the more specific first, `none` (which takes everything) last.
    priority: ClassVar[int]
    # Whether the job runs the smdistributed libraries (the SDK picks their images).
    smdistributed: ClassVar[bool] = False
    # The hyperparameters the SDK writes for its distribution (`import` maps them back, so they
    # never become user hyperparameters).
    sdk_hyperparameters: ClassVar[frozenset[str]] = frozenset()
    # Whether DeepSpeed's init_distributed finds its ranks: the launcher sets torchrun's (RANK,
    # WORLD_SIZE, MASTER_ADDR) or mpirun's (OMPI_COMM_WORLD_*) variables for the script, and the
    # strategy starts no collective library of its own.
    runs_deepspeed: ClassVar[bool] = False
    # Whether Horovod runs: the container starts mpirun for the script (sagemaker_mpi_enabled)
    # and the strategy starts no collective library of its own.
    runs_horovod: ClassVar[bool] = False

    def supplied_image(
        self, config: ConfigView, images: dict[str, Any], version: str
    ) -> tuple[str, str | None] | None:
        """Where the SDK's tables have no image for this strategy's library at this PyTorch
        ``version``: the (registry, tag) of the one sagelaunch supplies, from data/images.json
        (``images``). None: the SDK's own image."""
        return None

    @property
    @abstractmethod
    def model(self) -> type[Strict]:
        """The config model: the member of the ``distribution`` union for this strategy."""

    @abstractmethod
    def placement(self, config: ConfigView, accelerators_per_host: int) -> Placement:
        """The launcher and processes per host the container starts (plan.topology)."""

    @abstractmethod
    def sdk_distribution(self, config: ConfigView) -> dict[str, Any] | None:
        """The SDK estimator's ``distribution=`` argument, or None to pass none."""

    def own_hyperparameters(self, config: ConfigView) -> dict[str, Any]:
        """The hyperparameters this strategy's ``distribution`` key stands for in the request,
        where the SDK predates the key. SDK v2 writes hyperparameters only for the keys it knows
        (``Framework._distribution_configuration``) and drops any other: a strategy with a newer
        key writes them itself, as the SDK does for its own, so the request, an exported script
        and `import` all carry them (list their names in ``sdk_hyperparameters``)."""
        return {}

    @abstractmethod
    def local_launcher(self, planned: str) -> str | HostLauncher:
        """The launcher `sagelaunch local` runs for the planned one (plan.topology.launcher): one
        local knows by name (PYTHON, TORCHRUN, MPIRUN), or the strategy's own."""

    @abstractmethod
    def check_local(self, config: ConfigView) -> None:
        """Raise UsageError, before planning, for what `sagelaunch local` cannot run here."""

    @abstractmethod
    def imported(self, hyperparameters: dict[str, Any], framework: str) -> dict[str, Any] | None:
        """`sagelaunch import`: the config's ``distribution`` for a request whose (decoded)
        hyperparameters this strategy's SDK distribution wrote, else None."""

    @abstractmethod
    def owns_distribution(self, distribution: dict[str, Any]) -> bool:
        """Whether an estimator's ``distribution`` dict is this strategy's (export reads a plan)."""

    @abstractmethod
    def export_v3(self, distribution: dict[str, Any]) -> V3Call | None:
        """The v3 ``distributed=`` object for this strategy's distribution dict, None for none;
        raises UsageError naming what v3 cannot express."""

    @abstractmethod
    def rules(self) -> tuple[Rule, ...]:
        """This strategy's own compatibility rules (checks/rules runs them with the others)."""


def offered(values: object) -> str:
    return ", ".join(str(v) for v in values)  # type: ignore[attr-defined]


MPI_HYPERPARAMETERS = frozenset(
    {
        "sagemaker_mpi_enabled",
        "sagemaker_mpi_num_of_processes_per_host",
        "sagemaker_mpi_custom_mpi_options",
    }
)
TORCH_DISTRIBUTED_HYPERPARAMETER = "sagemaker_torch_distributed_enabled"


def mpi_distribution(config: ConfigView) -> dict[str, Any]:
    """The SDK's ``mpi`` section (strategy mpi, and SMP v1 under mpirun)."""
    mpi: dict[str, Any] = {"enabled": True}
    if config.distribution.processes_per_host:
        mpi["processes_per_host"] = config.distribution.processes_per_host
    mpi["custom_mpi_options"] = config.distribution.custom_mpi_options
    return mpi


def mpi_imported(hyperparameters: dict[str, Any]) -> dict[str, Any]:
    """The mpirun keys back from the SDK's ``sagemaker_mpi_*`` hyperparameters."""
    options = hyperparameters.get("sagemaker_mpi_custom_mpi_options", "")
    return {
        "processes_per_host": hyperparameters.get("sagemaker_mpi_num_of_processes_per_host"),
        "custom_mpi_options": options or None,
    }


def mpi_enabled(hyperparameters: dict[str, Any]) -> bool:
    return hyperparameters.get("sagemaker_mpi_enabled") is True


def enabled(distribution: dict[str, Any], *keys: str) -> bool:
    """Whether ``distribution[keys[0]]...[keys[-1]]["enabled"]`` is set."""
    section: Any = distribution
    for key in keys:
        section = section.get(key) if isinstance(section, dict) else None
    return isinstance(section, dict) and bool(section.get("enabled"))


class DistributionGroups(Strict):
    """Mixin for strategies that run a launcher: which group runs it."""

    groups: list[str] | None = Field(
        None,
        description="With compute.groups: the one instance group that runs the distributed "
        "launcher (the SDK's distribution['instance_groups']); the other groups run the entry "
        "point as a plain process (e.g. data workers).",
    )


class NoMpiSettings:
    """Config mixin for strategies that start no mpirun: they read these as unset."""

    processes_per_host: ClassVar[int | None] = None
    custom_mpi_options: ClassVar[str] = ""


class NoSmp:
    """Config mixin for strategies other than smp: they read ``smp`` as unset."""

    smp: ClassVar[Any] = None

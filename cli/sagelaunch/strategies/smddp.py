"""``smddp`` (smdistributed.dataparallel): mpirun, or on p5-class instances torchrun with the
smddp backend (the SDK refuses smdistributed there without torch_distributed)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from sagelaunch.catalog import facts, sdk_data
from sagelaunch.errors import UsageError
from sagelaunch.strategies.base import (
    MPIRUN,
    TORCH_DISTRIBUTED_HYPERPARAMETER,
    TORCHRUN,
    ConfigView,
    DistributionGroups,
    LoadedView,
    NoSmp,
    Placement,
    Strategy,
    V3Call,
    offered,
)
from sagelaunch.strict import Strict

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sagelaunch.errors import Problem
    from sagelaunch.strategies.base import Rule

NAME = "smddp"
ENABLED = "sagemaker_distributed_dataparallel_enabled"
OPTIONS = "sagemaker_distributed_dataparallel_custom_mpi_options"


class SmddpDistribution(NoSmp, DistributionGroups, Strict):
    """smdistributed.dataparallel (mpirun; on p5-class instances torchrun + the smddp backend)."""

    strategy: Literal["smddp"] = Field(description="smddp (smdistributed.dataparallel).")
    custom_mpi_options: str = Field("", description="Extra mpirun options for SMDDP.")
    processes_per_host: ClassVar[int | None] = None


def with_torchrun(config: ConfigView) -> bool:
    """SMDDP on p5-class instances runs under torchrun (the SDK refuses smdistributed there
    without torch_distributed)."""
    instances = facts.library_instances("smddp_with_torchrun")
    return config.framework == "pytorch" and config.compute.instance_type in instances


def sdk_has_image(config: ConfigView) -> bool:
    """True when the SDK's SMDDP version list covers this framework version (it then resolves the
    image itself)."""
    supported = sdk_data.fw_constant("SM_DATAPARALLEL_SUPPORTED_FRAMEWORK_VERSIONS")
    return config.framework_version in supported.get(config.framework, [])


def smddp_image_of(images: dict[str, Any], version: str) -> tuple[str, str | None]:
    """The SMDDP image the SDK has no table for (registry, tag or None): the DLC's, else the SMP
    image's (which carries SMDDP too)."""
    if version in images["smddp"]:
        return images["registry"], images["smddp"][version]
    return images["smddp_smp_registry"], images["smddp_in_smp_image"].get(version)


def _sagelaunch_knows_image(config: ConfigView) -> bool:
    """Whether sagelaunch supplies an image the SDK lacks (plan.images.tool_known_image reads
    the same table): the neuronx image on Trainium, else an SMDDP one."""
    table = facts.load("images")
    version = sdk_data.pytorch_version(str(config.framework_version))
    if facts.instance_kind(config.compute.instance_type) == "trainium":
        return bool(table["neuronx"].get(version))
    return smddp_image_of(table, version)[1] is not None


def smddp_instance_type(loaded: LoadedView) -> Iterator[Problem]:
    """The smdistributed.dataparallel library runs only on the instance types AWS lists for it
    (SMDDP docs, "Supported instance types"; p5-class with torchrun). Advice, not a refusal: the
    SDK sends the job anyway (its `pytorchddp` distribution is the same request) and the
    container's launcher checks no instance type, so a script that uses NCCL, not the SMDDP
    backend, runs (public examples do, on ml.p3.16xlarge and ml.g5.12xlarge)."""
    config = loaded.config
    if not isinstance(config.distribution, SmddpDistribution):
        return
    sdk_list = sdk_data.fw_constant("SM_DATAPARALLEL_SUPPORTED_INSTANCE_TYPES")
    allowed = [name for name in sdk_list if name.startswith("ml.")]  # not its "local_gpu"
    if config.framework == "pytorch":  # p5-class only with torchrun, which TensorFlow lacks
        allowed += facts.library_instances("smddp_with_torchrun")
    if config.compute.instance_type not in allowed:
        yield loaded.problem(
            ("compute", "instance_type"),
            f"the SMDDP library supports only {offered(allowed)} (the SDK's list and AWS's SMDDP "
            "docs), not "
            f"{config.compute.instance_type}: a script that uses its backend fails there; use "
            "strategy: torchrun for NCCL data parallelism",
            severity="warning",
        )


def smddp_image(loaded: LoadedView) -> Iterator[Problem]:
    """The SDK refuses SMDDP for framework versions outside its SMDDP list unless image_uri is
    given (fw_utils.SM_DATAPARALLEL_SUPPORTED_FRAMEWORK_VERSIONS)."""
    config = loaded.config
    if not isinstance(config.distribution, SmddpDistribution) or config.image_uri:
        return
    if config.framework != "pytorch":
        return  # TensorFlow: tensorflow_smddp_versions
    if sdk_has_image(config) or _sagelaunch_knows_image(config):
        return
    supported = sdk_data.fw_constant("SM_DATAPARALLEL_SUPPORTED_FRAMEWORK_VERSIONS")["pytorch"]
    yield loaded.problem(
        ("framework_version",),
        f"the SDK supports SMDDP for PyTorch {offered(supported)} and sagelaunch knows no SMDDP "
        f"image for {config.framework_version}: set image_uri to an SMDDP-enabled image",
    )


def tensorflow_smddp_versions(loaded: LoadedView) -> Iterator[Problem]:
    """The SMDDP library supports TensorFlow only in the versions the SDK lists
    (fw_utils.SM_DATAPARALLEL_SUPPORTED_FRAMEWORK_VERSIONS: 2.3 to 2.11; it dropped TF >= 2.12),
    so an image_uri does not help either."""
    config = loaded.config
    tensorflow = config.framework == "tensorflow"
    if not tensorflow or not isinstance(config.distribution, SmddpDistribution):
        return
    supported = sdk_data.fw_constant("SM_DATAPARALLEL_SUPPORTED_FRAMEWORK_VERSIONS")["tensorflow"]
    if config.framework_version and config.framework_version not in supported:
        yield loaded.problem(
            ("framework_version",),
            f"the SMDDP library supports TensorFlow {offered(supported)} only (the SDK's list), "
            f"not {config.framework_version}; use strategy: multi_worker_mirrored or mpi",
        )


class SmddpStrategy(Strategy):
    name = NAME
    frameworks = frozenset({"pytorch", "tensorflow", "huggingface"})
    priority = 20
    smdistributed = True
    sdk_hyperparameters = frozenset(
        {ENABLED, OPTIONS, TORCH_DISTRIBUTED_HYPERPARAMETER}  # p5-class: torchrun too
    )

    def supplied_image(
        self, config: ConfigView, images: dict[str, Any], version: str
    ) -> tuple[str, str | None] | None:
        return None if sdk_has_image(config) else smddp_image_of(images, version)

    @property
    def model(self) -> type[Strict]:
        return SmddpDistribution

    def placement(self, config: ConfigView, accelerators_per_host: int) -> Placement:
        return Placement(TORCHRUN if with_torchrun(config) else MPIRUN, accelerators_per_host)

    def sdk_distribution(self, config: ConfigView) -> dict[str, Any] | None:
        options = config.distribution.custom_mpi_options
        result: dict[str, Any] = {
            "smdistributed": {"dataparallel": {"enabled": True, "custom_mpi_options": options}}
        }
        if with_torchrun(config):
            result["torch_distributed"] = {"enabled": True}  # p5-class: torchrun + smddp backend
        return result

    def local_launcher(self, planned: str) -> str:
        """Locally one torchrun per host for the container's mpirun: SMDDP needs GPUs and EFA, so
        the entry point picks its fallback backend and says so."""
        return TORCHRUN if planned == MPIRUN else planned

    def check_local(self, config: ConfigView) -> None:
        if config.framework == "tensorflow":  # no fallback there
            raise UsageError(
                "SMDDP for TensorFlow needs the smdistributed library of SageMaker's TensorFlow "
                "2.3-2.11 GPU images; it does not run here",
                "try the job locally with --set distribution.strategy=multi_worker_mirrored",
            )

    def imported(self, hyperparameters: dict[str, Any], framework: str) -> dict[str, Any] | None:
        if hyperparameters.get(ENABLED) is not True:
            return None
        return {"strategy": self.name, "custom_mpi_options": hyperparameters.get(OPTIONS) or None}

    def owns_distribution(self, distribution: dict[str, Any]) -> bool:
        return "dataparallel" in distribution.get("smdistributed", {})

    def export_v3(self, distribution: dict[str, Any]) -> V3Call | None:
        raise UsageError(
            "SDK v3 has no SMDDP option (smdistributed.dataparallel): ModelTrainer cannot "
            "export this job",
            hint="export --sdk v2, or use strategy torchrun (NCCL) for a v3 job",
        )

    def rules(self) -> tuple[Rule, ...]:
        return (
            smddp_instance_type,
            smddp_image,
            tensorflow_smddp_versions,
        )

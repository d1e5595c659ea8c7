"""Distribution rules across strategies: Trainium, torch_distributed, the device mesh, DeepSpeed and
DataParallel (each strategy's own rules live in its module, strategies/*.py)."""

from __future__ import annotations

from collections.abc import Iterator

from sagelaunch.catalog import facts, sdk_data
from sagelaunch.catalog.versions import numbers
from sagelaunch.checks.rules.frameworks import check_region
from sagelaunch.checks.rules.registry import error, rule
from sagelaunch.config.loader import LoadedConfig
from sagelaunch.config.model import LaunchConfig
from sagelaunch.errors import Problem
from sagelaunch.hyperparameters import integer
from sagelaunch.plan import images
from sagelaunch.strategies import registry
from sagelaunch.strategies.base import offered


def _kind(config: LaunchConfig) -> str:
    return facts.instance_kind(config.compute.instance_type)


@rule
def trainium_strategy(loaded: LoadedConfig) -> Iterator[Problem]:
    """The SDK allows only torch_distributed on Trainium (fw_utils
    TRAINIUM_SUPPORTED_DISTRIBUTION_STRATEGIES), or no distribution, and refuses any other key
    of the strategy's distribution (validate_distribution_for_instance_type)."""
    config = loaded.config
    if _kind(config) != "trainium":
        return
    allowed = sdk_data.fw_constant("TRAINIUM_SUPPORTED_DISTRIBUTION_STRATEGIES")
    sent = set(registry.of(config).sdk_distribution(config) or {})
    if len(sent) > 1 or not sent <= set(allowed):
        yield error(
            loaded,
            ("distribution", "strategy"),
            f"the SDK allows only {offered(allowed)} (strategy: torchrun) on Trainium, not "
            f"{config.distribution.strategy}",
        )


@rule
def torchrun_instance_and_version(loaded: LoadedConfig) -> Iterator[Problem]:
    """Without image_uri SDK v2 refuses torch_distributed on CPU instances and on versions
    outside its lists (fw_utils TORCH_DISTRIBUTED_GPU_SUPPORTED_FRAMEWORK_VERSIONS and
    TRAINIUM_SUPPORTED_TORCH_DISTRIBUTED_FRAMEWORK_VERSIONS). SDK v3's Torchrun has no such
    lists: the container runs torchrun on a CPU instance too (its own CPU tests do)."""
    config = loaded.config
    if config.sdk != "v2" or not registry.uses_torch_distributed(config) or config.image_uri:
        return
    if images.tool_known_image(config, check_region(loaded)):
        return  # sagelaunch passes the image, and the SDK then skips its version lists
    kind = _kind(config)
    if kind == "cpu":
        yield error(
            loaded,
            ("compute", "instance_type"),
            f"the SDK runs {config.distribution.strategy} (torch_distributed) on GPU and Trainium "
            f"instances only, not {config.compute.instance_type}; use strategy none or mpi on CPU",
        )
        return
    name = "TRAINIUM_SUPPORTED_TORCH_DISTRIBUTED_FRAMEWORK_VERSIONS"
    if kind == "gpu":
        name = "TORCH_DISTRIBUTED_GPU_SUPPORTED_FRAMEWORK_VERSIONS"
    supported = sdk_data.fw_constant(name)
    version = config.base_framework_version  # a Hugging Face job's pytorch_version
    if version not in supported:
        key = "pytorch_version" if config.framework == "huggingface" else "framework_version"
        yield error(
            loaded,
            (key,),
            f"the SDK runs torch_distributed on {kind} instances for PyTorch {offered(supported)} "
            f"only, not {version!r} (or set image_uri)",
        )


@rule
def torchrun_entry_point_is_python(loaded: LoadedConfig) -> Iterator[Problem]:
    """The SDK (and the container's TorchDistributedRunner) run only Python scripts."""
    config = loaded.config
    entry_point = config.entry_point
    if registry.uses_torch_distributed(config) and entry_point and not entry_point.endswith(".py"):
        yield error(
            loaded,
            ("entry_point",),
            "torchrun runs Python scripts only: entry_point must end in .py",
        )


@rule
def mesh_degrees_divide_the_world(loaded: LoadedConfig) -> Iterator[Problem]:
    """The PyTorch entry point refuses degrees that do not divide the world size (instance_count
    × GPUs per instance under torchrun), and hybrid sharding that does not split into hosts,
    before any work: the job would fail at start. The rule is the entry point's own (torch_mesh)."""
    from sagelaunch.plan import mesh
    from sagelaunch.plan.topology import topology

    config = loaded.config
    hyperparameters = config.hyperparameters
    if config.framework != "pytorch" or not registry.uses_torch_distributed(config):
        return
    if not mesh.shapes_mesh(hyperparameters):
        return
    if mesh.mesh_request(hyperparameters, []).parallel == "dp":
        return  # data_parallel_is_one_process reports DataParallel, at its key
    found = topology(config)
    dims = mesh.mesh_dims(hyperparameters, found.world_size, found.processes_per_host)
    for problem in dims if isinstance(dims, list) else []:
        yield error(loaded, ("hyperparameters",), problem)


_DEEPSPEED_KEYS = ("zero_stage", "deepspeed_config")


@rule
def deepspeed_needs_a_launcher(loaded: LoadedConfig) -> Iterator[Problem]:
    """DeepSpeed's init_distributed reads its ranks from torchrun's variables (RANK, WORLD_SIZE,
    MASTER_ADDR) or, in a SageMaker job, from mpirun's (OMPI_COMM_WORLD_*,
    patch_aws_sm_env_for_torch_nccl_backend); strategy none starts one plain process per host with
    neither, so DeepSpeed falls back to mpi4py discovery (not in the images) and the job fails;
    smddp and smp start their own collective libraries under their own launchers."""
    config = loaded.config
    hyperparameters = config.hyperparameters or {}
    keys = [k for k in _DEEPSPEED_KEYS if hyperparameters.get(k) not in (None, 0, "0", "")]
    strategy = config.distribution.strategy
    if config.framework != "pytorch" or not keys or registry.of(config).runs_deepspeed:
        return
    yield error(
        loaded,
        ("hyperparameters", keys[0]),
        f"DeepSpeed ({keys[0]}) runs under a distributed launcher, not strategy {strategy}: "
        "use distribution.strategy torchrun (GPU instances) or mpi",
    )


@rule
def data_parallel_is_one_process(loaded: LoadedConfig) -> Iterator[Problem]:
    """``parallel: dp`` is torch.nn.DataParallel: one process driving one host's GPUs by threads
    (PyTorch docs, "DataParallel ... single-process multi-thread ... only works on a single
    machine"). A second instance or a multi-process launcher would run independent copies that
    never exchange gradients, so the entry point refuses it at start and the job fails."""
    config = loaded.config
    hyperparameters = config.hyperparameters or {}
    if config.framework != "pytorch" or str(hyperparameters.get("parallel", "")).strip('"') != "dp":
        return
    strategy = config.distribution.strategy
    count = config.compute.instance_count
    if count == 1 and not registry.distributed(config):
        return
    where = f"{count} instances" if count > 1 else f"strategy {strategy}"
    yield error(
        loaded,
        ("hyperparameters", "parallel"),
        f"parallel: dp (DataParallel) runs in one process on one host, not with {where}: use "
        "parallel: ddp with distribution.strategy torchrun (one process per GPU, faster too)",
    )


@rule
def parameter_server_needs_a_worker(loaded: LoadedConfig) -> Iterator[Problem]:
    """``parallel: ps``: the first ``num_ps`` processes serve the parameters and the others train;
    the entry point (torch_ps.check) refuses a job with no process left to train, at start, so
    the job fails. The processes are the toolkit's: one per GPU under torchrun, processes_per_host
    under mpirun, one without a launcher."""
    from sagelaunch.plan.topology import topology

    config = loaded.config
    hyperparameters = config.hyperparameters or {}
    if config.framework != "pytorch" or str(hyperparameters.get("parallel", "")).strip('"') != "ps":
        return
    servers = integer(hyperparameters.get("num_ps", 1))
    if servers is None:
        return  # the entry point names a non-integer itself
    world = topology(config).world_size
    if servers >= 1 and world - servers >= 1:
        return
    yield error(
        loaded,
        ("hyperparameters", "num_ps" if "num_ps" in hyperparameters else "parallel"),
        f"parallel: ps needs num_ps ≥ 1 servers and at least one worker besides them; this job "
        f"starts {world} process(es) and asks for {servers} server(s): use distribution.strategy "
        "torchrun or mpi (processes_per_host) for more processes, or lower num_ps",
    )


# What sagelaunch's train_pytorch.py imports for each mode, and the PyTorch release that made it
# public (each release's notes): FSDP2's fully_shard and MixedPrecisionPolicy in
# torch.distributed.fsdp from 2.6 (torch.distributed._composable.fsdp before), DTensor's
# Replicate and Shard in torch.distributed.tensor from 2.5, torch.distributed.pipelining in 2.4.
_ENTRY_POINT_NEEDS = {
    "fsdp": "2.6",
    "tensor_parallel_degree": "2.5",
    "pipeline_parallel_degree": "2.4",
}


@rule
def shipped_entry_point_torch_version(loaded: LoadedConfig) -> Iterator[Problem]:
    """sagelaunch's own train_pytorch.py imports FSDP2 (--parallel fsdp), DTensor (tensor
    parallelism) and torch.distributed.pipelining from where PyTorch made them public; an image
    of an older PyTorch fails the job at that import, on its first step. Only for the shipped
    script (a user's script of that name decides for itself) and a version the config names
    (an image_uri's PyTorch is not known here)."""
    from sagelaunch.config.paths import shipped_source_dir
    from sagelaunch.plan import mesh

    config = loaded.config
    if config.framework != "pytorch" or config.image_uri or not config.framework_version:
        return
    if config.entry_point != "train_pytorch.py":
        return
    if loaded.source_dir != shipped_source_dir("pytorch").resolve():
        return
    asked = mesh.mesh_request(config.hyperparameters, [])
    uses = {
        "fsdp": asked.parallel == "fsdp",
        "tensor_parallel_degree": asked.tensor_parallel_degree > 1,
        "pipeline_parallel_degree": asked.pipeline_parallel_degree > 1,
    }
    have = numbers(sdk_data.pytorch_version(config.framework_version))
    for what, used in uses.items():
        needed = _ENTRY_POINT_NEEDS[what]
        if used and have < numbers(needed):
            mode = "--parallel fsdp (FSDP2)" if what == "fsdp" else f"--{what}"
            yield error(
                loaded,
                ("framework_version",),
                f"sagelaunch's train_pytorch.py runs {mode} with what PyTorch {needed} made "
                f"public; PyTorch {config.framework_version} fails the job at that import. Set "
                f'framework_version: "{_first_listed(needed)}" (the SDK\'s first from there) or '
                "later",
            )
            return


def _first_listed(needed: str) -> str:
    """The SDK's first PyTorch training version at or after ``needed`` (pytorch.json)."""
    listed = sorted(sdk_data.training_config("pytorch").get("versions", {}), key=numbers)
    return next((v for v in listed if numbers(v) >= numbers(needed)), needed)

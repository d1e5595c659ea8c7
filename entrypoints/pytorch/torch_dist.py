"""Which collective backend and device this process uses, and the process group around it.

The choice follows the job, not a flag: SMDDP when the job enabled it and the library is there,
SMP v2 when ``mp_parameters`` were given, XLA on Trainium, NCCL on CUDA, gloo on a CPU. A job that
asked for SMDDP or SMP on a laptop still runs (one warning, plain NCCL/gloo); inside a real
SageMaker job that would silently train differently from what was asked, so it is an error.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

import torch
import torch.distributed as dist

import shared_hparams as hp
import smenv

SMDDP_KEY = "sagemaker_distributed_dataparallel_enabled"
SMDDP_MODULE = "smdistributed.dataparallel.torch.torch_smddp"  # registers backend "smddp"
SMP_MODULE = "torch.sagemaker"

Warn = Callable[[str], None]


@dataclass
class DistContext:
    """This process's place in the job: rank, device and the backend that links them."""

    kind: str  # what the job runs on: smddp, smp, xla, nccl or gloo (reported in metrics)
    backend: str | None  # the process-group backend, None when running without a group
    rank: int = 0
    local_rank: int = 0
    world_size: int = 1
    local_world_size: int = 1
    device: torch.device = field(default_factory=lambda: torch.device("cpu"))
    mp_parameters: dict[str, Any] | None = None
    xm: ModuleType | None = None  # torch_xla.core.xla_model on Neuron
    owns_group: bool = True  # False when the caller made the process group before main()

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def has_group(self) -> bool:
        return dist.is_available() and dist.is_initialized()


@dataclass(frozen=True)
class Launch:
    """Rank and world as the launcher exported them: torchrun, or mpirun (Open MPI or MPICH)."""

    rank: int
    local_rank: int
    world_size: int
    local_world_size: int
    launcher: str = "none"  # torchrun, mpi or none

    @property
    def multi_process(self) -> bool:
        return self.world_size > 1


_group_created = False  # set before init, so that even a half-made group counts for exit_process


def _mark_group_created() -> None:
    global _group_created
    _group_created = True


# Where each launcher puts (rank, local rank, world size, local world size).
_TORCHRUN = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE")
_OPEN_MPI = (
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "OMPI_COMM_WORLD_SIZE",
    "OMPI_COMM_WORLD_LOCAL_SIZE",
)
_MPICH = ("PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE", "MPI_LOCALNRANKS")  # Hydra's mpiexec
DEFAULT_MASTER_PORT = 29500  # torch's default; a local run always passes a free one


def launch_from_env(environ: Mapping[str, str]) -> Launch:
    """torchrun's variables, else Open MPI's, else MPICH's (SMP v1 and ``mpi`` jobs run under
    mpirun, which exports no RANK), else one process."""
    for launcher, names in (("torchrun", _TORCHRUN), ("mpi", _OPEN_MPI), ("mpi", _MPICH)):
        if names[0] in environ:
            rank, local_rank, world, local_world = (
                int(environ.get(name, default))
                for name, default in zip(names, (0, 0, 1, 1), strict=True)
            )
            return Launch(rank, local_rank, world, local_world, launcher)
    return Launch(0, 0, 1, 1)


def master_address(environ: Mapping[str, str]) -> str:
    """MASTER_ADDR, else the first of SM_HOSTS (the toolkit's master host), else loopback."""
    if environ.get("MASTER_ADDR"):
        return environ["MASTER_ADDR"]
    host = smenv.master_host(environ)
    return "127.0.0.1" if host is None else host


def export_mpi_launch(environ: MutableMapping[str, str]) -> None:
    """Under mpirun, export what torchrun would have (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_*), so
    the env:// rendezvous and libraries that read them (DeepSpeed) see one launch."""
    launch = launch_from_env(environ)
    if launch.launcher != "mpi":
        return
    values = (launch.rank, launch.local_rank, launch.world_size, launch.local_world_size)
    environ.update({name: str(value) for name, value in zip(_TORCHRUN, values, strict=True)})
    environ["MASTER_ADDR"] = master_address(environ)
    environ.setdefault("MASTER_PORT", str(DEFAULT_MASTER_PORT))


def warn(message: str) -> None:
    """One line on stderr, from the first rank only (every rank would say the same)."""
    if launch_from_env(os.environ).rank == 0:
        print(f"WARNING: {message}", file=sys.stderr, flush=True)


def _truthy(value: object) -> bool:
    return (
        value if isinstance(value, bool) else smenv.parse_bool(str(smenv.decode_value(str(value))))
    )


def smddp_requested(env: smenv.SageMakerEnv) -> bool:
    """SMDDP is on when the estimator set its framework parameter (or a user passed it by hand)."""
    sources = (
        env.framework_params.get(SMDDP_KEY),
        env.hyperparameters.get(SMDDP_KEY),
        env.hyperparameter_variable(SMDDP_KEY),
    )
    return any(_truthy(v) for v in sources if v is not None)


def mp_parameters(
    env: smenv.SageMakerEnv, from_cli: dict[str, Any] | None
) -> dict[str, Any] | None:
    """SMP v2's parameters: the command line's (decoded by torch_hparams), else SM_HPS's or
    SM_HP_MP_PARAMETERS' (a job started without the toolkit's arguments); None if absent."""
    if from_cli is not None:
        return from_cli
    value = hp.structured("mp_parameters", None, env)
    if isinstance(value, str):  # a JSON object passed as a string hyperparameter
        value = hp.literal(value)
    if value is not None and not isinstance(value, dict):
        raise smenv.UsageError(f"mp_parameters must be a JSON object, got {value!r}")
    return value


def neuron_present(env: smenv.SageMakerEnv) -> bool:
    return Path("/dev/neuron0").exists() or env.num_neurons > 0


def _try_import(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _report_missing(missing: list[str], env: smenv.SageMakerEnv, fallback: str, warn: Warn) -> None:
    if not missing:
        return
    what = " and ".join(missing)
    if env.in_sagemaker_job:
        raise smenv.UsageError(
            f"the job enabled {what} but the library is not installed in this container; "
            "use a SageMaker PyTorch GPU image that ships it, or drop it from the distribution"
        )
    warn(f"{what} requested but not installed here; falling back to plain {fallback}")


def choose_kind(env: smenv.SageMakerEnv, mp_params: dict[str, Any] | None, warn: Warn) -> str:
    """Pick the backend kind and import what it needs (the smddp import registers the backend)."""
    cuda = torch.cuda.is_available()
    fallback = "nccl" if cuda else "gloo"
    missing = []
    kind = fallback
    if neuron_present(env) and _try_import("torch_xla") is not None:
        kind = "xla"
    if mp_params is not None:
        kind = "smp" if _try_import(SMP_MODULE) is not None else kind
        missing += [] if kind == "smp" else ["SMP v2 (torch.sagemaker)"]
    if smddp_requested(env):
        smddp = _try_import(SMDDP_MODULE) is not None
        kind = "smddp" if smddp and kind != "smp" else kind
        missing += [] if smddp else ["SMDDP (smdistributed.dataparallel)"]
    _report_missing(missing, env, fallback, warn)
    return kind


def process_group_backend(kind: str) -> str:
    if kind == "smp":
        # SMP v2 runs over NCCL unless SMDDP also registered its faster AllGather backend.
        return "smddp" if _try_import(SMDDP_MODULE) is not None else "nccl"
    return {"smddp": "smddp", "xla": "xla", "nccl": "nccl"}.get(kind, "gloo")


def use_deterministic_kernels() -> None:
    """Kernels that give the same bits every run, before any CUDA work: some CUDA kernels (the
    backward of flash attention, cuBLAS with several workspaces) add in an order that varies
    from run to run (measured on an H100: two runs differ from the first steps without this).
    Strict, not warn_only: PyTorch's flash-attention backward takes its deterministic path only
    then; an operation with no deterministic version fails, naming itself."""
    # cuBLAS reads this when its first handle is made; a fixed workspace makes its sums repeat
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False


def setup(
    env: smenv.SageMakerEnv, mp_params: dict[str, Any] | None, need_group: bool, warn: Warn
) -> DistContext:
    """Initialise the device and (when more than one process, FSDP or SMP) the process group."""
    export_mpi_launch(os.environ)
    quiet = launch_from_env(env.environ).rank != 0
    kind = choose_kind(env, mp_params, _silent if quiet else warn)
    # Read the launch only now: importing SMDDP under mpirun may export RANK and friends.
    launch = launch_from_env(env.environ)
    ctx = DistContext(kind=kind, backend=None, mp_parameters=mp_params)
    ctx.device = _device(kind, launch.local_rank, ctx)
    if dist.is_available() and dist.is_initialized():
        # Called from a program that made the group already (a test driving several runs):
        # use it, and leave tearing it down to its owner.
        ctx.backend, ctx.owns_group = dist.get_backend(), False
    elif launch.multi_process or need_group or kind == "smp":
        ctx.backend = process_group_backend(kind)
        _init_group(ctx.backend, launch)
        if kind == "smp":
            importlib.import_module(SMP_MODULE).init()  # reads mp_parameters itself
    ctx.rank, ctx.world_size = _rank_and_world(launch)
    ctx.local_rank, ctx.local_world_size = launch.local_rank, launch.local_world_size
    if kind == "gloo" and ctx.is_main:
        print("backend: gloo on CPU (no CUDA or Neuron device found)", flush=True)
    return ctx


def _silent(_: str) -> None:
    pass


def _device(kind: str, local_rank: int, ctx: DistContext) -> torch.device:
    if kind == "xla":
        ctx.xm = importlib.import_module("torch_xla.core.xla_model")
        importlib.import_module("torch_xla.distributed.xla_backend")  # registers backend "xla"
        return torch.device(ctx.xm.xla_device())
    if torch.cuda.is_available():
        # Before init_process_group, so NCCL binds each rank to its own GPU.
        torch.cuda.set_device(local_rank)
        return torch.device("cuda", local_rank)
    return torch.device("cpu")


def _init_group(backend: str, launch: Launch) -> None:
    if launch.multi_process:
        # env:// rendezvous: torchrun exports MASTER_ADDR/PORT, RANK and WORLD_SIZE.
        _mark_group_created()
        dist.init_process_group(backend)
    else:
        # FSDP wants a group even alone; an in-memory store needs no port.
        _mark_group_created()
        dist.init_process_group(backend, store=dist.HashStore(), rank=0, world_size=1)


def _rank_and_world(launch: Launch) -> tuple[int, int]:
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return launch.rank, launch.world_size


def exit_process(code: int) -> NoReturn:
    """Leave the process with ``code``. Once a process group has existed, skip the interpreter's
    finalization: gloo's C++ threads can make static destructors call std::terminate at exit
    (SIGABRT with no Python frame, ~1 in 15 two-rank CPU runs), which would turn a finished job
    into a failed one. Everything the job writes is closed (and checkpoints fsynced) by then."""
    if dist.is_available() and (dist.is_initialized() or _group_created):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


def teardown(ctx: DistContext) -> None:
    if ctx.has_group and ctx.owns_group:
        dist.destroy_process_group()


def barrier(ctx: DistContext) -> None:
    if ctx.has_group:
        dist.barrier()


def mean_across_ranks(value: float, ctx: DistContext, weight: float = 1.0) -> float:
    """The weighted mean of every rank's value (weight 0: this rank holds no value, e.g. a
    pipeline stage before the last)."""
    if not ctx.has_group or ctx.world_size == 1:
        return value
    pair = [value * weight, weight]
    tensor = torch.tensor(pair, dtype=torch.float64, device=_collective_device(ctx))
    dist.all_reduce(tensor)
    return float(tensor[0].item()) / float(tensor[1].item())


def broadcast_from_main(obj: Any, ctx: DistContext) -> Any:
    """Rank 0's value on every rank (e.g. which checkpoint to resume)."""
    if not ctx.has_group or ctx.world_size == 1:
        return obj
    box = [obj]
    dist.broadcast_object_list(box, src=0, device=_collective_device(ctx))
    return box[0]


def gather_to_main(obj: Any, ctx: DistContext) -> list[Any]:
    """Every rank's value, in rank order (each rank gets the list; only rank 0 uses it)."""
    if not ctx.has_group or ctx.world_size == 1:
        return [obj]
    out: list[Any] = [None] * ctx.world_size
    dist.all_gather_object(out, obj)
    return out


def all_ranks_ok(ok: bool, ctx: DistContext) -> bool:
    """True only if every rank says ok, so all ranks take the same branch afterwards."""
    if not ctx.has_group or ctx.world_size == 1:
        return ok
    flag = torch.tensor([1 if ok else 0], device=_collective_device(ctx))
    dist.all_reduce(flag, op=dist.ReduceOp.MIN)
    return bool(flag.item())


def _collective_device(ctx: DistContext) -> torch.device:
    # NCCL and SMDDP move only CUDA tensors; gloo only CPU ones.
    return ctx.device if ctx.backend in ("nccl", "smddp") else torch.device("cpu")


def local_tensor(tensor: torch.Tensor) -> torch.Tensor:
    """This rank's part of a DTensor (a plain tensor as it is): what collectives and in-place
    updates work on."""
    from torch.distributed.tensor import DTensor

    return tensor.to_local() if isinstance(tensor, DTensor) else tensor


def hybrid_shard_degree(ctx: DistContext) -> int:
    """Ranks per FSDP shard group for --sharding hybrid: SMP's setting, else one host's ranks."""
    value = (ctx.mp_parameters or {}).get("hybrid_shard_degree") or ctx.local_world_size
    degree = int(value)
    if degree < 1 or ctx.world_size % degree:
        raise smenv.UsageError(
            f"hybrid sharding needs world size {ctx.world_size} divisible by {degree}"
        )
    return degree

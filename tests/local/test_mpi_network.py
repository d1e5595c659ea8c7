"""An MPI job's hosts each in a network of their own, as the container's (issue #62, item 1):
mpirun runs in the first host's network namespace with the toolkit's ``--host algo-1:P,...``,
and PRRTE's launch agent starts the other hosts' daemons in theirs (mpi_agent.py), where ssh
would. The command against the toolkit's MasterRunner; real runs through Open MPI, whose ranks
each bind the same fixed port on their own host and reach the others by name."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sagelaunch.local import launchers, mpi, mpi_agent, mpi_rank, network, sandbox
from tests.local.conftest import run_local
from tests.local.test_host_network import PEERS
from tests.local.test_mpi import options, ranks_plan, toolkit_command

HOSTS = ["algo-1", "algo-2"]


def _own(isolation: bool) -> bool:
    """Whether an MPI job's hosts get networks of their own here (network.choose)."""
    return network.choose(sandbox.choose("auto").isolated, isolation=isolation).own


def test_on_own_networks_mpirun_is_the_toolkits_through_the_agent(monkeypatch, tmp_path):
    monkeypatch.setenv("LD_LIBRARY_PATH", "/opt/lib")  # exported by both
    monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
    first = {"SM_CURRENT_HOST": "algo-1"}
    hosts = [(name, tmp_path / name, {**first, "SM_CURRENT_HOST": name}) for name in HOSTS]
    ranks_file = tmp_path / "ranks.json"
    mpi.write_ranks_file(ranks_file, 2, hosts, holders={"algo-1": 101, "algo-2": 102})
    assert mpi.own_networks(ranks_file) == HOSTS
    names = ["SM_HOSTS", "SM_CURRENT_HOST"]
    ours = mpi.command(
        "/venv/bin/mpirun",
        processes_per_host=2,
        host_count=2,
        ranks_file=ranks_file,
        exported=names,
        custom_mpi_options="",
        program=launchers.python_program("train.py", ["--lr", "0.1"]),
    )
    # mpirun starts on the first host (its network and host name), through the agent.
    agent = [sys.executable, "-I", "-S", str(mpi.AGENT)]
    assert ours[: ours.index("/venv/bin/mpirun")] == [*agent, "--ranks", str(ranks_file), "algo-1"]
    mine = options(ours[ours.index("/venv/bin/mpirun") :])
    theirs = options(toolkit_command(monkeypatch, "", names))
    # The toolkit's hosts and eth0 for both TCP channels; the agent where ssh is its default.
    assert ("--host", "algo-1:2,algo-2:2") in theirs["flags"]
    assert sorted(mine["flags"]) == sorted(f for f in theirs["flags"] if f != ("--display-map",))
    expected = {**theirs["mca"], "btl": "self,tcp", "plm_rsh_agent": mine["mca"]["plm_rsh_agent"]}
    assert mine["mca"] == expected and expected["oob_tcp_if_include"] == "eth0"
    assert mine["x"] == [x for x in theirs["x"] if not x.startswith("LD_PRELOAD")]


def test_the_launch_agent_line_runs_the_agent_when_its_paths_have_spaces(tmp_path):
    """PRRTE splits plm_rsh_agent at spaces, quoting nothing, and appends the host and the
    daemon's command, as for ssh: the line still runs mpi_agent.py's interpreter on mpi_agent.py
    with those arguments where both paths have spaces (set by the agent's first form)."""
    folder = tmp_path / "my projects"
    folder.mkdir()
    python = folder / "the python"
    python.symlink_to(sys.executable)
    agent = folder / "mpi agent.py"
    agent.write_text("import json, sys\nprint(json.dumps([sys.executable, sys.argv]))\n")
    env = {mpi_agent.PYTHON_VARIABLE: str(python), mpi_agent.SELF_VARIABLE: str(agent)}
    words = [*mpi._agent().split(" "), "algo-2", "PATH=/x/bin", ";", "prted", "--tree 1"]
    done = subprocess.run(words, env=env, capture_output=True, text=True, check=True)
    ran, argv = json.loads(done.stdout)
    assert ran == str(python)
    assert argv == [str(agent), "algo-2", "PATH=/x/bin", ";", "prted", "--tree 1"]


def test_the_shared_network_stays_for_hosts_without_holders(tmp_path):
    ranks_plan(tmp_path)  # hosts without namespace holders: the machine's network
    assert mpi.own_networks(tmp_path / "ranks.json") == []
    assert mpi.own_networks(tmp_path / "none.json") == []


def test_an_mpi_job_on_the_shared_network_says_so_once(monkeypatch):
    """No longer shared by design: where its networks cannot be made, an MPI job warns as a
    torchrun job does (here: no pasta for a job that needs the outside)."""
    monkeypatch.setattr(network.shutil, "which", lambda tool: None if tool == "pasta" else tool)
    choice = network.choose(isolated=True, isolation=False)
    assert not choice.own and "apt install passt" in choice.reason
    said = network.warning(choice, network.HostNetwork(network.MACHINE, choice.reason))
    assert said is not None and "a fixed port binds on one host only" in said
    assert network.choose(isolated=True, isolation=True).own


def test_the_agents_variable_stays_out_of_the_ranks_environment(tmp_path):
    plan = ranks_plan(tmp_path)
    mpirun_env = {"OMPI_COMM_WORLD_RANK": "2", "SAGELAUNCH_MPI_RANKS": "/r/ranks.json"}
    _, env = mpi_rank.rank_environment(plan, mpirun_env)
    assert not mpi_rank.AGENT_VARIABLES & set(env) and env["SM_CURRENT_HOST"] == "algo-2"


# PEERS (each host binds 0.0.0.0:12345 and greets the other by name), then what places the rank:
# the node PRRTE started it on, and its source address towards the first host.
RANK = (
    PEERS
    + """
probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
probe.connect((hosts[0], 9))
print(f"{me}: node {os.environ['PMIX_HOSTNAME']}, from {probe.getsockname()[0]}", flush=True)
"""
)


@pytest.mark.slow
@pytest.mark.skipif(launchers.open_mpi() is None, reason="no Open MPI (the local extra's)")
@pytest.mark.parametrize("isolation", [False, True])
def test_each_mpi_host_binds_a_fixed_port_and_reaches_the_other_by_name(write_config, isolation):
    if not _own(isolation):
        pytest.skip("no network namespaces for this job here (network.choose)")
    config = write_config(
        {
            "name": "mpi-peers",
            "framework": "pytorch",
            "entry_point": "peers.py",
            "source_dir": "code",
            "framework_version": "2.2.0",
            "compute": {"instance_type": "ml.c5.xlarge", "instance_count": 2},
            "distribution": {"strategy": "mpi", "processes_per_host": 1},
            "network": {"isolation": isolation},
        },
        code={"peers.py": RANK},
    )
    done = run_local(config, "--keep", "--output", "json")
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert result["launcher"] == "mpirun" and "network: each host's own" in done.stderr
    assert "share this machine's network" not in done.stderr
    for index, (me, other) in enumerate([HOSTS, HOSTS[::-1]]):
        address = network.netns_keeper.address(index)  # on the run's bridge, eth0
        assert f"{me} at {address} heard ['{other}']" in done.stderr, done.stderr
        assert f"{me}: node {me}, from {address}" in done.stderr

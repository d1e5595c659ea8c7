"""Rank discovery under mpirun: torch_dist reads Open MPI's and MPICH's variables as torchrun's."""

from __future__ import annotations

import pytest


@pytest.fixture
def torch_dist(entrypoints_on_path):
    import torch_dist

    return torch_dist


OPEN_MPI = {
    "OMPI_COMM_WORLD_RANK": "3",
    "OMPI_COMM_WORLD_LOCAL_RANK": "1",
    "OMPI_COMM_WORLD_SIZE": "4",
    "OMPI_COMM_WORLD_LOCAL_SIZE": "2",
}
MPICH = {"PMI_RANK": "3", "MPI_LOCALRANKID": "1", "PMI_SIZE": "4", "MPI_LOCALNRANKS": "2"}


@pytest.mark.parametrize("environ", [OPEN_MPI, MPICH], ids=["open-mpi", "mpich"])
def test_mpirun_ranks_become_the_launch(torch_dist, environ):
    launch = torch_dist.launch_from_env(environ)
    assert launch == torch_dist.Launch(3, 1, 4, 2, "mpi")


def test_torchrun_variables_win_and_no_launcher_means_one_process(torch_dist):
    both = {**OPEN_MPI, "RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "2", "LOCAL_WORLD_SIZE": "2"}
    assert torch_dist.launch_from_env(both) == torch_dist.Launch(0, 0, 2, 2, "torchrun")
    assert torch_dist.launch_from_env({}) == torch_dist.Launch(0, 0, 1, 1, "none")


def test_master_is_the_first_sagemaker_host_unless_the_launcher_names_one(torch_dist):
    hosts = {"SM_HOSTS": '["algo-1","algo-2"]'}
    assert torch_dist.master_address(hosts) == "algo-1"
    assert torch_dist.master_address({**hosts, "MASTER_ADDR": "127.0.0.1"}) == "127.0.0.1"
    assert torch_dist.master_address({}) == "127.0.0.1"


def test_an_mpi_launch_is_exported_for_the_env_rendezvous(torch_dist):
    environ = {**OPEN_MPI, "SM_HOSTS": '["algo-1","algo-2"]', "MASTER_PORT": "41234"}
    torch_dist.export_mpi_launch(environ)
    assert {k: environ[k] for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE")} == {
        "RANK": "3",
        "LOCAL_RANK": "1",
        "WORLD_SIZE": "4",
        "LOCAL_WORLD_SIZE": "2",
    }
    assert environ["MASTER_ADDR"] == "algo-1" and environ["MASTER_PORT"] == "41234"
    untouched: dict[str, str] = {"RANK": "1", "WORLD_SIZE": "2"}
    torch_dist.export_mpi_launch(untouched)  # torchrun's launch: nothing to add
    assert untouched == {"RANK": "1", "WORLD_SIZE": "2"}

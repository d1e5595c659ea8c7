"""Each emulated host's TF_CONFIG equals what the SageMaker TensorFlow container computes.

The oracle is the container's own code: `sagemaker_tensorflow_container.training` (installed
--no-deps by `make setup`), whose `_build_tf_config_for_ps` / `_build_tf_config_for_mwms` build
the cluster with fixed ports on each host's own address (algo-N:2222 / 2223 / 8890). Locally all
hosts share 127.0.0.1, so every (host, port) pair gets a free port of its own: the comparison is
exact after mapping each container address to its local one, and the mapping itself is checked to
be one-to-one onto free loopback ports.
"""

from __future__ import annotations

import json
import socket

import pytest

from sagelaunch.local import tf_config
from sagelaunch.local.tf_config import TfCluster

# Every module that loads TensorFlow in-process runs on one xdist worker: one import for all.
pytestmark = pytest.mark.xdist_group("tensorflow")

HOSTS = [["algo-1"], ["algo-1", "algo-2"], ["algo-1", "algo-2", "algo-3"]]


@pytest.fixture(scope="module")
def container():
    from sagemaker_tensorflow_container import training

    return training


def _bindable(address: str) -> bool:
    host, port = address.rsplit(":", 1)
    with socket.socket() as sock:
        try:
            sock.bind((host, int(port)))
        except OSError:
            return False
    return True


@pytest.mark.parametrize("hosts", HOSTS[1:], ids=len)
def test_parameter_server_hosts_get_the_containers_tf_config(container, hosts):
    cluster = TfCluster.for_job({"sagemaker_parameter_server_enabled": True}, hosts)
    assert cluster.flag == tf_config.PS_FLAG
    for host in hosts:
        theirs = container._build_tf_config_for_ps(hosts=hosts, current_host=host)
        theirs_ps = container._build_tf_config_for_ps(hosts=hosts, current_host=host, ps_task=True)
        assert json.loads(cluster.worker_tf_config(hosts, host)) == cluster.addresses.translate(
            theirs
        )
        assert json.loads(cluster.ps_tf_config(hosts, host)) == cluster.addresses.translate(
            theirs_ps
        )
    # One local address per container address, all distinct and free on loopback.
    local = list(cluster.addresses.local.values())
    assert sorted(cluster.addresses.local) == sorted(
        f"{h}:{p}" for h in hosts for p in (tf_config.WORKER_PORT, tf_config.PS_PORT)
    )
    assert len(set(local)) == len(local) and all(_bindable(a) for a in local)


@pytest.mark.parametrize("hosts", HOSTS, ids=len)
def test_mwms_hosts_get_the_containers_tf_config(container, hosts):
    cluster = TfCluster.for_job({"sagemaker_multi_worker_mirrored_strategy_enabled": True}, hosts)
    assert cluster.flag == tf_config.MWMS_FLAG
    for host in hosts:
        theirs = container._build_tf_config_for_mwms(hosts=hosts, current_host=host)
        assert json.loads(cluster.worker_tf_config(hosts, host)) == cluster.addresses.translate(
            theirs
        )
        assert cluster.ps_tf_config(hosts, host) is None
    assert all(address.endswith(":8890") for address in cluster.addresses.local)


def test_builders_equal_the_containers_on_host_names(container):
    """Before any port mapping, the cluster specs are the container's, key for key."""
    for hosts in HOSTS:
        for host in hosts:
            ours = tf_config.mwms_config(hosts, host)
            assert ours == container._build_tf_config_for_mwms(hosts=hosts, current_host=host)
            ours = tf_config.parameter_server_config(hosts, host, ps_task=False)
            assert ours == container._build_tf_config_for_ps(hosts=hosts, current_host=host)


def test_one_host_with_parameter_servers_runs_alone_as_in_the_container():
    """training.train: parameter servers only with more than one host; no TF_CONFIG at all."""
    cluster = TfCluster.for_job({"sagemaker_parameter_server_enabled": True}, ["algo-1"])
    assert cluster.flag is None
    env = cluster.worker_environment({"TF_CONFIG": "inherited", "A": "1"}, ["algo-1"], "algo-1")
    assert env == {"A": "1"}
    assert cluster.parameter_servers(env, ["algo-1"], "algo-1", None, None) == []

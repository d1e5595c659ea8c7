"""What each emulated host runs: its whole environment (the container's, the SM_* contract, the
launcher's variables), its command (the launcher, or one plain process on a group that does not
train), the TensorFlow parameter servers beside it, and its sandbox."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from sagelaunch.config.model import LaunchConfig
from sagelaunch.local import (
    code_channel,
    environment,
    group_hosts,
    hub,
    launchers,
    mpi,
    ports,
    sandbox,
    supervisor,
    tf_config,
    tree,
    v3,
    warm,
)
from sagelaunch.local.preflight import Prepared
from sagelaunch.plan_model import Plan
from sagelaunch.strategies.base import MPIRUN, PYTHON


def seen_trees(prepared: Prepared, trees: list[tree.HostTree]) -> list[tree.HostTree]:
    """Each host's tree as its processes see it: /opt/ml in a sandbox (every MPI rank too: each
    enters its own host's sandbox), else where it is."""
    return [sandbox.visible(host, prepared.sandbox) for host in trees]


def host_processes(
    prepared: Prepared,
    plan: Plan,
    trees: list[tree.HostTree],
    agents: list[subprocess.Popen[bytes]],
    cores: int | None,
) -> list[supervisor.HostProcess]:
    config, launch = prepared.config, prepared.launch
    request = plan.request
    container_env = {
        **request.get("Environment", {}),
        "SAGEMAKER_TRAINING_MODULE": environment.TRAINING_MODULES[config.base_framework],
        "TRAINING_JOB_NAME": plan.job_name,  # the platform's, in every job
    }
    machine = environment.Machine.detect()
    hyperparameters = request.get("HyperParameters", {})
    cluster = prepared.cluster
    receiving = group_hosts.receivers(request, cluster)
    names = [host.name for host in trees]
    framework, user = environment.split_hyperparameters(
        environment.decode_hyperparameters(hyperparameters)
    )
    master_port = ports.free_port()
    own_network = prepared.sandbox.network.own
    master = master_address(prepared)
    extra = launcher_env(
        len(trees), launch, master, master_port, cores or machine.num_cpus, container_env
    )
    if config.base_framework == "pytorch":
        # The PyTorch container's training.py sets them on every job, one host included, so
        # init_process_group(init_method='env://') works there (its port 7777: a free one here).
        extra |= {"MASTER_ADDR": master, "MASTER_PORT": str(master_port)}
    extra |= {} if own_network else group_hosts.feed_env(cluster)  # own hosts: at their names
    extra |= hub.offline_env(prepared.sandbox.network)
    tf_cluster = (
        tf_config.TfCluster.for_job(framework, names, own_network)
        if tf_config.applies(config)
        else None
    )
    seen = seen_trees(prepared, trees)
    envs, sm_names = [], []
    for index, host in enumerate(seen):
        training_env = environment.training_environment(
            host,
            hyperparameters=code_channel.on_host(hyperparameters, host),
            resources=group_hosts.resource_config(cluster[index], cluster),
            channels=group_hosts.host_channels(tree.input_data_config(request), receiving, index),
            machine=machine,
            container_env=container_env,
        )
        sm = environment.sm_variables(training_env)
        sm_names = sorted(sm)
        home = trees[index].root.parent / sandbox.SANDBOX_DIR / host.name / "home"
        home.mkdir(parents=True, exist_ok=True)  # the sandbox's HOME too (sandbox.entry)
        envs.append(
            environment.process_environment(
                os.environ,
                home=home,
                container_env=container_env,
                sm=sm,
                training_env=training_env,
                job_name=plan.job_name,
                region=plan.region,
                code_dir=str(host.code),
                extra=extra,
            )
        )
    training = [i for i, h in enumerate(cluster) if h.trains]  # mpirun spans these hosts only
    mpi_job = _mpi_job(
        prepared,
        [trees[i] for i in training],
        [envs[i] for i in training],
        sm_names,
        framework,
    )
    specs = []
    for index, (host, env) in enumerate(zip(trees, envs, strict=True)):
        position = group_hosts.training_position(cluster, index)
        workdir = host.root.parent
        log = workdir / "logs" / f"{host.name}.log"
        agent_files = log.with_name(f"torchelastic-{host.name}")
        command, own_env = _command(
            launch, config, user, position, (master, master_port), mpi_job, agent_files
        )
        if command is None:
            continue
        env = {**env, **own_env}
        waiting = agents[index] if index < len(agents) and warm.is_warmable(command) else None
        host_specs = []
        if tf_cluster is not None:
            env = tf_cluster.worker_environment(env, names, host.name)
            host_specs += tf_cluster.parameter_servers(env, names, host.name, host.code, log)
        # The one place every host process gets its sandbox (the launcher's command included;
        # mpirun stays outside, in the first host's network where each host has its own, each of
        # its ranks entering its own host's sandbox: mpi_rank.py).
        specs += [sandbox.confine(spec, host, workdir, prepared.sandbox) for spec in host_specs]
        launcher = supervisor.HostProcess(host.name, command, host.code, env, log, waiting)
        if mpi_job is not None and position is not None:  # the one mpirun
            specs.append(sandbox.outside(launcher, workdir, prepared.sandbox))
        else:
            specs.append(sandbox.confine(launcher, host, workdir, prepared.sandbox))
    return specs


def _command(
    launch: launchers.Launch,
    config: LaunchConfig,
    user: dict[str, Any],
    position: tuple[int, int] | None,
    master: tuple[str, int],
    mpi_job: launchers.MpiJob | None,
    agent_files: Path,
) -> tuple[list[str] | None, dict[str, str]]:
    """The launcher on the training group's hosts; one plain process on the other groups'. With
    the command, what a strategy's own launcher sets on the host."""
    run_as = launch if position is not None else launchers.Launch(PYTHON, 1)
    node_rank, nodes = position if position is not None else (0, 1)
    args = (v3.user_args if config.sdk == "v3" else environment.user_args)(user)
    host = launchers.slot(run_as, str(config.entry_point), args, node_rank, nodes, *master)
    training_mpi = mpi_job if position is not None else None
    command = launchers.host_command(run_as, host, training_mpi, log_dir=agent_files)
    return command, launchers.own_environment(run_as, host)


def _mpi_job(
    prepared: Prepared,
    trees: list[tree.HostTree],
    envs: list[dict[str, str]],
    sm_names: list[str],
    framework: dict[str, Any],
) -> launchers.MpiJob | None:
    """The ranks file mpi_rank.py and mpi_agent.py read (every host's folder, environment,
    sandbox and network) and what the toolkit's MasterRunner exports with -x: its env_vars, the
    SM_* names."""
    launch = prepared.launch
    if launch.kind != MPIRUN:
        return None
    workdir = trees[0].root.parent
    ranks_file = workdir / "logs" / "mpi-ranks.json"
    hosts = [(host.name, host.code, env) for host, env in zip(trees, envs, strict=True)]
    entries = [
        sandbox.rank_entry(host, workdir, prepared.sandbox, env, host.code)
        for host, env in zip(trees, envs, strict=True)
    ]
    holders = prepared.sandbox.network.holders  # none on the shared network
    mpi.write_ranks_file(ranks_file, launch.processes_per_host, hosts, entries, holders)
    custom = str(framework.get("sagemaker_mpi_custom_mpi_options") or "")
    return launchers.MpiJob(ranks_file, sm_names, custom)


def master_address(prepared: Prepared) -> str:
    """Where the launcher's master listens: the first training host by name where each host has
    a network of its own (as the toolkit gives torchrun ``--master_addr algo-1``), else this
    machine's loopback, which every host shares."""
    if not prepared.sandbox.network.own:
        return launchers.LOOPBACK
    return next(host.name for host in prepared.cluster if host.trains)


def launcher_env(
    hosts: int,
    launch: launchers.Launch,
    master_addr: str,
    master_port: int,
    cores: int,
    container_env: dict[str, str],
) -> dict[str, str]:
    # The XGBoost entry point's tracker (a container default of 9099, TIME_WAIT after a run).
    env = {ports.TRACKER_PORT_VARIABLE: str(ports.free_port_pair())}
    if hosts > 1 or launch.kind == MPIRUN:
        env |= {"MASTER_ADDR": master_addr, "MASTER_PORT": str(master_port)}
    if "OMP_NUM_THREADS" not in {**os.environ, **container_env}:
        # The emulated hosts share this machine's cores; without a cap every process would start
        # one thread per core and they would fight over them (torchrun caps its workers alike).
        processes = hosts * launch.processes_per_host
        env["OMP_NUM_THREADS"] = str(max(1, cores // processes))
    return env

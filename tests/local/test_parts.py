"""The pieces of a local run, without training processes: planning variant, tree files, env,
launchers, the supervisor's reading of a host's output."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sagelaunch.config.loader import load
from sagelaunch.errors import UsageError
from sagelaunch.local import environment, launchers, supervisor, tree, warm
from sagelaunch.local.preflight import host_count
from sagelaunch.local.variant import PLACEHOLDER_ROLE, local_variant
from tests.local.conftest import alive, clean_env


def test_variant_plans_without_aws_settings(make_config, monkeypatch):
    monkeypatch.delenv("AWS_REGION", raising=False)
    loaded = load(
        make_config(
            {
                "role": None,
                "region": None,
                "output_path": None,
                "hyperparameters": {"epochs": 10, "lr": 0.1},
                "inputs": {"train": "file:///data/train", "test": "s3://bucket/test/"},
                "local": {"hyperparameters": {"epochs": 1}},
            }
        )
    )
    config = local_variant(loaded).config
    assert config.role == PLACEHOLDER_ROLE and config.region == "us-east-1"
    assert config.output_path == "s3://sagelaunch-local/output/"
    assert config.inputs["train"].uri == "s3://sagelaunch-local/input/train/"
    assert config.inputs["test"].uri == "s3://bucket/test/"
    assert config.hyperparameters == {"epochs": 1, "lr": 0.1}
    assert loaded.config.hyperparameters == {"epochs": 10, "lr": 0.1}  # the original is untouched


def test_variant_keeps_the_configs_region(make_config):
    assert local_variant(load(make_config({"region": "eu-west-1"}))).config.region == "eu-west-1"


def test_input_data_config_from_the_request():
    request = {
        "AlgorithmSpecification": {"TrainingInputMode": "File"},
        "InputDataConfig": [
            {
                "ChannelName": "train",
                "ContentType": "text/csv",
                "DataSource": {"S3DataSource": {"S3DataDistributionType": "ShardedByS3Key"}},
            },
            {
                "ChannelName": "fsx",
                "InputMode": "FastFile",
                "DataSource": {"FileSystemDataSource": {"FileSystemType": "FSxLustre"}},
            },
        ],
    }
    assert tree.input_data_config(request) == {
        "train": {
            "ContentType": "text/csv",
            "TrainingInputMode": "File",
            "S3DistributionType": "ShardedByS3Key",
            "RecordWrapperType": "None",
        },
        "fsx": {
            "TrainingInputMode": "FastFile",
            "S3DistributionType": "FullyReplicated",
            "RecordWrapperType": "None",
        },
    }


def test_resource_config_shape():
    config = tree.resource_config("algo-2", ["algo-1", "algo-2"], "ml.p4d.24xlarge")
    assert config["current_host"] == "algo-2" and config["network_interface_name"] == "eth0"
    assert config["current_group_name"] == "homogeneousCluster"
    assert config["instance_groups"] == [
        {
            "instance_group_name": "homogeneousCluster",
            "instance_type": "ml.p4d.24xlarge",
            "hosts": ["algo-1", "algo-2"],
        }
    ]


@pytest.mark.parametrize(
    ("config_hosts", "instance_count", "requested", "expected"),
    [(None, 4, None, 2), (None, 1, None, 1), (3, 4, None, 3), (3, 4, 5, 5)],
)
def test_host_count(config_hosts, instance_count, requested, expected):
    assert host_count(config_hosts, instance_count, requested) == expected


def test_process_environment_names_the_job_as_sagemaker_does():
    training_env = {"current_host": "algo-1"}
    env = environment.process_environment(
        {"TRAINING_JOB_NAME": "x", "SM_OLD": "1", "RANK": "3", "HOME": "/home/me"},
        container_env={"TRAINING_JOB_NAME": "y", "NCCL_DEBUG": "WARN"},
        sm={"SM_CURRENT_HOST": "algo-1"},
        training_env=training_env,
        job_name="job",
        region="us-east-1",
        code_dir="/run/algo-1/code",
        extra={"MASTER_ADDR": "127.0.0.1"},
    )
    assert env["TRAINING_JOB_NAME"] == "job" and env[environment.LOCAL_RUN_VARIABLE] == "1"
    assert "SM_OLD" not in env and "RANK" not in env
    assert env["HOME"] == "/home/me" and env["NCCL_DEBUG"] == "WARN"
    assert env["SM_CURRENT_HOST"] == env["CURRENT_HOST"] == "algo-1"
    assert env["PYTHONPATH"] == "/run/algo-1/code" and env["MASTER_ADDR"] == "127.0.0.1"


@pytest.mark.parametrize(
    ("topology", "strategy", "kind"),
    [
        ("python", "none", "python"),
        ("xgboost", "none", "python"),
        ("torchrun", "torchrun", "torchrun"),
        ("torchrun", "smp", "torchrun"),
        ("mpirun", "smddp", "torchrun"),
    ],
)
def test_launcher_per_strategy(topology, strategy, kind):
    launch = launchers.choose(topology, strategy, 1)
    assert launch.kind == kind and launch.warning is None


def test_one_process_per_host_without_a_distributed_launcher():
    launch = launchers.choose("python", "none", 4)
    assert launch.processes_per_host == 1
    assert launch.warning and "processes_per_host is ignored" in launch.warning


def test_torchrun_command_per_host():
    launch = launchers.Launch("torchrun", 2)
    host = launchers.slot(launch, "train.py", ["--lr", "0.1"], 1, 2, "127.0.0.1", 29999)
    command = launchers.host_command(launch, host, log_dir=Path("/run/logs/torchelastic-algo-2"))
    assert command == [
        sys.executable, warm.AGENT_SCRIPT, "--nnodes", "2", "--nproc_per_node", "2",
        "--node_rank", "1", "--master_addr", "127.0.0.1", "--master_port", "29999",
        "--log-dir", "/run/logs/torchelastic-algo-2", "train.py", "--lr", "0.1",
    ]  # fmt: skip


def test_mpirun_runs_from_the_first_host_only(tmp_path):
    launch = launchers.Launch("mpirun", 2, mpirun="/venv/bin/mpirun")
    job = launchers.MpiJob(tmp_path / "ranks.json")
    slots = (launchers.slot(launch, "t.py", [], index, 3, "127.0.0.1", 1) for index in (1, 0))
    second, first = slots
    assert launchers.host_command(launch, second, job) is None
    command = launchers.host_command(launch, first, job)
    assert command is not None and command[0] == "/venv/bin/mpirun"
    assert command[command.index("-np") + 1] == "6"


@pytest.mark.slow
def test_warm_agents_leave_quietly_when_planning_fails():
    with pytest.raises(RuntimeError), warm.agents(2, clean_env()) as procs:
        raise RuntimeError("planning failed")
    assert [proc.returncode for proc in procs] == [0, 0]
    assert not [proc.pid for proc in procs if alive(proc.pid)]


def test_the_metrics_cell_drops_mpiruns_rank_tag_but_the_log_keeps_it(tmp_path):
    """mpirun --tag-output prefixes "[1,0]<stdout>:"; the summary shows the metrics alone."""
    tagged = "[1,0]<stdout>:step=3 train_loss=1.5000"
    host = supervisor.HostProcess(
        host="algo-1",
        argv=[sys.executable, "-c", f"print({tagged!r})"],
        cwd=tmp_path,
        env={"PATH": os.environ["PATH"]},
        log=tmp_path / "algo-1.log",
    )
    printed: list[str] = []
    [outcome] = supervisor.run([host], [r"train_loss=(\S+)"], lambda _, line: printed.append(line))
    assert outcome.exit_code == 0
    assert outcome.last_metrics == "step=3 train_loss=1.5000"
    assert printed == [tagged] and (tmp_path / "algo-1.log").read_text() == tagged + "\n"


@pytest.mark.parametrize(
    ("hosts", "per_host", "cores", "threads"), [(2, 1, 8, "4"), (2, 2, 2, "1")]
)
def test_each_process_gets_its_share_of_the_runs_cores(
    monkeypatch, hosts, per_host, cores, threads
):
    from sagelaunch.local.host_processes import launcher_env

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    launch = launchers.Launch("torchrun", per_host)
    assert launcher_env(hosts, launch, "127.0.0.1", 29500, cores, {})["OMP_NUM_THREADS"] == threads
    assert "OMP_NUM_THREADS" not in launcher_env(
        hosts, launch, "127.0.0.1", 29500, cores, {"OMP_NUM_THREADS": "3"}
    )


def test_a_local_sweep_splits_the_cores_between_the_trials_it_runs_at_once(monkeypatch, tmp_path):
    from types import SimpleNamespace as Stub

    from sagelaunch.local import job
    from sagelaunch.local.options import Options
    from sagelaunch.sweeps import local as sweep_local

    given: list[Options] = []
    monkeypatch.setattr(sweep_local.os, "cpu_count", lambda: 8)
    monkeypatch.setattr(
        sweep_local,
        "_prepare",
        lambda trial, workdir, progress: sweep_local.LocalTrial(
            trial, None, Stub(job_name=f"t-{trial.index}", request={}), None, workdir
        ),
    )
    monkeypatch.setattr(job, "run", lambda *args, **kwargs: given.append(args[3]) or 1 / 0)
    spec = Stub(
        base=Stub(config=Stub(name="s", framework="xgboost")),
        trials=[Stub(index=n, parameters={}) for n in range(3)],
        sweep=Stub(objective=Stub(metric="m", goal="minimize")),
    )
    result = sweep_local.run(spec, max_parallel=2, workdir=tmp_path)  # type: ignore[arg-type]
    assert [options.cores for options in given] == [4, 4, 4]
    assert [t.status for t in result.trials] == ["Failed"] * 3  # the stand-in raised: recorded


def _waiting_process() -> subprocess.Popen[bytes]:
    """Stands in for a warm agent: waits on stdin, as one does once torch is imported."""
    return subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )


def test_guessed_agents_are_used_first_and_the_unneeded_killed():
    guessed = [_waiting_process(), _waiting_process()]
    first, second = guessed
    with warm.agents(1, clean_env(), guessed) as agents:
        assert agents == [second] and guessed == []  # taken from the guess, the list emptied
        assert first.wait(timeout=10) == -9  # not needed: killed at once
    assert second.wait(timeout=10) == 0  # dismissed like any agent: stdin closed, it exits


def test_a_rerun_of_the_same_config_and_options_finds_its_hint(tmp_path, monkeypatch):
    from sagelaunch.local import warm_hint
    from sagelaunch.local.options import Options

    monkeypatch.chdir(tmp_path)
    config = tmp_path / "job.yaml"
    config.write_text("name: a\n")
    hint = warm_hint.key(config, ["local.hosts=2"], Options())
    assert warm_hint.guess(hint) == 0  # never ran
    warm_hint.remember(hint, 2)
    assert warm_hint.guess(warm_hint.key(config, ["local.hosts=2"], Options())) == 2
    others = [
        warm_hint.key(config, None, Options()),
        warm_hint.key(config, ["local.hosts=2"], Options(hosts=3)),
    ]
    config.write_text("name: b\n")
    others.append(warm_hint.key(config, ["local.hosts=2"], Options()))
    assert hint not in others and all(warm_hint.guess(k) == 0 for k in others)
    assert warm_hint.key(tmp_path / "missing.yaml", None, Options()) is None


def test_the_stop_grace_period_comes_from_its_variable(monkeypatch):
    monkeypatch.delenv(supervisor.GRACE_VARIABLE, raising=False)
    assert supervisor.stop_grace_s() == supervisor.GRACE_S
    monkeypatch.setenv(supervisor.GRACE_VARIABLE, "120")
    assert supervisor.stop_grace_s() == 120.0
    monkeypatch.setenv(supervisor.GRACE_VARIABLE, "two minutes")
    with pytest.raises(UsageError, match=supervisor.GRACE_VARIABLE) as raised:
        supervisor.stop_grace_s()
    assert "120" in str(raised.value.hint)

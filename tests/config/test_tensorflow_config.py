"""TensorFlow in the launch config: its strategies and model_dir load, legacy TF 1.x estimator
arguments are refused with where each went, and the SDK-accepted setups validate clean."""

from __future__ import annotations

import pytest

from sagelaunch.checks.rules import check
from sagelaunch.config.loader import load
from sagelaunch.errors import ConfigError
from tests.config.tf_rule_cases import TF, TWO_C5

ACCEPTED = {
    "mirrored on one GPU host": {**TF, "compute": {"instance_type": "ml.g5.12xlarge"}},
    "mwms on 2 CPU hosts": {**TF, "distribution": {"strategy": "multi_worker_mirrored"}},
    "parameter servers": {**TF, "distribution": {"strategy": "parameter_server"}},
    "horovod": {**TF, "distribution": {"strategy": "mpi", "processes_per_host": 4}},
    "smddp on TF 2.11": {
        **TF,
        "framework_version": "2.11.0",
        "distribution": {"strategy": "smddp"},
        "compute": {"instance_type": "ml.p4d.24xlarge", "instance_count": 2},
    },
    "smp v1 under mpirun (TF 2.3.1)": {
        **TF,
        "framework_version": "2.3.1",
        "py_version": "py37",
        "distribution": {
            "strategy": "smp",
            "processes_per_host": 2,
            "smp": {"version": 1, "parameters": {"partitions": 2, "microbatches": 2}},
        },
        "compute": {"instance_type": "ml.p3.16xlarge", "instance_count": 1},
    },
    "script mode on TF 1.15 with model_dir": {
        **TF,
        "framework_version": "1.15",
        "py_version": "py37",  # the SDK needs one: its table offers py3, py36 and py37
        "model_dir": "s3://b/m",
    },
}


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_tensorflow_setups_the_sdk_accepts_validate(make_config, case):
    config = {"compute": TWO_C5, **ACCEPTED[case]}
    problems = check(load(make_config(config)))
    assert [p.message for p in problems if p.severity == "error"] == []


def test_a_legacy_estimator_argument_says_where_it_went(make_config):
    with pytest.raises(ConfigError) as info:
        load(make_config({**TF, "training_steps": 1000}))
    (problem,) = info.value.problems
    assert problem.path == "training_steps" and problem.line >= 1
    assert "legacy TensorFlow 1.x estimator argument" in problem.message
    assert "hyperparameters.training_steps" in problem.message


def test_mpi_keys_do_not_apply_to_parameter_servers(make_config):
    distribution = {"strategy": "parameter_server", "processes_per_host": 2}
    with pytest.raises(ConfigError) as info:
        load(make_config({**TF, "distribution": distribution}))
    (problem,) = info.value.problems
    assert "processes_per_host applies to strategy smp or mpi, not parameter_server" in (
        problem.message
    )


def test_smp_v2_is_pytorchs(make_config):
    path = make_config({**TF, "distribution": {"strategy": "smp"}})
    errors = [p for p in check(load(path)) if p.severity == "error"]
    assert any("TensorFlow runs SMP v1" in p.message for p in errors)


@pytest.mark.parametrize("key", ["tf_distribute", "strategy"])
def test_the_one_host_rule_reads_tf_distribute_and_its_old_name(make_config, key):
    """The entry point's --tf_distribute still reads its old name --strategy, and so does the
    rule: either one naming a one-host strategy on two MWMS hosts is refused, at that key."""
    mwms = {"strategy": "multi_worker_mirrored"}
    config = {**TF, "hyperparameters": {key: "mirrored"}, "distribution": mwms, "compute": TWO_C5}
    errors = [p for p in check(load(make_config(config))) if p.severity == "error"]
    (problem,) = [p for p in errors if "trains on one host" in p.message]
    assert problem.path == f"hyperparameters.{key}"
    assert problem.message.startswith(f"{key}: mirrored trains on one host")

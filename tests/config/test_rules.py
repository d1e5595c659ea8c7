"""Each compatibility rule fires on a config that breaks it and stays quiet on one that does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from sagelaunch.checks.rules import RULES, check
from sagelaunch.config.loader import load
from tests.config.hetero_cases import HETERO_CASES
from tests.config.hf_rule_cases import HF_CASES
from tests.config.reserved_cases import RESERVED_CASES
from tests.config.tf_rule_cases import TF_CASES

P4D = {"instance_type": "ml.p4d.24xlarge", "instance_count": 2}
# sagelaunch's own train_pytorch.py (no such file beside the config: the shipped one)
SHIPPED_FSDP = {
    "entry_point": "train_pytorch.py",
    "source_dir": None,
    "compute": P4D,
    "distribution": {"strategy": "torchrun"},
    "hyperparameters": {"parallel": "fsdp"},
}
P5 = {"instance_type": "ml.p5.48xlarge", "instance_count": 2}
TRN = {"instance_type": "ml.trn1.32xlarge", "instance_count": 2}
TORCHRUN = {"distribution": {"strategy": "torchrun"}}
SMP1 = {"strategy": "smp", "processes_per_host": 8, "smp": {"version": 1, "parameters": {}}}


def smp1(**params):
    return {
        "compute": P4D,
        "framework_version": "1.13.1",
        "distribution": {**SMP1, "smp": {"version": 1, "parameters": params}},
    }


XGB = {
    "framework": "xgboost",
    "framework_version": "1.7-1",
    "entry_point": "train.py",
    "compute": {"instance_type": "ml.m5.xlarge", "instance_count": 2},
}

TUNE = {"objective": {"metric": "train:loss"}, "ranges": {"lr": {"min": 1.0e-4, "max": 0.1}}}

# A code folder with a link out of it (lib -> tests/golden/source).
LINKED_SOURCE = str(Path(__file__).resolve().parents[1] / "bundle" / "linked_source")

# rule -> (overrides that make it fire, message fragment, overrides where it stays quiet)
CASES = {
    "entry_point_present": ({"entry_point": "missing.py"}, "missing.py not found", {}),
    "entry_point_inside_source_dir": (
        {"entry_point": "../train.py"},
        "../train.py is outside the code folder",
        {},
    ),
    "source_dir_is_a_project": ({"source_dir": "/"}, "/ is the root of the disk", {}),
    "source_dir_links": ({"source_dir": LINKED_SOURCE}, "has links to files outside it", {}),
    "sdk_resolves_image": (
        {"framework_version": "2.4.1"},
        "has no pytorch training image for version '2.4.1'",
        {"framework_version": "2.4"},
    ),
    "py_version_when_the_sdk_offers_several": (
        {"framework_version": "1.1.0", "py_version": None},
        "set py_version to one of py2, py3",
        {"framework_version": "1.1.0", "py_version": "py3"},
    ),
    "neuron_image_version": (
        {"compute": TRN, "framework_version": "2.0.0", "py_version": "py38"},
        "the job runs 1.11.0",
        {"compute": TRN, "framework_version": "1.11.0"},
    ),
    "xgboost_script_mode_versions": (
        {**XGB, "py_version": "py38"},
        "accepts only py3",
        XGB,
    ),
    "image_python_end_of_life": (
        {"framework_version": "1.7.1", "compute": {"instance_type": "ml.p3.2xlarge"}},
        "past its end of life",
        {},
    ),
    "image_without_framework_version": (
        {"framework_version": None, "image_uri": "1.dkr.ecr/pytorch-training:2.2.0-gpu-py310"},
        "taken as 2.2.0 from the image tag",
        {"image_uri": "1.dkr.ecr/pytorch-training:2.2.0-gpu-py310"},
    ),
    "strategy_for_framework": ({**XGB, "distribution": {"strategy": "mpi"}}, "ignored", XGB),
    "smddp_instance_type": (
        {"distribution": {"strategy": "smddp"}, "compute": {"instance_type": "ml.g5.48xlarge"}},
        "the SMDDP library supports only",
        {"distribution": {"strategy": "smddp"}, "compute": P4D},
    ),
    "smddp_image": (
        {"distribution": {"strategy": "smddp"}, "compute": P4D, "framework_version": "2.5.1"},
        "set image_uri",
        {"distribution": {"strategy": "smddp"}, "compute": P4D, "framework_version": "2.3.0"},
    ),
    "trainium_strategy": (
        {"compute": TRN, "framework_version": "2.1.2", "distribution": {"strategy": "mpi"}},
        "on Trainium, not mpi",
        {"compute": TRN, "framework_version": "2.1.2", "distribution": {"strategy": "torchrun"}},
    ),
    "torchrun_instance_and_version": (
        {"distribution": {"strategy": "torchrun"}, "compute": {"instance_type": "ml.c5.xlarge"}},
        "on GPU and Trainium instances only",
        {"distribution": {"strategy": "torchrun"}},
    ),
    "torchrun_entry_point_is_python": (
        {"distribution": {"strategy": "torchrun"}, "entry_point": "run.sh"},
        "must end in .py",
        {"distribution": {"strategy": "torchrun"}},
    ),
    "mesh_degrees_divide_the_world": (
        {
            "compute": P4D,
            "distribution": {"strategy": "torchrun"},
            "hyperparameters": {"tensor_parallel_degree": 3},
        },
        "does not divide the world size 16",
        {
            "compute": P4D,
            "distribution": {"strategy": "torchrun"},
            "hyperparameters": {"tensor_parallel_degree": 4, "pipeline_parallel_degree": 2},
        },
    ),
    "smp_v2_instance_type": (
        {"compute": {"instance_type": "ml.g5.48xlarge"}, "distribution": {"strategy": "smp"}},
        "the SMP v2 library supports only ml.p4d.24xlarge",
        {"compute": P4D, "distribution": {"strategy": "smp"}},
    ),
    "smp_v1_parameters": (
        smp1(pipeline="fast", partitions=3),
        "must be one of",
        smp1(pipeline="interleaved", partitions=2, microbatches=4),
    ),
    "instance_type_known": (
        {"compute": {"instance_type": "p4d.24xlarge"}},
        "not a SageMaker instance type",
        {"compute": {"instance_type": "ml.g5.xlarge"}},
    ),
    "run_time_ranges": (
        {"compute": {"max_run": "30d"}},
        "28 days",
        {"compute": {"max_run": "28d"}},
    ),
    "spot_max_wait": (
        {"compute": {"max_run": "2h", "spot": {"max_wait": "1h"}}},
        "must be >= max_run",
        {"compute": {"max_run": "2h", "spot": {"max_wait": "2h"}}},
    ),
    "one_max_wait": (
        {"compute": {"max_wait": "2d", "spot": {"max_wait": "2d"}}},
        "move this value there",
        {"compute": {"max_wait": "2d"}},
    ),
    "spot_without_checkpoint": (
        {"compute": {"spot": {"max_wait": "2d"}}},
        "add checkpoint.s3_uri",
        {"compute": {"spot": {"max_wait": "2d"}}, "checkpoint": {"s3_uri": "s3://bkt/c/"}},
    ),
    "sharded_single_instance": (
        {"inputs": {"train": {"uri": "s3://bkt/t/", "distribution": "sharded"}}},
        "same as replicated",
        {
            "inputs": {"train": {"uri": "s3://bkt/t/", "distribution": "sharded"}},
            "compute": {"instance_count": 2},
        },
    ),
    "xgboost_dask_gpu": (
        {
            **XGB,
            "compute": {"instance_type": "ml.g5.2xlarge", "instance_count": 2},
            "hyperparameters": {"use_dask_gpu_training": "true"},
            "inputs": {"train": {"uri": "s3://bkt/t/", "distribution": "sharded"}},
        },
        "requires FullyReplicated",
        {
            **XGB,
            "compute": {"instance_type": "ml.g5.2xlarge", "instance_count": 2},
            "hyperparameters": {"use_dask_gpu_training": "true"},
            "inputs": {"train": "s3://bkt/t/"},
        },
    ),
    "channels_well_formed": (
        {"inputs": {"train": "http://b/t"}},
        "not an S3 URI",
        {"inputs": {"train": "s3://bkt/t/"}},
    ),
    "s3_uris_well_formed": (
        {"output_path": "gs://b/out"},
        "not an S3 URI",
        {"output_path": "s3://b-1/out/"},
    ),
    "placeholder_bucket": (
        {"checkpoint": {"s3_uri": "s3://my-sagemaker-bucket/checkpoints/"}},
        "s3://my-sagemaker-bucket/checkpoints/ is the starter config's placeholder",
        {"checkpoint": {"s3_uri": "s3://my-sagemaker-bucket-2/checkpoints/"}},
    ),
    "role_is_arn": ({"role": "SageMakerRole"}, "is not an IAM role ARN", {}),
    "job_name_truncated": ({"name": "n" * 40}, "keep the first 39", {"name": "n" * 39}),
    "tuning_base_name_truncated": (
        {"tuning": {**TUNE, "base_name": "yolov5-project-hpo-5c5f3ae2-5a3b"}},
        "keep the first 20 ('yolov5-project-hpo-5')",
        {"tuning": {**TUNE, "base_name": "yolov5-project-hpo-5"}},
    ),
    "api_map_limits": (
        {"environment": {"MY-VAR": "1"}},
        "must match the API's pattern",
        {"environment": {"MY_VAR": "1"}},
    ),
    "api_request_limits": (
        {"tags": {"aws:team": "vision"}},
        "AWS reserves the aws: prefix",
        {"tags": {"team": "vision"}},
    ),
    "deepspeed_needs_a_launcher": (
        {"compute": P4D, "hyperparameters": {"zero_stage": 3}},
        "runs under a distributed launcher, not strategy none",
        {
            "compute": P4D,
            "distribution": {"strategy": "torchrun"},
            "hyperparameters": {"zero_stage": 3},
        },
    ),
    "data_parallel_is_one_process": (
        {"compute": P4D, "hyperparameters": {"parallel": "dp"}},
        "runs in one process on one host, not with 2 instances",
        {"compute": {**P4D, "instance_count": 1}, "hyperparameters": {"parallel": "dp"}},
    ),
    "parameter_server_needs_a_worker": (
        {"compute": {**P4D, "instance_count": 1}, "hyperparameters": {"parallel": "ps"}},
        "starts 1 process(es) and asks for 1 server(s)",
        {
            "compute": {**P4D, "instance_count": 1},
            "distribution": {"strategy": "torchrun"},
            "hyperparameters": {"parallel": "ps"},
        },
    ),
    "shipped_entry_point_torch_version": (
        {**SHIPPED_FSDP, "framework_version": "2.2.0"},
        "train_pytorch.py runs --parallel fsdp (FSDP2) with what PyTorch 2.6 made public; PyTorch "
        '2.2.0 fails the job at that import. Set framework_version: "2.6.0"',
        {**SHIPPED_FSDP, "framework_version": "2.8.0"},
    ),
    "hyperparameters_not_reserved": (
        {"hyperparameters": {"sagemaker_program": "x"}},
        "overrides it",
        {"hyperparameters": {"program": "x"}},
    ),
}
CASES |= TF_CASES
CASES |= HETERO_CASES
CASES |= HF_CASES
CASES |= RESERVED_CASES
SPOT = {"instance_type": "ml.g5.2xlarge", "max_run": "24h"}
TUNING = {
    "objective": {"metric": "train:loss", "type": "Minimize"},
    "ranges": {"lr": {"min": 1.0e-5, "max": 1.0e-2}},
    "max_jobs": 2,
    "max_parallel_jobs": 1,
}
CASES |= {
    "image_cuda_runs_on_the_gpu": (
        {"compute": {"instance_type": "ml.p6-b200.48xlarge"}, "framework_version": "2.6.0"},
        "pytorch 2.6.0's GPU image has CUDA 12.6",
        {"compute": {"instance_type": "ml.p6-b200.48xlarge"}, "framework_version": "2.7.1"},
    ),
    "efa_between_hosts": (
        {"compute": {"instance_type": "ml.g6.4xlarge", "instance_count": 2}, **TORCHRUN},
        "ml.g6.4xlarge has no EFA (the instance catalog: EC2's instance data): torchrun across 2 "
        "hosts exchanges gradients over TCP at 25 Gbps; with EFA: ml.g6.8xlarge",
        {"compute": {"instance_type": "ml.g6.8xlarge", "instance_count": 2}, **TORCHRUN},
    ),
    "fallback_region_buckets": (
        {"compute": {"fallback": [{"region": "us-west-2"}]}},
        "keeps the config's S3 locations (output_path) in buckets of us-east-1",
        {"compute": {"fallback": [{"region": "us-east-1"}, {"instance_type": "ml.g5.4xlarge"}]}},
    ),
    "fallback_after_before_max_wait": (
        {"compute": {**SPOT, "spot": {"max_wait": "30h", "fallback_after": "30h"}}},
        "is not before max_wait",
        {"compute": {**SPOT, "spot": {"max_wait": "30h", "fallback_after": "2h"}}},
    ),
    "queue_with_failover": (
        {"compute": {"queue": "ml-queue", "fallback": [{"instance_type": "ml.g5.4xlarge"}]}},
        "the chain would never move",
        {"compute": {"queue": "ml-queue"}},
    ),
    "queue_with_tuning": (
        {"compute": {"queue": "ml-queue"}, "tuning": TUNING},
        "not a hyperparameter tuning job",
        {"compute": {"queue": "ml-queue"}},
    ),
    "queue_timeout_before_max_run": (
        {"compute": {"queue": {"name": "q", "timeout": "1h"}, "max_run": "2h"}},
        "before compute.max_run (7200s) is up",
        {"compute": {"queue": {"name": "q", "timeout": "2h"}, "max_run": "2h"}},
    ),
}

# What real users' SDK setups (from public examples) must get through validate: no errors.
ACCEPTED_AS_THE_SDK_DOES = {
    # SDK v3's Torchrun has no instance list (v2's fw_utils has): the container's own CPU test.
    "sdk v3 torchrun on a CPU instance": {
        "sdk": "v3",
        "distribution": {"strategy": "torchrun"},
        "compute": {"instance_type": "ml.c5.xlarge", "instance_count": 2},
    },
    "pytorch 1.7.1 py3 on p3 with spot + checkpoint": {
        "framework_version": "1.7.1",
        "py_version": "py3",
        "compute": {"instance_type": "ml.p3.2xlarge", "spot": {"max_wait": "2d"}},
        "checkpoint": {"s3_uri": "s3://bkt/ckpt/"},
    },
    "pytorch 1.11.0 torch_distributed on trn1": {
        "framework_version": "1.11.0",
        "compute": TRN,
        "distribution": {"strategy": "torchrun"},
    },
    "image_uri without framework_version": {
        "framework_version": None,
        "image_uri": "123456789012.dkr.ecr.us-east-1.amazonaws.com/my-train:latest",
    },
    "built-in XGBoost latest": {
        **XGB,
        "entry_point": None,
        "framework_version": "latest",
    },
    "a 40-character base name": {"name": "a-forty-character-base-name-for-a-job-xx"},
}


@pytest.mark.parametrize("case", sorted(ACCEPTED_AS_THE_SDK_DOES))
def test_setups_the_sdk_accepts_validate(make_config, case):
    problems = check(load(make_config(ACCEPTED_AS_THE_SDK_DOES[case])))
    assert [p for p in problems if p.severity == "error"] == []


def findings(path, rule_name):
    return [p for p in RULES[rule_name](load(path))]


def test_every_rule_has_a_case():
    assert set(CASES) == set(RULES)


@pytest.mark.parametrize("rule_name", sorted(CASES))
def test_rule_fires(make_config, rule_name):
    bad, fragment, _ = CASES[rule_name]
    found = findings(make_config(bad), rule_name)
    assert found, f"{rule_name} stayed quiet"
    assert any(fragment in p.message for p in found), [p.message for p in found]
    assert all(p.line >= 1 and p.file.endswith("job.yaml") for p in found)


@pytest.mark.parametrize("rule_name", sorted(CASES))
def test_rule_stays_quiet(make_config, rule_name):
    _, _, good = CASES[rule_name]
    assert findings(make_config(good), rule_name) == []


def test_smp_v2_on_g5_is_refused_with_the_instance_types_it_needs(make_config):
    path = make_config(
        {"compute": {"instance_type": "ml.g5.48xlarge"}, "distribution": {"strategy": "smp"}}
    )
    (problem,) = [p for p in check(load(path)) if p.severity == "error"]
    assert problem.path == "compute.instance_type"
    assert "ml.p5.48xlarge" in problem.message


def test_smddp_on_g5_and_spot_without_checkpoint_are_warnings(make_config):
    """The SDK sends SMDDP on any instance (its pytorchddp is the same request) and the
    container's launcher checks none: advice, as for spot without checkpoints."""
    path = make_config(
        {
            "distribution": {"strategy": "smddp"},
            "compute": {"instance_type": "ml.g5.48xlarge", "spot": {"max_wait": "2d"}},
        }
    )
    severities = {p.path: p.severity for p in check(load(path))}
    assert severities["compute.instance_type"] == "warning"
    assert severities["compute.spot"] == "warning"


def test_smp_v1_partitions_must_divide_the_world(make_config):
    found = findings(make_config(smp1(partitions=3)), "smp_v1_parameters")
    assert any("must divide the world size 16" in p.message for p in found)


def test_findings_point_at_the_offending_line(make_config):
    path = make_config(
        {
            "compute": {"instance_type": "ml.p4d.24xlarge"},
            "distribution": {"strategy": "smddp"},
            "framework_version": "2.5.1",
        }
    )
    (problem,) = findings(path, "smddp_image")
    line = path.read_text().splitlines()[problem.line - 1]
    assert line.startswith("framework_version:")


def test_strict_turns_warnings_into_exit_2(cli, make_config):
    path = make_config({"compute": {"spot": {"max_wait": "2d"}}})  # spot without checkpoint
    assert cli("validate", path).exit_code == 0
    strict = cli("validate", path, "--strict")
    assert strict.exit_code == 2
    assert "spot without checkpoint" in strict.stderr


def test_plan_lists_config_warnings_and_strict_refuses(cli, make_config):
    import json

    path = make_config({"compute": {"spot": {"max_wait": "2d"}}})
    result = cli("plan", path, "-o", "json", "--job-name", "j-1")
    assert result.exit_code == 0
    (warning,) = json.loads(result.stdout)["warnings"]
    assert warning["source"] == "config" and warning["line"] > 1
    assert "add checkpoint.s3_uri" in warning["message"]
    assert cli("plan", path, "-o", "json", "--strict").exit_code == 2


def test_job_name_is_exact_and_long_bases_are_cut_like_the_sdk(cli, make_config):
    import json

    exact = make_config({"job_name": "my-exact-job-7"})
    request = json.loads(cli("plan", exact, "-o", "json").stdout)["request"]
    assert request["TrainingJobName"] == "my-exact-job-7"
    base = "b" * 50
    long = make_config({"name": base})
    planned = json.loads(cli("plan", long, "-o", "json").stdout)
    from sagelaunch.sdk.runtime import sagemaker

    sdk_name = sagemaker().utils.name_from_base(base)
    assert len(planned["job_name"]) == len(sdk_name) == 63
    assert planned["job_name"][:40] == sdk_name[:40]  # same cut base, then the timestamp
    assert any("keep the first 39" in w["message"] for w in planned["warnings"])


def test_plan_topology_shows_the_mesh(cli):
    import json

    from tests.conftest import EXAMPLES

    result = cli("plan", EXAMPLES / "tp-fsdp-p5.yaml", "-o", "json", "--job-name", "j-1")
    topology = json.loads(result.stdout)["topology"]
    mesh = topology["mesh"]
    assert (
        mesh["dp_replicate"] * mesh["dp_shard"] * mesh["pp"] * mesh["tp"] == topology["world_size"]
    )


def test_dataparallel_under_a_launcher_is_refused_naming_ddp(make_config):
    one_host = {**P4D, "instance_count": 1}
    bad = {"compute": one_host, "distribution": {"strategy": "torchrun"}}
    path = make_config({**bad, "hyperparameters": {"parallel": "dp"}})
    (problem,) = findings(path, "data_parallel_is_one_process")
    assert "strategy torchrun" in problem.message and "parallel: ddp" in problem.message
    assert problem.path == "hyperparameters.parallel"
    assert (
        findings(
            make_config({**bad, "hyperparameters": {"parallel": "ddp"}}),
            "data_parallel_is_one_process",
        )
        == []
    )


def test_parameter_server_counts_mpirun_processes_and_names_num_ps(make_config):
    mpi = {"strategy": "mpi", "processes_per_host": 2}
    one_host = {"instance_type": "ml.c5.4xlarge", "instance_count": 1}
    hyperparameters = {"parallel": "ps", "num_ps": 2}
    path = make_config(
        {"compute": one_host, "distribution": mpi, "hyperparameters": hyperparameters}
    )
    (problem,) = findings(path, "parameter_server_needs_a_worker")
    assert problem.path == "hyperparameters.num_ps" and "starts 2 process(es)" in problem.message
    two_hosts = {**one_host, "instance_count": 2}
    fine = make_config(
        {"compute": two_hosts, "distribution": mpi, "hyperparameters": hyperparameters}
    )
    assert findings(fine, "parameter_server_needs_a_worker") == []


@pytest.mark.parametrize(
    ("compute", "fires"),
    [
        ({"max_run": 28 * 86400}, False),  # 28 days: the service's limit
        ({"max_run": 28 * 86400 + 1}, True),
        ({"max_run": 1}, False),
    ],
)
def test_run_time_ranges_at_their_bounds(make_config, compute, fires):
    path = make_config({"compute": {"instance_type": "ml.p4d.24xlarge", **compute}})
    found = findings(path, "run_time_ranges")
    assert bool(found) is fires, [p.message for p in found]
    assert all(p.path == f"compute.{next(iter(compute))}" for p in found)


def test_the_shipped_entry_points_torch_needs_are_its_own_not_a_users_script(make_config, tmp_path):
    tp = {
        **SHIPPED_FSDP,
        "framework_version": "2.4.0",
        "hyperparameters": {"tensor_parallel_degree": 2},
    }
    [found] = findings(make_config(tp), "shipped_entry_point_torch_version")
    assert "--tensor_parallel_degree with what PyTorch 2.5 made public" in found.message
    assert '"2.5.1"' in found.message  # the SDK's first version from there
    (tmp_path / "train_pytorch.py").write_text("print('my own script')\n")
    mine = make_config({**SHIPPED_FSDP, "framework_version": "2.2.0"})
    assert findings(mine, "shipped_entry_point_torch_version") == []

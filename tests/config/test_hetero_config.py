"""The issue-22 keys as a user meets them: exclusive compute keys, rule names from the SDK, the
training group's derived instance type, the per-group topology and the summed cost."""

from __future__ import annotations

from sagelaunch.config.debugger_settings import builtin_rules
from sagelaunch.config.loader import load
from sagelaunch.plan import cost, topology
from tests.aws.price_list import priced
from tests.config.hetero_cases import DATA, DNN, TORCHRUN_DNN, grouped

G5 = ("cheap", "ml.g5.xlarge", 2)


def test_groups_and_instance_type_together_exit_2_naming_both(cli, make_config):
    path = make_config(
        {"compute": {"groups": [{"name": "a", "instance_type": "ml.c5.xlarge"}]}}
    )  # BASE also sets instance_type and instance_count
    result = cli("validate", path)
    assert result.exit_code == 2
    assert "compute sets both groups and instance_type and instance_count" in result.output
    assert "job.yaml:" in result.output


def test_an_unknown_rule_exits_2_with_the_sdks_list(cli, make_config):
    result = cli("validate", make_config({"debugger": {"rules": ["loss_not_decreasin"]}}))
    assert result.exit_code == 2
    assert "debugger.rules[0].name: unknown rule" in result.output
    for name in builtin_rules()["debugger"]:
        assert name in result.output


def test_a_rule_instance_type_is_not_offered(cli, make_config):
    rule = {"name": "ProfilerReport", "instance_type": "ml.m5.xlarge"}
    result = cli("validate", make_config({"profiler": {"rules": [rule]}}))
    assert result.exit_code == 2 and "unknown key 'instance_type'" in result.output


def test_profiler_rule_parameters_must_be_numbers(cli, make_config):
    rule = {"name": "ProfilerReport", "parameters": {"CPUBottleneck_threshold": "high"}}
    result = cli("validate", make_config({"profiler": {"rules": [rule]}}))
    assert result.exit_code == 2
    assert "must be numbers: CPUBottleneck_threshold='high'" in result.output


def test_instance_type_reads_as_the_training_groups(make_config):
    config = load(make_config(grouped(DATA, DNN, distribution=TORCHRUN_DNN))).config
    assert (config.compute.instance_type, config.compute.instance_count) == ("ml.p4d.24xlarge", 2)


def test_topology_shows_every_group_and_which_trains(make_config):
    config = load(make_config(grouped(DATA, DNN, distribution=TORCHRUN_DNN))).config
    shown = topology.topology(config)
    assert (shown.hosts, shown.processes_per_host, shown.world_size) == (2, 8, 16)
    assert [(g["name"], g["hosts"], g["trains"], g["launcher"]) for g in shown.groups or []] == [
        ("data_group", 1, False, "python"),
        ("dnn_group", 2, True, "torchrun"),
    ]
    assert [g["accelerators_per_host"] for g in shown.groups or []] == [0, 8]


def test_cost_sums_over_groups(make_config, monkeypatch):
    priced(
        monkeypatch,
        {("us-east-1", "ml.g5.xlarge"): "1.0", ("us-east-1", "ml.p4d.24xlarge"): "32.0"},
    )
    config = load(make_config(grouped(G5, DNN, distribution={**TORCHRUN_DNN}))).config
    estimate = cost.estimate(config)
    per_group = {g["name"]: g["hourly_usd"] for g in estimate.groups or []}
    hourly = 2 * per_group["cheap"] + 2 * per_group["dnn_group"]
    assert estimate.hourly_usd == round(hourly, 3)
    assert estimate.max_usd == round(hourly * config.compute.max_run / 3600, 2)
    assert estimate.instance_count == 4


def test_cost_is_unknown_when_a_group_has_no_price(make_config):
    config = load(make_config(grouped(DATA, DNN, distribution=TORCHRUN_DNN))).config
    estimate = cost.estimate(config)
    assert estimate.hourly_usd is None and "ml.c5.9xlarge" in (estimate.note or "")


def test_plan_notes_the_training_group_hyperparameter(cli):
    import json

    from tests.conftest import EXAMPLES

    result = cli("plan", EXAMPLES / "hetero-c5-p4d.yaml", "-o", "json", "--job-name", "j-1")
    plan = json.loads(result.stdout)
    (note,) = [w for w in plan["warnings"] if w["source"] == "tool"]
    assert "sagemaker_distribution_instance_groups" in note["message"]
    assert plan["request"]["HyperParameters"]["sagemaker_distribution_instance_groups"] == (
        '["dnn_group"]'
    )
    assert "InstanceType" not in plan["request"]["ResourceConfig"]


def test_local_docker_refuses_groups(cli, make_config):
    path = make_config(grouped(DATA, DNN, distribution=TORCHRUN_DNN))
    result = cli("local", path, "--docker")
    assert result.exit_code == 2
    assert "cannot run instance groups" in result.stderr

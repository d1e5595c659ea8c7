"""`compute.instance_preferences`, `compute.max_pending` and `compute.placement` as a user meets
them: the config read (the first preference is the planned type), the exclusions the API states
refused at their line, the request SDK v2 cannot build laid over its own, and what `plan`,
`export` and the quota pre-flight make of it."""

from __future__ import annotations

from collections import Counter

import yaml

from sagelaunch.aws import quotas
from sagelaunch.checks.rules import check
from sagelaunch.checks.validation import validate_file
from sagelaunch.config.loader import load
from tests.config.reserved_cases import preferring

P5, P4D = ("ml.p5.48xlarge", 2), ("ml.p4d.24xlarge", 4)


def test_the_first_preference_is_the_planned_type(make_config):
    config = load(make_config(preferring(P5, P4D))).config
    assert (config.compute.instance_type, config.compute.instance_count) == P5
    assert [p.instance_type for p in config.compute.instance_preferences or []] == [P5[0], P4D[0]]


def test_instance_type_beside_preferences_is_refused_at_compute(make_config):
    over = preferring(P5, P4D)
    over["compute"]["instance_type"] = "ml.p5.48xlarge"
    path = make_config(over)
    (problem,) = validate_file(path).errors
    assert problem.path == "compute"
    assert problem.line == _line(path, "compute:")
    assert "exclusive of InstanceType" in problem.message
    assert "drop compute.instance_type" in problem.message


def test_a_base_configs_instance_type_is_unset_with_null(make_config, tmp_path):
    """A config that extends one naming instance_type lists its preferences with
    `instance_type: null` (what `extends:` and `--set` use to unset a key)."""
    base = make_config(name="base.yaml")
    (tmp_path / "over.yaml").write_text(
        yaml.safe_dump({"extends": "base.yaml", **preferring(P5, P4D)}, sort_keys=False)
    )
    config = load(tmp_path / "over.yaml").config
    assert base.exists() and config.compute.instance_type == P5[0]
    over = ["compute.instance_type=null", "compute.instance_count=null"]
    over.append("compute.instance_preferences=[{instance_type: ml.p4d.24xlarge}]")
    assert load(base, over).config.compute.instance_type == "ml.p4d.24xlarge"


def test_groups_beside_preferences_are_refused(make_config):
    over = preferring(P5, P4D)
    over["compute"]["groups"] = [{"name": "g", "instance_type": "ml.c5.xlarge"}]
    (problem,) = validate_file(make_config(over)).errors
    assert "exclusive of InstanceGroups" in problem.message


def _messages(make_config, overrides) -> list[str]:
    return [p.message for p in check(load(make_config(overrides))) if p.severity == "error"]


def test_each_exclusion_the_api_states_is_refused(make_config):
    plan_arn = "arn:aws:sagemaker:us-east-1:111122223333:training-plan/p5-plan"
    with_plans = preferring(P5, P4D, training_plan=plan_arn)
    with_plans["compute"]["instance_preferences"][0]["training_plans"] = [plan_arn]
    refused = {
        "placement": preferring(P5, P4D, placement={"EnableMultipleJobs": True}),
        "TrainingPlanArn": with_plans,
        "only the region": preferring(P5, P4D, fallback=[{"instance_type": "ml.p5e.48xlarge"}]),
        "HyperParameterTuningResourceConfig": {
            **preferring(P5, P4D),
            "tuning": {"objective": {"metric": "loss"}, "ranges": {"lr": {"min": 0.1, "max": 1}}},
        },
    }
    for fragment, overrides in refused.items():
        assert any(fragment in m for m in _messages(make_config, overrides)), fragment
    assert _messages(make_config, preferring(P5, P4D, fallback=[{"region": "us-west-2"}])) == []


def test_a_preference_the_distribution_cannot_run_on_is_refused_at_its_line(make_config):
    """SMP v2 runs on p4d/p5 only: the second preference would start a job that fails."""
    path = make_config(
        {**preferring(P5, ("ml.g5.48xlarge", 1)), "distribution": {"strategy": "smp"}}
    )
    problems = [p for p in check(load(path)) if p.severity == "error"]
    (problem,) = problems
    assert problem.path == "compute.instance_preferences[1]"
    assert "SMP v2 library supports only" in problem.message
    assert problem.line == _line(path, "- instance_type: ml.g5.48xlarge")


def test_placement_is_for_ultraserver_types_and_the_jobs_own_instances(make_config):
    spec = {"PlacementSpecifications": [{"UltraServerId": "u-1", "InstanceCount": 3}]}
    on_g5 = {"compute": {"placement": spec}}
    assert any(
        "no UltraServer is made of ml.g5.2xlarge" in m for m in _messages(make_config, on_g5)
    )
    on_p5 = {"compute": {"instance_type": "ml.p5.48xlarge", "instance_count": 2, "placement": spec}}
    assert any("place 3 instances, but the job has 2" in m for m in _messages(make_config, on_p5))
    typo = {"compute": {"instance_type": "ml.p5.48xlarge", "placement": {"Specifications": []}}}
    (problem,) = validate_file(make_config(typo)).errors
    assert "Specifications" in problem.path


def test_the_plan_shows_the_preferences_and_the_pending_limit(cli, preferred_config):
    result = cli("plan", preferred_config)
    assert result.exit_code == 0, result.output
    assert "instance preferences 1. 2 × ml.p5.48xlarge · 2. 4 × ml.p4d.24xlarge" in result.stdout
    assert "cluster 2 × ml.p5.48xlarge" in result.stdout
    assert "max_pending 7200s" in result.stdout


def test_export_v2_refuses_what_the_estimator_cannot_build(cli, preferred_config, tmp_path):
    refused = cli("export", preferred_config, "--out", tmp_path / "v2.py")
    assert refused.exit_code == 2
    assert "ResourceConfig.InstancePreferences" in refused.output
    assert "--sdk v3" in refused.output
    assert not (tmp_path / "v2.py").exists()
    written = cli("export", preferred_config, "--sdk", "v3", "--out", tmp_path / "v3.py")
    assert written.exit_code == 0, written.output
    text = (tmp_path / "v3.py").read_text()
    assert "instance_preferences=[" in text and "max_pending_time_in_seconds=7200" in text
    assert "instance_type=" not in text.split("instance_preferences=")[0].split("Compute(")[-1]


def test_the_quota_preflight_takes_the_first_preference_that_fits(preferred_plan):
    """The service moves on from a type it cannot start: a job whose first preference has no
    quota left but whose second has is not refused; one that fits nowhere is, on the first's."""
    request = preferred_plan["request"]
    names = quotas.quota_names(request)
    assert names[:2] == [
        "ml.p5.48xlarge for training job usage",
        "ml.p4d.24xlarge for training job usage",
    ]
    applied = {names[0]: 2, names[1]: 8, quotas.TOTAL_INSTANCES: 20}
    busy = Counter({"ml.p5.48xlarge": 1, quotas.TOTAL_KEY: 1})
    uses = quotas.quota_uses(request, applied, busy)
    assert all(use.fits for use in uses)
    assert {use.name for use in uses} == {names[1], quotas.TOTAL_INSTANCES}
    full = Counter({"ml.p5.48xlarge": 1, "ml.p4d.24xlarge": 6, quotas.TOTAL_KEY: 7})
    short = [use for use in quotas.quota_uses(request, applied, full) if not use.fits]
    assert [use.name for use in short] == [names[0]]


def test_a_described_job_counts_the_type_the_service_selected():
    described = {
        "ResourceConfig": {
            "InstancePreferences": [
                {"InstanceType": "ml.p5.48xlarge", "InstanceCount": 2},
                {"InstanceType": "ml.p4d.24xlarge", "InstanceCount": 4},
            ],
            "SelectedInstanceType": "ml.p4d.24xlarge",
            "SelectedInstanceCount": 4,
        }
    }
    assert quotas.asked_instances(described) == Counter({"ml.p4d.24xlarge": 4})


def _line(path, text: str) -> int:
    lines = [line.strip() for line in path.read_text().splitlines()]
    return lines.index(text) + 1


def test_another_cuda_build_of_the_same_image_is_advice(make_config):
    """The SDK picks SMP v2 2.8's CUDA 11.8 build for a p4d and the 12.1 one for a p5: the p4d
    preference runs the first's (CUDA 12.1 runs on an A100), so it is said, not refused."""
    smp = {"distribution": {"strategy": "smp"}, "framework_version": "2.8.0"}
    path = make_config({**preferring(P5, P4D), **smp})
    found = [p for p in check(load(path)) if p.path.startswith("compute.instance_preferences")]
    (problem,) = found
    assert problem.severity == "warning"
    assert "on ml.p4d.24xlarge it runs the first's" in problem.message
    assert "-cu121" in problem.message

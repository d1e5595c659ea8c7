"""`compute.fallback`: each alternative of a failover chain is validated like a config of its
own, and its problems are reported at the alternative (the SDK's image data and the service's
documented limits are the oracles, through the existing rules)."""

from __future__ import annotations

import json

from tests.conftest import EXAMPLES

SMDDP = EXAMPLES / "smddp-p4d.yaml"


def validate(cli, chain: str):
    return cli("validate", SMDDP, "--set", f"compute.fallback={chain}", "-o", "json")


def test_a_valid_chain_validates(cli):
    result = validate(
        cli, "[{instance_type: ml.p5.48xlarge, instance_count: 1}, {region: us-west-2}]"
    )
    assert result.exit_code == 0, result.output


def test_an_alternative_the_strategy_cannot_run_is_an_error_at_the_alternative(cli):
    result = validate(cli, "[{instance_type: ml.p5.48xlarge}, {instance_type: ml.trn1.32xlarge}]")
    assert result.exit_code == 2
    errors = json.loads(result.stdout)[0]["errors"]
    assert "compute.fallback[1]: distribution.strategy" in [e["path"] for e in errors]
    assert any("on Trainium, not smddp" in e["message"] for e in errors)


def test_a_malformed_alternative_is_refused_with_its_key(cli):
    result = validate(cli, "[{instance_count: 0}]")
    assert result.exit_code == 2
    assert "compute.fallback.0.instance_count" in result.output.replace("[", ".").replace("]", "")


def test_an_unknown_key_in_an_alternative_is_refused(cli):
    result = validate(cli, "[{instance_typ: ml.p5.48xlarge}]")
    assert result.exit_code == 2 and "instance_typ" in result.output


def test_plan_shows_each_alternative_with_its_price(cli):
    from sagelaunch.catalog import prices

    chain = "[{instance_type: ml.p5.48xlarge, instance_count: 1}, {region: us-west-2}]"
    result = cli("plan", SMDDP, "--set", f"compute.fallback={chain}", "-o", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["alternatives"]
    assert [(r["instance_type"], r["instance_count"], r["region"]) for r in rows] == [
        ("ml.p5.48xlarge", 1, "us-east-1"),
        ("ml.p4d.24xlarge", 2, "us-west-2"),
    ]
    assert rows[0]["hourly_usd"] == prices.hourly_price("ml.p5.48xlarge")


def test_a_plan_without_a_chain_has_no_alternatives_key(cli):
    result = cli("plan", SMDDP, "-o", "json")
    assert result.exit_code == 0 and "alternatives" not in json.loads(result.stdout)


def test_an_alternative_in_another_region_with_this_regions_buckets_is_flagged(cli):
    result = validate(cli, "[{instance_type: ml.p5.48xlarge}, {region: us-west-2}]")
    assert result.exit_code == 0, result.output
    warnings = json.loads(result.stdout)[0]["warnings"]
    flagged = [w for w in warnings if w["path"] == "compute.fallback[1].region"]
    assert len(flagged) == 1
    message = flagged[0]["message"]
    assert "inputs.train" in message and "output_path" in message
    assert "S3DataSource" in message  # the service fact it relies on
    same_region = validate(cli, "[{region: us-east-1}]")
    assert "fallback[0].region" not in same_region.stdout


def test_plan_shows_the_image_of_the_alternatives_region(cli):
    """The SDK is the oracle: the image it resolves for the main config planned in us-west-2."""
    chain = "[{instance_type: ml.p5.48xlarge, instance_count: 1}, {region: us-west-2}]"
    result = cli(
        "plan", SMDDP, "--set", f"compute.fallback={chain}", "--no-check-quota", "-o", "json"
    )
    rows = json.loads(result.stdout)["alternatives"]
    west = cli("plan", SMDDP, "--set", "region=us-west-2", "--no-check-quota", "-o", "json")
    sdk_image = json.loads(west.stdout)["request"]["AlgorithmSpecification"]["TrainingImage"]
    assert rows[1]["image"] == sdk_image and ".us-west-2." in sdk_image
    table = cli("plan", SMDDP, "--set", f"compute.fallback={chain}", "--no-check-quota")
    assert f"attempt 2 image  {sdk_image}" in table.stdout


def test_a_fallback_duration_past_max_wait_is_flagged(cli):
    spot = EXAMPLES / "spot-checkpoint.yaml"
    result = cli("validate", spot, "--set", "compute.spot.fallback_after=40h", "-o", "json")
    assert result.exit_code == 0
    paths = [w["path"] for w in json.loads(result.stdout)[0]["warnings"]]
    assert "compute.spot.fallback_after" in paths
    quiet = cli("validate", spot, "--set", "compute.spot.fallback_after=2h", "-o", "json")
    assert "fallback_after" not in quiet.stdout

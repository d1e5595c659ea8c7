"""`sagelaunch instances [--refresh]`: EC2's own DescribeInstanceTypes answers (moto's EC2 server
on loopback answers from EC2's data) built into the catalog by the generator's code, kept in the
cache folder and read in place of the shipped catalog; the shipped one is what moto's copy of
the same data gives."""

from __future__ import annotations

import json

import pytest

from sagelaunch.catalog import facts, instance_catalog

NAMES = ["ml.p6-b200.48xlarge", "ml.g6e.12xlarge", "ml.trn2.48xlarge", "ml.c5.xlarge"]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SAGELAUNCH_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "catalog" / "instances.json"


def without_source(entry: dict) -> dict:
    return {key: value for key, value in entry.items() if key != "source"}


def test_ec2s_answers_give_the_shipped_entries(moto):
    from sagelaunch.aws.ec2_instances import describe_instance_types

    answers = describe_instance_types([*NAMES, "ml.p6e-gb200.36xlarge"], region="us-east-1")
    # EC2's data has no p6e-gb200 (the catalog takes AWS's published figures): absent, no error
    assert set(answers) == {instance_catalog.ec2_name(name) for name in NAMES}
    for name in NAMES:
        fresh = instance_catalog.entry(answers[instance_catalog.ec2_name(name)])
        assert fresh == without_source(facts.instance(name)), name


def test_refresh_keeps_ec2s_catalog_where_every_reader_finds_it(moto, cache, cli):
    for _ in range(2):  # a rerun rewrites it whole
        refreshed = cli("instances", "--refresh", "ml.p6-b200.48xlarge", "-o", "json")
        assert refreshed.exit_code == 0, refreshed.output
        assert "types from EC2 in us-east-1" in refreshed.stderr, refreshed.stderr
        assert "the same figures as the shipped catalog" in refreshed.stderr, refreshed.stderr
    written = json.loads(cache.read_text())
    assert "asked in us-east-1" in written["sources"]["ec2"]
    b200 = written["instances"]["ml.p6-b200.48xlarge"]
    assert b200["source"].startswith("ec2 DescribeInstanceTypes us-east-1 20")
    assert written["instances"]["ml.p6e-gb200.36xlarge"]["source"].startswith("https://aws")
    assert facts.catalog() == written
    assert json.loads(refreshed.stdout)[0]["source"] == b200["source"]

    # What the refreshed file says is what the commands read (here a figure set by hand)...
    b200["accelerators"] = 4
    cache.write_text(json.dumps(written))
    shown = json.loads(cli("instances", "ml.p6-b200.48xlarge", "-o", "json").stdout)
    assert (shown[0]["accelerators"], shown[0]["processes_per_host"]) == (4, 4)
    assert facts.accelerators_per_host("ml.p6-b200.48xlarge") == 4
    # ...and a file that is not a catalog falls back to the shipped one, with no error.
    for broken in ("{half a catalog", '{"instances": {"ml.p6-b200.48xlarge": {}}}', "[]"):
        cache.write_text(broken)
        assert facts.instance("ml.p6-b200.48xlarge")["accelerators"] == 8, broken
    table = cli("instances", "ml.p6-b200.48xlarge")
    assert table.exit_code == 0 and "8 × B200" in table.stdout, table.output


def test_a_type_ec2_does_not_offer_keeps_its_shipped_entry_and_a_new_figure_is_shown():
    from sagelaunch.catalog import sdk_data
    from sagelaunch.services.catalog_refresh import build, changes_from

    shipped = facts.load("instances")
    answers = instance_catalog.moto_ec2_data()
    del answers["trn2.48xlarge"]  # a region without Trainium2
    answers["g6e.12xlarge"] = {**answers["g6e.12xlarge"], "VCpuInfo": {"DefaultVCpus": 50}}
    names = sdk_data.training_instance_types()
    built = build(names, answers, shipped, "eu-west-3", "2026-12-02T12:00:00Z")
    kept = {**shipped["instances"]["ml.trn2.48xlarge"], "source": "the shipped catalog (ec2)"}
    assert built["instances"]["ml.trn2.48xlarge"] == kept
    assert "ml.trn2.48xlarge" not in built["excluded"]
    assert set(built["instances"]) == set(shipped["instances"])
    assert changes_from(shipped, built) == ["ml.g6e.12xlarge: vcpus 48 -> 50"]
    assert built["instances"]["ml.g6e.12xlarge"]["source"] == (
        "ec2 DescribeInstanceTypes eu-west-3 2026-12-02T12:00:00Z"
    )


def test_the_plan_cache_key_follows_a_refreshed_catalog(cache):
    from sagelaunch.services.planning import refreshed_catalog

    assert refreshed_catalog() is None
    cache.parent.mkdir(parents=True)
    cache.write_text("{}")
    before = refreshed_catalog()
    cache.write_text('{"instances": {}}')
    assert before is not None and refreshed_catalog() not in {None, before}


def test_instances_shows_the_catalog_and_names_the_nearest_type(cli, cache):
    shown = cli("instances", "ml.p6-b200.48xlarge", "ml.p2.xlarge")
    assert shown.exit_code == 0, shown.output
    assert "8 × B200" in shown.stdout
    assert "unknown (EC2 states its network only as 'High')" in shown.stdout
    entries = json.loads(cli("instances", "ml.p6-b200.48xlarge", "-o", "json").stdout)
    assert [(e["instance_type"], e["accelerators"], e["accelerator"]) for e in entries] == [
        ("ml.p6-b200.48xlarge", 8, "B200")
    ]
    every = json.loads(cli("instances", "-o", "json").stdout)
    assert {e["kind"] for e in every} == {"gpu", "trainium"} and len(every) > 50
    typo = cli("instances", "ml.p6-b20.48xlarge", "--refresh")  # refused before asking EC2
    assert typo.exit_code == 2 and "did you mean ml.p6-b200.48xlarge?" in typo.output

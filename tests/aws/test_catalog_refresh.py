"""`sagelaunch instances --refresh`: EC2's own DescribeInstanceTypes answers (moto's EC2 server on
loopback answers from EC2's data) built into the catalog by the generator's code, kept in the
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
    return tmp_path / "cache"


def test_ec2s_answers_give_the_shipped_entries(moto):
    from sagelaunch.aws.ec2_instances import describe_instance_types

    answers = describe_instance_types([*NAMES, "ml.p6e-gb200.36xlarge"], region="us-east-1")
    # EC2's data has no p6e-gb200 (the catalog takes AWS's published figures): absent, no error
    assert set(answers) == {instance_catalog.ec2_name(name) for name in NAMES}
    for name in NAMES:
        fresh = instance_catalog.entry(answers[instance_catalog.ec2_name(name)])
        assert fresh == {k: v for k, v in facts.instance(name).items() if k != "source"}, name


def test_refresh_keeps_ec2s_catalog_where_every_reader_finds_it(moto, cache, cli):
    for _ in range(2):  # a rerun rewrites it whole
        refreshed = cli("instances", "--refresh", "ml.p6-b200.48xlarge", "-o", "json")
        assert refreshed.exit_code == 0, refreshed.output
    written = json.loads((cache / "catalog" / "instances.json").read_text())
    assert "asked in us-east-1" in written["sources"]["ec2"]
    assert written["instances"]["ml.p6e-gb200.36xlarge"]["source"].startswith("https://aws")
    assert facts.catalog() == written

    # What the refreshed file says is what the commands read (here a figure set by hand)...
    written["instances"]["ml.p6-b200.48xlarge"]["accelerators"] = 4
    (cache / "catalog" / "instances.json").write_text(json.dumps(written))
    shown = json.loads(cli("instances", "ml.p6-b200.48xlarge", "-o", "json").stdout)
    assert (shown[0]["accelerators"], shown[0]["processes_per_host"]) == (4, 4)
    # ...and a file that is not a catalog falls back to the shipped one.
    (cache / "catalog" / "instances.json").write_text("{half a catalog")
    assert facts.instance("ml.p6-b200.48xlarge")["accelerators"] == 8


def test_the_plan_cache_key_follows_a_refreshed_catalog(cache):
    from sagelaunch.services.planning import refreshed_catalog

    assert refreshed_catalog() is None
    (cache / "catalog").mkdir(parents=True)
    (cache / "catalog" / "instances.json").write_text("{}")
    before = refreshed_catalog()
    (cache / "catalog" / "instances.json").write_text('{"instances": {}}')
    assert before is not None and refreshed_catalog() not in {None, before}


def test_instances_shows_the_catalog_and_names_the_nearest_type(cli, cache):
    shown = cli("instances", "ml.p6-b200.48xlarge", "ml.p2.xlarge")
    assert shown.exit_code == 0, shown.output
    assert "8 × B200" in shown.stdout
    assert "unknown (EC2 states its network only as 'High')" in shown.stdout
    typo = cli("instances", "ml.p6-b20.48xlarge")
    assert typo.exit_code == 2 and "did you mean ml.p6-b200.48xlarge?" in typo.output

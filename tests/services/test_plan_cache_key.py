"""The plan cache is keyed on everything the request depends on: the config's exact typed values
(null, inf, -inf, nan, -0.0, 1 vs 1.0 vs "1", true vs "true" each its own request), the role and
region wherever they come from (the config, $SAGELAUNCH_ROLE, $AWS_REGION), the SDK's defaults
files (which the SDK merges into the request) and sagelaunch's own files. Each test fails when
its input is dropped from the key: a cached plan would then be served for another request."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from sagelaunch.checks.validation import load_valid
from sagelaunch.local.variant import local_variant
from sagelaunch.services import planning
from sagelaunch.services.planning import make_plan

ROLE_A = "arn:aws:iam::111122223333:role/RoleA"
ROLE_B = "arn:aws:iam::111122223333:role/RoleB"
KEY_ARGS = {"region": "us-east-1", "role": ROLE_A}

# Written values, each a distinct hyperparameter value as YAML reads it.
DISTINCT = ["~", "'null'", ".inf", "-.inf", ".nan", "-0.0", "0.0", "0", "1", "1.0", "'1'"]
DISTINCT += ["true", "'true'", "false", "''", "[1]", "[1.0]", "{a: 1}", "{a: 1.0}", "2024-01-01"]


@pytest.fixture(autouse=True)
def no_shell_settings(monkeypatch):
    """No role, region or SDK defaults override from this shell leaks in (an override given
    costs each plan the SDK's schema check of the file, seconds: only the test of it sets one)."""
    for variable in (
        *("SAGELAUNCH_ROLE", "AWS_REGION", "AWS_DEFAULT_REGION"),
        *("SAGEMAKER_ADMIN_CONFIG_OVERRIDE", "SAGEMAKER_USER_CONFIG_OVERRIDE"),
    ):
        monkeypatch.delenv(variable, raising=False)


def key_for(config, *overrides: str, **args: str) -> str:
    loaded, _ = load_valid(config, list(overrides))
    return planning.cache_key(loaded, **{**KEY_ARGS, **args})


def test_each_typed_hyperparameter_value_has_its_own_key(make_config):
    config = make_config()
    keys = {written: key_for(config, f"hyperparameters.v={written}") for written in DISTINCT}
    assert len(set(keys.values())) == len(DISTINCT), keys
    # The same value written again is the same key; a date is the text written, as quoted.
    assert key_for(config, "hyperparameters.v=.nan") == keys[".nan"]
    assert key_for(config, "hyperparameters.v='2024-01-01'") == keys["2024-01-01"]


def test_role_and_region_are_in_the_key(make_config):
    config = make_config()
    assert key_for(config, role=ROLE_A) != key_for(config, role=ROLE_B)
    assert key_for(config, region="us-east-1") != key_for(config, region="eu-west-1")


def test_the_sdk_defaults_files_are_in_the_key(make_config, tmp_path, monkeypatch):
    config = make_config()
    keys = [key_for(config)]
    for variable in ("SAGEMAKER_USER_CONFIG_OVERRIDE", "SAGEMAKER_ADMIN_CONFIG_OVERRIDE"):
        defaults = tmp_path / f"{variable}.yaml"
        monkeypatch.setenv(variable, str(defaults))
        defaults.write_text(SDK_DEFAULTS.format(value="one"))
        keys.append(key_for(config))
        defaults.write_text(SDK_DEFAULTS.format(value="two"))
        keys.append(key_for(config))
    folder = tmp_path / "as-a-folder"  # the SDK reads config.yaml in a folder it is given
    (folder).mkdir()
    (folder / "config.yaml").write_text(SDK_DEFAULTS.format(value="three"))
    monkeypatch.setenv("SAGEMAKER_USER_CONFIG_OVERRIDE", str(folder))
    keys.append(key_for(config))
    assert len(set(keys)) == len(keys)


def test_sagelaunch_own_files_are_in_the_key(make_config, monkeypatch):
    config = make_config()
    before = key_for(config)
    files = planning.sagelaunch_files()
    assert any(path.endswith("planning.py") for path, _ in files)
    changed = [
        (path, digest[::-1]) if path.endswith("planning.py") else (path, digest)
        for path, digest in files
    ]
    monkeypatch.setattr(planning, "sagelaunch_files", lambda: changed)
    assert key_for(config) != before


def test_a_second_clone_of_sagelaunch_keys_its_files_as_the_first(tmp_path):
    """Same bytes in another folder, every mtime new (a CI checkout): the same files in the key;
    one byte changed: not."""
    package = Path(planning.__file__).resolve().parents[1]
    clone = tmp_path / "clone" / "sagelaunch"
    shutil.copytree(package, clone, ignore=shutil.ignore_patterns("__pycache__"))
    for path in clone.rglob("*"):
        os.utime(path, (1_000_000, 1_000_000))
    assert planning.sagelaunch_files(clone) == planning.sagelaunch_files(package)
    edited = clone / "services" / "planning.py"
    edited.write_bytes(edited.read_bytes() + b"\n")
    assert planning.sagelaunch_files(clone) != planning.sagelaunch_files(package)


SDK_DEFAULTS = """\
SchemaVersion: '1.0'
SageMaker:
  TrainingJob:
    Tags:
      - Key: from-sdk-defaults
        Value: {value}
"""


# --- through make_plan, one cache folder: what each run sends is what it asked for ---------------


def plan_request(config, tmp_path, *overrides: str) -> dict:
    made = make_plan(config, list(overrides), None, "key-job", cache_dir=tmp_path / "plans")
    return made.plan.request


def test_null_inf_and_nan_are_each_sent_as_themselves_with_one_cache(make_config, tmp_path):
    config = make_config()
    sent = [
        plan_request(config, tmp_path, f"hyperparameters.v={written}")["HyperParameters"]["v"]
        for written in ("~", ".inf", ".nan")
    ]
    assert sent == ["null", "Infinity", "NaN"]


def test_what_the_shell_and_the_sdk_defaults_say_reaches_the_next_plan(
    make_config, tmp_path, monkeypatch
):
    """One cache folder: $SAGELAUNCH_ROLE, $AWS_REGION and an SDK defaults file, each changed
    after a plan, are what the next plan sends."""
    config = make_config({"role": None, "region": None})
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("SAGELAUNCH_ROLE", ROLE_A)
    first = plan_request(config, tmp_path)
    assert first["RoleArn"] == ROLE_A and "Tags" not in first
    monkeypatch.setenv("SAGELAUNCH_ROLE", ROLE_B)
    assert plan_request(config, tmp_path)["RoleArn"] == ROLE_B
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    image = plan_request(config, tmp_path)["AlgorithmSpecification"]["TrainingImage"]
    assert ".eu-west-1." in image
    defaults = tmp_path / "sdk-defaults.yaml"
    defaults.write_text(SDK_DEFAULTS.format(value="now"))
    monkeypatch.setenv("SAGEMAKER_USER_CONFIG_OVERRIDE", str(defaults))
    assert plan_request(config, tmp_path)["Tags"] == [{"Key": "from-sdk-defaults", "Value": "now"}]


def test_a_home_without_sdk_defaults_keys_as_any_other(make_config, tmp_path, monkeypatch):
    """No defaults file in either home: nothing merged, one key (a run with a HOME of its own
    plans from the cache); a defaults file in the second home: another key."""
    config = make_config()
    for variable in ("SAGEMAKER_ADMIN_CONFIG_OVERRIDE", "SAGEMAKER_USER_CONFIG_OVERRIDE"):
        monkeypatch.delenv(variable, raising=False)
    keys = []
    for home in (tmp_path / "home-1", tmp_path / "home-2"):
        home.mkdir()
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
        keys.append(key_for(config))
    assert keys[0] == keys[1]
    defaults = tmp_path / "home-2" / ".config" / "sagemaker" / "config.yaml"
    defaults.parent.mkdir(parents=True)
    defaults.write_text(SDK_DEFAULTS.format(value="home"))
    assert key_for(config) != keys[0]


def test_a_queued_job_plans_from_the_entry_of_the_same_job_not_queued(make_config, tmp_path):
    """compute.queue never reaches the SDK: one cache entry for the job queued or not, and each
    plan's SubmitServiceJob request is built from its own queue settings."""
    config = make_config()
    cache = tmp_path / "plans"
    direct = make_plan(config, [], None, "key-job", cache_dir=cache).plan
    assert direct.queue is None
    assert len(list(cache.iterdir())) == 1
    sets = ["compute.queue.name=ml-queue", "compute.queue.priority=9"]
    queued = make_plan(config, sets, None, "key-job", cache_dir=cache).plan
    assert len(list(cache.iterdir())) == 1  # a hit
    assert queued.request == direct.request
    assert queued.queue is not None
    assert (queued.queue.request["jobQueue"], queued.queue.request["schedulingPriority"]) == (
        "ml-queue",
        9,
    )
    assert queued.queue.request["serviceRequestPayload"] == json.dumps(
        {k: v for k, v in direct.request.items() if k != "Tags"}
    )
    other = make_plan(config, ["compute.queue=other-queue"], None, "key-job", cache_dir=cache)
    assert other.plan.queue is not None and other.plan.queue.request["jobQueue"] == "other-queue"


def test_the_local_section_is_keyed_only_by_what_the_local_variant_plans_of_it(make_config):
    """The SDK never reads `local:`; a local run plans the config's local variant, whose
    hyperparameters have local.hyperparameters merged in (and a TensorFlow job's model_dir set
    by them): those key it, the hosts and the software settings do not."""
    config = make_config()
    assert key_for(config, "local.hosts=3", "local.software=machine") == key_for(config)

    def local_key(*overrides: str) -> str:
        loaded, _ = load_valid(config, list(overrides))
        return planning.cache_key(local_variant(loaded), **KEY_ARGS)

    assert local_key("local.hosts=3") == local_key("local.hosts=1")
    assert local_key("local.hyperparameters.epochs=7") != local_key(
        "local.hyperparameters.epochs=8"
    )


def test_the_same_config_written_in_another_order_is_the_same_entry(make_config):
    """Keys are compared sorted: reordering a config's mappings (what a formatter or a merge
    does) plans from the cache; the values still decide."""
    ordered = key_for(make_config({"hyperparameters": {"a": 1, "b": 2}}))
    assert key_for(make_config({"hyperparameters": {"b": 2, "a": 1}})) == ordered
    assert key_for(make_config({"hyperparameters": {"a": 2, "b": 1}})) != ordered


def test_the_versions_keyed_are_the_installed_sdks_and_sagelaunchs():
    from importlib import metadata

    from sagelaunch import __version__

    assert planning.installed_versions() == {
        "sagemaker": metadata.version("sagemaker"),
        "sagelaunch": __version__,
    }

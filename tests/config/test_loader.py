"""The loader: located errors for every kind of bad YAML, extends, --set and exact strings."""

from __future__ import annotations

from pathlib import Path

import pytest

from sagelaunch.config.loader import load
from sagelaunch.errors import ConfigError


def errors_of(path: Path, overrides: list[str] | None = None) -> list[str]:
    with pytest.raises(ConfigError) as info:
        load(path, overrides)
    return [str(p) for p in info.value.problems]


def write(tmp_path: Path, text: str, name: str = "c.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


VALID = """\
name: demo
framework: pytorch
entry_point: train.py
framework_version: "2.2.0"
compute:
  instance_type: ml.g5.xlarge
"""


def test_valid_config_loads_with_defaults(tmp_path):
    loaded = load(write(tmp_path, VALID))
    assert loaded.config.compute.instance_count == 1
    assert loaded.config.compute.max_run == 86400
    assert loaded.config.distribution.strategy == "none"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("name: a\nname: b\n", ":2:1: duplicate key"),
        ("name: a\ncompute:\n\tinstance_type: x\n", ":3:1: tab characters"),
        ("- a\n- b\n", ":1:1: top level must be a mapping"),
        ("", ":1:1: empty file"),
        ("name: [unclosed\n", "invalid YAML"),
    ],
)
def test_yaml_level_errors_are_located(tmp_path, text, expected):
    path = write(tmp_path, text)
    (message,) = errors_of(path)
    assert message.startswith(str(path)) and expected in message


def test_unknown_key_suggests_the_close_one(tmp_path):
    path = write(tmp_path, VALID.replace("instance_type", "instance_typ"))
    messages = errors_of(path)
    assert (
        f"{path}:6:3: compute.instance_typ: unknown key 'instance_typ'; did you mean "
        "'instance_type'?" in messages
    )
    assert f"{path}:5:1: compute.instance_type: missing required key 'instance_type'" in messages


def test_key_at_the_wrong_level_says_where_it_belongs(tmp_path):
    path = write(tmp_path, VALID + "instance_count: 2\n")
    assert errors_of(path) == [
        f"{path}:7:1: instance_count: unknown key 'instance_count'; "
        "it belongs at 'compute.instance_count'"
    ]


def test_wrong_type_and_bad_duration_point_at_their_lines(tmp_path):
    path = write(tmp_path, VALID + "  instance_count: lots\n  max_run: 3 weeks\n")
    messages = errors_of(path)
    assert any(m.startswith(f"{path}:7:3: compute.instance_count:") for m in messages)
    assert any(
        m.startswith(f"{path}:8:3: compute.max_run: '3 weeks' is not a duration") for m in messages
    )


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90m", 5400), ("24h", 86400), ("2d", 172800), ("1h30m", 5400), (3600, 3600), ("120", 120)],
)
def test_durations(tmp_path, text, seconds):
    loaded = load(write(tmp_path, VALID + f"  max_run: {text}\n"))
    assert loaded.config.compute.max_run == seconds


def test_unquoted_framework_version_keeps_its_exact_text(tmp_path):
    loaded = load(write(tmp_path, VALID.replace('"2.2.0"', "1.10")))
    assert loaded.config.framework_version == "1.10"


def test_channel_shorthand_and_sagemaker_distribution_names(tmp_path):
    text = (
        VALID
        + "inputs:\n  train: s3://b/t/\n  val: {uri: s3://b/v/, distribution: ShardedByS3Key}\n"
    )
    inputs = load(write(tmp_path, text)).config.inputs
    assert inputs["train"].uri == "s3://b/t/" and inputs["train"].distribution == "replicated"
    assert inputs["val"].distribution == "sharded"


def test_extends_deep_merges_maps_and_replaces_lists(tmp_path):
    write(
        tmp_path,
        "compute: {instance_type: ml.p4d.24xlarge, volume_size_gb: 100}\n"
        "tags: {team: a}\nmetrics: [{name: a, regex: 'a=(\\d+)'}]\n",
        "base.yaml",
    )
    child = write(
        tmp_path,
        "extends: base.yaml\n"
        + VALID.replace(
            "compute:\n  instance_type: ml.g5.xlarge\n",
            "compute: {instance_count: 2}\ntags: {owner: b}\nmetrics: []\n",
        ),
    )
    config = load(child).config
    assert config.compute.instance_type == "ml.p4d.24xlarge"
    assert config.compute.volume_size_gb == 100 and config.compute.instance_count == 2
    assert config.tags == {"team": "a", "owner": "b"}
    assert config.metrics == []


def test_errors_in_a_base_point_into_the_base_file(tmp_path):
    base = write(tmp_path, "compute: {instance_type: ml.g5.xlarge, volume: 3}\n", "base.yaml")
    child = write(tmp_path, "extends: base.yaml\n" + VALID.split("compute:")[0])
    (message,) = errors_of(child)
    assert message.startswith(f"{base}:1:40: compute.volume: unknown key")


def test_extends_cycle_and_missing_base_are_errors(tmp_path):
    write(tmp_path, "extends: b.yaml\n", "a.yaml")
    write(tmp_path, "extends: a.yaml\n", "b.yaml")
    assert "extends cycle" in errors_of(tmp_path / "a.yaml")[0]
    missing = write(tmp_path, "extends: nowhere.yaml\n" + VALID, "m.yaml")
    assert f"{missing}:1:1: extends: base config not found" in errors_of(missing)[0]


def test_set_overrides_parse_values_as_yaml(tmp_path):
    path = write(tmp_path, VALID)
    config = load(
        path,
        ["compute.instance_count=4", "hyperparameters.lr=0.1", "distribution.strategy=torchrun"],
    ).config
    assert config.compute.instance_count == 4
    assert config.hyperparameters == {"lr": 0.1}
    assert config.distribution.strategy == "torchrun"


def test_bad_set_override_is_located_at_the_flag(tmp_path):
    path = write(tmp_path, VALID)
    assert errors_of(path, ["compute.instance_count=many"])[0].startswith(
        "--set compute.instance_count=many:1:1: compute.instance_count:"
    )
    assert "expected key.path=value" in errors_of(path, ["novalue"])[0]


def test_environment_and_tags_values_become_strings(tmp_path):
    text = VALID + "environment: {A: 1, B: true}\ntags: {n: 2}\n"
    config = load(write(tmp_path, text)).config
    assert config.environment == {"A": "1", "B": "true"} and config.tags == {"n": "2"}

"""YAML tags, dates and keys a launch config cannot hold as written: refused at the tag (or the
key) with FILE:LINE:COL and what to write instead, before anything is constructed; the tags that
only say a plain value's type are taken as that value."""

from __future__ import annotations

import pytest

from sagelaunch.checks.validation import validate_file
from sagelaunch.config.loader import load
from sagelaunch.config.yamlsource import parse_text
from sagelaunch.errors import ConfigError


def refusal(text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_text(text, "c.yaml")
    (problem,) = caught.value.problems
    return str(problem)


@pytest.mark.parametrize(
    ("value", "offset", "says"),
    [
        ('!!python/object/apply:os.system ["echo owned"]', 0, "never constructs Python objects"),
        ("!!python/name:os.system", 0, "never constructs Python objects"),
        ("!x [1, 2]", 0, "unknown YAML tag !x"),
        ("{a: !x 3}", 4, "unknown YAML tag !x"),
        ("!!omap [{a: 1}, {b: 2}]", 0, "!!omap is not supported in a launch config: write a plain"),
        ("!!pairs [{a: 1}]", 0, "!!pairs is not supported"),
        ("!!set {a, b}", 0, "!!set is not supported in a launch config: write a list"),
        ("{a: !!binary aGVsbG8=}", 4, "!!binary is not supported"),
        ("{start: !!timestamp 2024-01-01}", 8, "!!timestamp is not supported"),
        ("{a: !!int x}", 4, "'x' is not a valid int for the tag !!int"),
        ("{a: !!bool maybe}", 4, "'maybe' is not a valid bool"),
        ("{a: !!null x}", 4, "'x' is not a valid null"),
        ("!!str [1]", 0, "the tag !!str does not fit a list"),
        ("!!seq {a: 1}", 0, "the tag !!seq does not fit a mapping"),
        ("{a: !!map x}", 4, "the tag !!map does not fit a single value"),
        ("{a: !<tag:example.com,2000:x> 1}", 4, "unknown YAML tag tag:example.com,2000:x"),
    ],
)
def test_a_tag_that_is_no_plain_value_is_refused_at_the_tag(value, offset, says):
    message = refusal(f"name: x\nhyperparameters: {value}\n")
    column = len("hyperparameters: ") + 1 + offset  # the tag's own column
    assert message.startswith(f"c.yaml:2:{column}: "), message
    assert says in message
    assert "remove the tag" in message or "write" in message  # the fix


def test_a_tag_directive_cannot_turn_str_into_something_else():
    message = refusal("%TAG !! tag:evil.example,2024:\n---\nname: !!str x\n")
    assert message.startswith("c.yaml:3:7: unknown YAML tag tag:evil.example,2024:str")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: !!str x", "x"),
        ("a: !!str 1", "1"),
        ("a: !!str true", "true"),
        ("a: !!str", ""),
        ("a: !<tag:yaml.org,2002:str> x", "x"),
        ("a: ! x", "x"),
        ("a: !!int 0x1f", 31),
        ("a: !!float 3", 3.0),
        ("a: !!bool true", True),
        ("a: !!null ~", None),
        ("a: !!seq [1]", [1]),
        ("a: !!map {b: 1}", {"b": 1}),
        ("a: &s !!str y\nb: *s", "y"),
    ],
)
def test_a_tag_that_names_a_plain_type_gives_that_value(text, expected):
    value = parse_text(text, "c.yaml").data["a"]
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize(
    "written",
    ["2024-01-01", "2024-1-1 10:00:00", "2001-12-14t21:59:43.10-05:00", "2002-12-14"],
)
def test_an_unquoted_date_is_the_text_written(written):
    doc = parse_text(f"a: {written}\nb: [{written}]\n{written}: k\n", "c.yaml")
    assert doc.data == {"a": written, "b": [written], written: "k"}


def test_a_date_hyperparameter_validates_as_the_text_plan_sends(make_config):
    path = make_config()
    path.write_text(path.read_text() + "hyperparameters: {start: 2024-01-01, n: 3}\n")
    report = validate_file(path)
    assert report.ok, report.errors
    assert load(path).config.hyperparameters == {"start": "2024-01-01", "n": 3}


@pytest.mark.parametrize(
    ("text", "position", "says"),
    [
        ("a: {true: 1}", "1:5", "read as true/false, not as a name: quote it ('true': ...)"),
        ("b: 2\n~: 1", "2:1", "read as null, not as a name: quote it ('~': ...)"),
        ("x:\n  1e3: 2", "2:3", "read as a number, not as a name: quote it ('1e3': ...)"),
        ("? [1, 2]\n: 3", "1:3", "a key must be a single name, not a list or a mapping"),
        ("a: {: 1}", "1:6", "this key is empty: write a name"),
    ],
)
def test_a_key_that_is_no_name_is_refused_at_the_key(text, position, says):
    message = refusal(text)
    assert message.startswith(f"c.yaml:{position}: ") and says in message


def test_names_from_integers_and_str_tags_and_quoted_words_are_kept():
    doc = parse_text("1: a\n!!str 2: b\n'true': c\n", "c.yaml")
    assert doc.data == {"1": "a", "2": "b", "true": "c"}


def test_a_mapping_of_only_a_merge_key_is_located_where_the_merged_keys_were_written():
    doc = parse_text("x: &a {a: 1}\nb: {<<: *a}\nc: {<<: !!map {d: 2}}\n", "c.yaml")
    assert doc.data["b"] == {"a": 1} and doc.data["c"] == {"d": 2}
    assert doc.positions[("b", "a")] == ("c.yaml", 1, 8)
    assert doc.positions[("c", "d")] == ("c.yaml", 3, 16)


@pytest.mark.parametrize("written", ["0b_", "-0x_", "0o_", "0b__", "!!int 0x_"])
def test_a_text_yaml_reads_as_a_number_but_cannot_is_located_not_a_crash(written):
    message = refusal(f"name: x\nv: [1, {written}]\n")
    assert message.startswith("c.yaml:2:8: invalid YAML: ")
    assert "reads as a number but is none: quote it to keep it as text" in message

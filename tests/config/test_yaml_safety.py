"""YAML that would exhaust the loader is refused before it is composed, with FILE:LINE:COL;
the YAML features real configs use (anchors, aliases, merge keys, nesting) keep working."""

from __future__ import annotations

import time

import pytest

from sagelaunch.config.loader import load
from sagelaunch.config.yamlguard import MAX_DEPTH, MAX_VALUES
from sagelaunch.config.yamlsource import parse_text
from sagelaunch.errors import ConfigError


def alias_bomb(levels: int, width: int = 9) -> str:
    """ "Billion laughs": each level aliases the one before ``width`` times (width**levels)."""
    lines = [f"l0: &l0 [{', '.join(['lol'] * width)}]"]
    for level in range(1, levels + 1):
        lines.append(f"l{level}: &l{level} [{', '.join([f'*l{level - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


def refusal(text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_text(text, "bomb.yaml")
    (problem,) = caught.value.problems
    return str(problem)


def test_an_alias_bomb_is_refused_at_the_alias_that_crosses_the_limit_in_milliseconds():
    text = alias_bomb(levels=9)  # 9**10 values once expanded; under 1 KB written
    assert len(text) < 1024
    started = time.process_time()
    message = refusal(text)
    # l0..l4 hold ~74k values; l5's first alias of *l4 (line 6, column 10) adds 66k more.
    assert message.startswith("bomb.yaml:6:10: aliases expand this document past 100,000")
    assert "*l4 alone stands for 66,430" in message and "billion laughs" in message
    assert time.process_time() - started < 5  # CPU time, a hang guard only: not a timing claim


def test_aliases_within_the_limit_load_expanded():
    doc = parse_text(alias_bomb(levels=3, width=3), "ok.yaml")
    assert doc.data["l3"] == [[[["lol"] * 3] * 3] * 3] * 3
    assert sum(1 for _ in _leaves(doc.data)) < MAX_VALUES


def _leaves(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def test_anchors_aliases_and_merge_keys_in_a_launch_config_still_work(make_config):
    path = make_config()
    path.write_text(
        path.read_text()
        + "environment:\n  <<: {MODE: fast, SEED: '7'}\n  EXTRA: '1'\n"
        + "hyperparameters: {lr: &lr 0.1, warmup_lr: *lr}\n"
    )
    config = load(path).config
    assert config.environment == {"MODE": "fast", "SEED": "7", "EXTRA": "1"}
    assert config.hyperparameters["warmup_lr"] == config.hyperparameters["lr"] == 0.1


def test_nesting_past_the_limit_is_located_at_the_first_bracket_too_deep():
    depth = 300
    message = refusal("name: x\nhyperparameters: " + "[" * depth + "]" * depth + "\n")
    column = len("hyperparameters: ") + MAX_DEPTH  # the (MAX_DEPTH + 1)-th open collection
    assert message == f"bomb.yaml:2:{column}: nested more than {MAX_DEPTH} levels deep"


def test_nesting_up_to_the_limit_loads():
    depth = MAX_DEPTH - 1  # the top-level mapping is one level
    doc = parse_text("a: " + "[" * depth + "1" + "]" * depth + "\n", "deep.yaml")
    value = doc.data["a"]
    for _ in range(depth):
        (value,) = value
    assert value == 1


def test_block_nesting_past_the_limit_is_refused_too():
    lines = [f"{'  ' * level}k{level}:" for level in range(MAX_DEPTH + 5)]
    message = refusal("\n".join(lines) + " 1\n")
    assert f"nested more than {MAX_DEPTH} levels deep" in message
    assert message.startswith(f"bomb.yaml:{MAX_DEPTH + 1}:")  # the mapping that k99 opens


def test_a_byte_that_is_not_utf8_is_located(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("name: unit\n# café\n".encode("latin-1"))
    with pytest.raises(ConfigError) as caught:
        load(path)
    (problem,) = caught.value.problems
    assert (problem.line, problem.col) == (2, 6)
    assert "not UTF-8: byte 0xe9 at byte 16" in problem.message and "save the file as UTF-8" in (
        problem.message
    )


def test_a_folder_is_not_a_config(tmp_path):
    with pytest.raises(ConfigError) as caught:
        load(tmp_path)
    assert "is a folder: name one config file in it" in str(caught.value)

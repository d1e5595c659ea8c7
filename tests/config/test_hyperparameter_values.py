"""Hyperparameters as the user wrote them reach the job, and only the display hides a secret:
``${env:NAME}`` references resolve in hyperparameters (whole or inside a value) as in the
environment, an unset or malformed one is an error at its key; a secret-looking hyperparameter
value is masked in plan's table and JSON, never in the saved plan or the request sent."""

from __future__ import annotations

import json

import pytest

from sagelaunch import plan_file
from sagelaunch.config.loader import load
from sagelaunch.config.references import resolve_references
from sagelaunch.errors import ConfigError
from sagelaunch.redact import MASK, redact

GITHUB_TOKEN = "ghp_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789ab"  # the shape, not a real one


def write(make_config, text: str):
    path = make_config()
    path.write_text(path.read_text() + text)
    return path


REFERENCES = """\
hyperparameters:
  tok: ${env:HP_TOKEN}
  data: s3://${env:HP_BUCKET}/train/${env:HP_BUCKET}
  nested: [a, {deep: "${env:HP_TOKEN}"}]
  plain: 3
environment:
  E: pre-${env:HP_TOKEN}
local:
  hyperparameters: {only_local: "${env:HP_LOCAL}"}
"""


def test_references_in_hyperparameters_resolve_whole_inside_and_nested(make_config, monkeypatch):
    monkeypatch.setenv("HP_TOKEN", "abc")
    monkeypatch.setenv("HP_BUCKET", "bkt")
    monkeypatch.delenv("HP_LOCAL", raising=False)
    config = resolve_references(load(write(make_config, REFERENCES))).config
    assert config.hyperparameters == {
        "tok": "abc",
        "data": "s3://bkt/train/bkt",
        "nested": ["a", {"deep": "abc"}],
        "plain": 3,
    }
    assert config.environment == {"E": "pre-abc"}
    # plan and submit never send local.hyperparameters: its references wait for `local`.
    assert config.local.hyperparameters == {"only_local": "${env:HP_LOCAL}"}
    monkeypatch.setenv("HP_LOCAL", "here")
    local = resolve_references(load(write(make_config, REFERENCES)), local=True).config
    assert local.local.hyperparameters == {"only_local": "here"}


def test_an_unset_reference_is_an_error_at_each_key_in_file_order(make_config, monkeypatch):
    for variable in ("HP_TOKEN", "HP_BUCKET", "HP_LOCAL"):
        monkeypatch.delenv(variable, raising=False)
    path = write(make_config, REFERENCES)
    with pytest.raises(ConfigError) as caught:
        resolve_references(load(path))
    found = [(p.line, p.col, p.path, p.message) for p in caught.value.problems]
    base = len(path.read_text().splitlines()) - len(REFERENCES.splitlines())
    assert [(line - base, col, where) for line, col, where, _ in found] == [
        (2, 3, "hyperparameters.tok"),
        (3, 3, "hyperparameters.data"),
        (4, 16, "hyperparameters.nested[1].deep"),
        (7, 3, "environment.E"),
    ]
    assert (
        found[0][3] == "${env:HP_TOKEN}: $HP_TOKEN is not set; export it before plan/submit/local"
    )


def test_a_malformed_reference_is_an_error_not_sent_as_written(make_config):
    path = write(make_config, 'hyperparameters: {bad: "${env:1X}", open: "${env:X"}\n')
    with pytest.raises(ConfigError) as caught:
        resolve_references(load(path))
    assert [p.path for p in caught.value.problems] == [
        "hyperparameters.bad",
        "hyperparameters.open",
    ]
    assert all("a reference is written ${env:NAME}" in p.message for p in caught.value.problems)


def test_secret_hyperparameter_values_are_masked_by_value_and_telling_name_only():
    request = {
        "HyperParameters": {
            "tok": json.dumps(GITHUB_TOKEN),
            "hf_token": json.dumps("myplainsecretvalue"),
            "nested": json.dumps(["a", {"k": GITHUB_TOKEN}]),
            "max_tokens": "512",
            "pad_token_id": "0",
            "tokenizer": json.dumps("gpt2"),
            "token": json.dumps("1"),
            "sagemaker_program": json.dumps("train.py"),
        },
        "kwargs": {"hyperparameters": {"tok": GITHUB_TOKEN, "lr": 0.1}},
        "StaticHyperParameters": {"tok": json.dumps(GITHUB_TOKEN)},
    }
    shown = redact(request)
    masked = {k for k, v in shown["HyperParameters"].items() if v == MASK}
    assert masked == {"tok", "hf_token", "nested"}
    assert shown["kwargs"]["hyperparameters"] == {"tok": MASK, "lr": 0.1}
    assert shown["StaticHyperParameters"] == {"tok": MASK}
    assert request["HyperParameters"]["tok"] == json.dumps(GITHUB_TOKEN)  # a copy is masked


def test_plan_masks_a_token_hyperparameter_in_table_and_json_not_in_the_saved_plan(
    cli, make_config, tmp_path
):
    config = write(make_config, f"hyperparameters: {{tok: {GITHUB_TOKEN}, epochs: 3}}\n")
    out = tmp_path / "plan.json"
    as_json = cli("plan", config, "-o", "json", "--out", out)
    assert as_json.exit_code == 0, as_json.output
    shown = json.loads(as_json.stdout)
    assert shown["request"]["HyperParameters"]["tok"] == MASK
    assert shown["request"]["HyperParameters"]["epochs"] == "3"
    assert shown["estimator"]["kwargs"]["hyperparameters"]["tok"] == MASK
    assert GITHUB_TOKEN not in as_json.stdout
    table = cli("plan", config)
    assert table.exit_code == 0 and GITHUB_TOKEN not in table.stdout and MASK in table.stdout
    saved, _ = plan_file.load(out)
    assert saved.request["HyperParameters"]["tok"] == json.dumps(GITHUB_TOKEN)  # what is sent

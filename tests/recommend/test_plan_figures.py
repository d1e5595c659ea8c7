"""`plan` shows recommend's memory and step time for the GPT that `recommend --emit-config`
wrote, in the table view only; the plan JSON (the request) is unchanged."""

from __future__ import annotations

import json

import pytest

from tests.recommend.test_command import emit, recommend_json

ROLE = "arn:aws:iam::111122223333:role/SagelaunchDemo"
# two instances: FSDP over 16 GPUs (on one, SMP v2's TP 4 fits, which `plan` does not read)
ARGS = ("--params", "13B", "--instance-type", "ml.p4d.24xlarge", "--instance-count", "2")


@pytest.fixture
def offline(monkeypatch):
    monkeypatch.setenv("SAGELAUNCH_ROLE", ROLE)
    monkeypatch.setenv("AWS_REGION", "us-east-1")


def test_plan_shows_the_emitted_layouts_memory_and_step(cli, tmp_path, offline):
    path, _ = emit(cli, tmp_path, *ARGS)
    chosen = recommend_json(cli, *ARGS)
    result = cli("plan", path)
    assert result.exit_code == 0, result.output
    (line,) = [text for text in result.stdout.splitlines() if text.startswith("memory ")]
    total = float(line.split()[1])
    # the emitted shape has 12.9B parameters where --params said 13B
    assert total == pytest.approx(chosen["per_device_gb"]["total"], abs=0.3)
    assert (
        "of 42.5 GB per GPU" in line
    )  # 39.59 GiB, what CUDA reports for an A100 40 GB and "tokens per dollar" in line


def test_plan_json_carries_no_recommend_figures(cli, tmp_path, offline):
    path, _ = emit(cli, tmp_path, *ARGS)
    result = cli("plan", path, "--output", "json")
    assert result.exit_code == 0, result.output
    assert "tokens_per_dollar" not in json.dumps(json.loads(result.stdout))


def test_no_figures_without_the_whole_shape(cli, tmp_path, offline):
    path, config = emit(cli, tmp_path, *ARGS)
    text = path.read_text().replace(
        f"  vocab_size: {config['hyperparameters']['vocab_size']}\n", ""
    )
    path.write_text(text)
    result = cli("plan", path)
    assert result.exit_code == 0, result.output
    assert not [text for text in result.stdout.splitlines() if text.startswith("memory ")]

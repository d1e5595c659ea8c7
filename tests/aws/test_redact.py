"""Secret-looking environment values are hidden in what is displayed, never in what is sent."""

from __future__ import annotations

import copy
import json

from sagelaunch import plan_file
from sagelaunch.redact import MASK, redact

ENVIRONMENT = {
    "HF_TOKEN": "hf_x",
    "aws_secret": "s",
    "DB_PASSWORD": "p",
    "WANDB_API_KEY": "k",
    "GOOGLE_APPLICATION_CREDENTIALS": "/c.json",
    "NCCL_DEBUG": "WARN",
    "EPOCHS": "3",
}


def test_redact_masks_secret_names_at_any_depth_and_copies():
    plan = {
        "request": {"Environment": dict(ENVIRONMENT), "HyperParameters": {"token": "1"}},
        "estimator": {"kwargs": {"environment": dict(ENVIRONMENT)}},
    }
    original = copy.deepcopy(plan)
    shown = redact(plan)
    assert plan == original  # the input is untouched
    for environment in (
        shown["request"]["Environment"],
        shown["estimator"]["kwargs"]["environment"],
    ):
        assert {k for k, v in environment.items() if v == MASK} == {
            "HF_TOKEN",
            "aws_secret",
            "DB_PASSWORD",
            "WANDB_API_KEY",
            "GOOGLE_APPLICATION_CREDENTIALS",
        }
        assert environment["NCCL_DEBUG"] == "WARN" and environment["EPOCHS"] == "3"
    assert shown["request"]["HyperParameters"] == {"token": "1"}  # only environments


def test_plan_display_is_redacted_but_the_saved_plan_is_not(cli, make_config, tmp_path):
    config = make_config({"environment": {"HF_TOKEN": "hf_secret_value", "NCCL_DEBUG": "INFO"}})
    out = tmp_path / "plan.json"
    as_json = cli("plan", config, "-o", "json", "--out", out)
    assert as_json.exit_code == 0, as_json.output
    shown = json.loads(as_json.stdout)
    assert shown["request"]["Environment"] == {"HF_TOKEN": MASK, "NCCL_DEBUG": "INFO"}
    assert shown["estimator"]["kwargs"]["environment"]["HF_TOKEN"] == MASK
    saved, _ = plan_file.load(out)
    assert saved.request["Environment"]["HF_TOKEN"] == "hf_secret_value"
    for output in ("table", "yaml"):
        result = cli("plan", config, "-o", output)
        assert result.exit_code == 0 and "hf_secret_value" not in result.stdout
    assert "HF_TOKEN=***" in cli("plan", config).stdout

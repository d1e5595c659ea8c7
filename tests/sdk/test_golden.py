"""Every example's plan against its golden file: a change to what goes to AWS shows in review."""

from __future__ import annotations

import pytest

from tests.conftest import EXAMPLES
from tests.golden.regenerate import GOLDEN, golden_plan, text

CONFIGS = sorted(EXAMPLES.glob("*.yaml"))


def test_every_example_has_a_golden_file():
    assert {c.stem for c in CONFIGS} == {g.stem for g in GOLDEN.glob("*.json")}


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.stem)
def test_plan_matches_golden(config):
    expected = (GOLDEN / f"{config.stem}.json").read_text()
    assert text(golden_plan(config)) == expected, "run `make golden` and review the diff"

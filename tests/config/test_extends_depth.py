"""An `extends:` chain has a depth limit: a runaway chain is refused at the extends line that
goes past it (FILE:LINE:COL and the fix), never a RecursionError; a chain at the limit loads."""

from __future__ import annotations

import pytest
import yaml

from sagelaunch.config.loader import MAX_EXTENDS, load
from sagelaunch.errors import ConfigError
from tests.conftest import BASE


def chain(tmp_path, bases: int):
    """c0.yaml extends c1.yaml ... extends c{bases}.yaml (the real config): ``bases`` bases."""
    (tmp_path / "code").mkdir(exist_ok=True)
    (tmp_path / "code" / "train.py").write_text("print('hi')\n")
    (tmp_path / f"c{bases}.yaml").write_text(yaml.safe_dump(BASE))
    for level in range(bases):
        (tmp_path / f"c{level}.yaml").write_text(f"# level {level}\nextends: c{level + 1}.yaml\n")
    return tmp_path / "c0.yaml"


def test_a_chain_a_thousand_deep_is_refused_at_the_extends_past_the_limit(tmp_path):
    with pytest.raises(ConfigError) as caught:
        load(chain(tmp_path, 1000))
    (problem,) = caught.value.problems
    assert (problem.file, problem.line, problem.col) == (
        str(tmp_path / f"c{MAX_EXTENDS}.yaml"),
        2,
        1,
    )
    assert problem.path == "extends"
    assert f"extends chain longer than {MAX_EXTENDS} bases" in problem.message
    assert str(tmp_path / "c0.yaml") in problem.message  # where the chain starts
    assert "merge some of the bases into one" in problem.message  # the fix


def test_a_chain_one_past_the_limit_is_refused_and_one_at_it_loads(tmp_path):
    (tmp_path / "over").mkdir()
    (tmp_path / "at").mkdir()
    with pytest.raises(ConfigError, match="extends chain longer than"):
        load(chain(tmp_path / "over", MAX_EXTENDS + 1))
    assert load(chain(tmp_path / "at", MAX_EXTENDS)).config.name == BASE["name"]

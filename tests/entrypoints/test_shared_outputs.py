"""The entry points' one atomic writer and one metrics.json writer (entrypoints/shared)."""

from __future__ import annotations

import json
import sys

import pytest

from tests.conftest import REPO


@pytest.fixture
def shared_outputs(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "entrypoints" / "shared"))
    import shared_outputs

    yield shared_outputs
    sys.modules.pop("shared_outputs", None)


def test_a_write_that_fails_leaves_the_old_file_and_no_temp(shared_outputs, tmp_path):
    target = tmp_path / "model.json"
    shared_outputs.atomic_write_text(target, "old")

    def half_then_crash(handle):
        handle.write(b"{half")
        raise KeyboardInterrupt  # as a SIGINT mid-write

    with pytest.raises(KeyboardInterrupt):
        shared_outputs.atomic_write(target, half_then_crash)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["model.json"]


def test_metrics_land_in_the_output_data_dir_whole(shared_outputs, tmp_path):
    path = shared_outputs.write_metrics(tmp_path / "output" / "data", {"steps": 3})
    assert path == tmp_path / "output" / "data" / "metrics.json"
    assert json.loads(path.read_text()) == {"steps": 3}

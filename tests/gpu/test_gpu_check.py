"""`make gpu-check` works before any GPU time is spent on it: the same script, every part, with
tiny models on this machine's CPU (gloo where the GPU run uses NCCL)."""

from __future__ import annotations

import json

import pytest

from tests.gpu import check


@pytest.mark.slow  # about ten processes: entry-point runs, the trackers' driver, the paths driver
def test_every_part_runs_on_the_cpu_with_tiny_models(tmp_path, capsys):
    assert check.main(["--tiny", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    figures = json.loads((tmp_path / "gpu-check.json").read_text())
    parts = {part["name"]: part for part in figures["parts"]}
    assert list(parts) == list(check.PARTS)
    assert all(part["problems"] == [] for part in parts.values())
    # the report printed is the one written, one section per part
    assert printed.strip() == (tmp_path / "gpu-check.md").read_text().strip()
    assert [line for line in printed.splitlines() if line.startswith("### ")] == [
        f"### {name} ({parts[name]['seconds']:.0f} s)" for name in check.PARTS
    ]

    (run,) = parts["throughput"]["rows"]
    assert run["tokens_per_s"] > 0 and run["params"] > 0
    assert run["mfu"] is None  # no peak to divide by on a CPU; the GPU run reports it

    (cell,) = parts["memory"]["rows"]
    for category in ("weights", "gradients", "optimizer", "activations"):
        assert 0.9 <= cell[category]["ratio"] <= 1.1, (category, cell[category])
    assert all(parts["memory"]["goals"].values())

    (resumed,) = parts["resume"]["rows"]
    sizes = check.TINY
    assert resumed["killed_after_step"] >= sizes.kill_after
    assert resumed["resumed_at_step"] % sizes.checkpoint_every == 0
    assert 0 < resumed["resumed_at_step"] < sizes.resume_steps
    assert resumed["variant"] == "single" and resumed["deterministic"]
    assert resumed["repeatable"] and resumed["bit_identical"] and resumed["losses_identical"]

    (path,) = parts["paths"]["rows"]
    assert path["backend"] == "gloo"
    assert path["dtensor_parameters"] == path["parameters"] > 0
    assert path["max_relative_difference"] < 1e-3


def test_an_unknown_part_is_refused_with_the_choices(capsys):
    with pytest.raises(SystemExit) as stopped:
        check.main(["--parts", "throughput,speed"])
    assert stopped.value.code == 2
    assert "unknown parts ['speed']; choose from throughput, memory, resume, paths" in (
        capsys.readouterr().err
    )

"""The local plan cache gives exactly what planning again would: same request, new job name and
new code location, today's config warnings."""

from __future__ import annotations

from sagelaunch import bundle
from sagelaunch.config.validation import load_valid
from sagelaunch.local import plan_cache
from sagelaunch.local.variant import local_variant
from sagelaunch.sdk.plan import build_plan
from tests.conftest import EXAMPLES


def plan_for(planned, job_name, code):
    return build_plan(
        planned,
        job_name=job_name,
        region="us-east-1",
        role=str(planned.config.role),
        bundle=code,
        warnings=[],
    )


def test_retargeted_cache_entry_equals_a_fresh_plan(tmp_path):
    loaded, _ = load_valid(EXAMPLES / "cpu-local.yaml")
    planned = local_variant(loaded)
    (tmp_path / "v1").mkdir()
    (tmp_path / "v2").mkdir()
    (tmp_path / "v1" / "train_pytorch.py").write_text("print(1)\n")
    (tmp_path / "v2" / "train_pytorch.py").write_text("print(2)\n")
    first, second = bundle.build(tmp_path / "v1"), bundle.build(tmp_path / "v2")
    assert first.sha256 != second.sha256

    key = plan_cache.cache_key(planned)
    plan_cache.store(tmp_path / "cache", key, plan_for(planned, "run-1", first))
    cached = plan_cache.load(tmp_path / "cache", key)
    assert cached is not None

    retargeted = plan_cache.retarget(cached, "run-2", second, ["a config warning"])
    fresh = plan_for(planned, "run-2", second)
    assert retargeted["request"] == fresh["request"]
    assert retargeted["estimator"] == fresh["estimator"]
    assert retargeted["upload"] == fresh["upload"]
    assert retargeted["warnings"] == ["a config warning"]


def test_key_changes_with_the_config_and_damaged_entries_are_misses(tmp_path):
    loaded, _ = load_valid(EXAMPLES / "cpu-local.yaml")
    other, _ = load_valid(EXAMPLES / "cpu-local.yaml", ["hyperparameters.n_layer=3"])
    assert plan_cache.cache_key(local_variant(loaded)) != plan_cache.cache_key(local_variant(other))
    (tmp_path / "bad.json").write_text("{not json")
    assert plan_cache.load(tmp_path, "bad") is None
    assert plan_cache.load(tmp_path, "absent") is None

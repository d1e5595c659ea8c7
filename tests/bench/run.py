"""`make bench`: every benchmark in one run, ratios measured side by side on this machine."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

BENCHES = [
    "bench_cli",
    "bench_plan",
    "bench_pytorch",
    "bench_layouts",
    "bench_strategies",
    "bench_xgboost",
    "bench_local",
    "bench_requirements",
    "bench_channels",
    "bench_submit",
    "bench_datafeed",
    "bench_recommend",
]
# Named on the command line only (`python tests/bench/run.py bench_templates`): every init
# template and example config run under `local`, about 15 minutes on 2 cores.
OPT_IN = ["bench_templates"]


def main(selected: list[str]) -> int:
    results = {}
    for name in selected or BENCHES:
        try:
            module = importlib.import_module(f"tests.bench.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"tests.bench.{name}":
                raise
            continue
        print(f"== {name}", file=sys.stderr, flush=True)
        results[name] = module.run()
        print(json.dumps(results[name], indent=2), flush=True)
    print(table(results))
    return 0


# (bench, key, what, target, unit): each figure a ratio (or seconds) measured in this one run.
ROWS = [
    ("bench_cli", "help_vs_import", "--help / import sagemaker", 0.05, "x"),
    ("bench_cli", "validate_vs_import", "validate / import sagemaker", 0.05, "x"),
    ("bench_cli", "validate_uncached_vs_import", "  (uncached: no validate cache)", None, "x"),
    ("bench_plan", "cached_vs_first", "cached re-plan / first plan", 0.15, "x"),
    ("bench_plan", "ratio", "first plan / plain SDK script", 1.0, "x"),
    (
        "bench_strategies",
        "async_vs_sync_with_straggler",
        "PS async / sync samples/s, straggler",
        None,
        "x",
    ),
    (
        "bench_submit",
        "submit_plan_file_to_first_request_s",
        "submit plan.json: to first request",
        0.5,
        "s",
    ),
    ("bench_submit", "submit_plan_file_s", "  (whole command)", None, "s"),
    ("bench_local", "smoke_run.ratio", "local 20 steps / torchrun by hand", 1.15, "x"),
    ("bench_local", "ratio", "local 300 steps / torchrun by hand", 1.15, "x"),
    ("bench_requirements", "ratio", "local: cached requirements / none", 1.10, "x"),
    # Context: each of 2 hosts' private copy of a 1 GB channel file (reflink where the fs can).
    ("bench_channels", "real_copy_s", "1 GB channel, 2 host copies", None, "s"),
    ("bench_channels", "sparse_copy_s", "  (sparse 1 GB file)", None, "s"),
    # Context, not a target: here the data host shares the ranks' cores (on SageMaker: its own).
    ("bench_datafeed", "offloaded_vs_on_ranks", "rank step: data offloaded / on ranks", None, "x"),
    # The whole size × layout × category table goes to stderr; these bound it.
    ("bench_recommend", "memory_ratio_min", "recommend memory / tracker, lowest", None, "x"),
    ("bench_recommend", "memory_ratio_max", "recommend memory / tracker, highest", None, "x"),
    # Every init template and example config under `sagelaunch local`, as a user runs it.
    ("bench_templates", "failed", "templates/examples failing under local", 0, ""),
    ("bench_templates", "total_s", "  (all of them, one after another)", None, "s"),
]


def table(results: dict) -> str:
    lines = [f"{'measure':<38} {'value':>8} {'target':>8}  ok", "-" * 62]
    for bench, key, what, target, unit in ROWS:
        value = results.get(bench, {})
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if value is None:
            lines.append(f"{what:<38} {'-':>8} {target or '-':>7}{unit}  not run")
            continue
        if target is None:  # shown for context, no target
            lines.append(f"{what:<38} {value:>7}{unit} {'-':>8}")
            continue
        ok = "yes" if value <= target else "NO"
        lines.append(f"{what:<38} {value:>7}{unit} {target:>7}{unit}  {ok}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
